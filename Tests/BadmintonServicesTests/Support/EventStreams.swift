import BadmintonAPI
import BadmintonRPC

/// The next event whose body `pick` accepts, skipping others (such as partner_available).
func next<T>(
  _ events: inout ResponseStream<Event>.AsyncIterator, _ pick: (Event.Body?) -> T?
) async throws -> T? {
  while let event = try await events.next() {
    if let picked = pick(event.body) { return picked }
  }
  return nil
}
