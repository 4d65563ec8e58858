public import BadmintonAPI
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Events`: a player's stored events after a cursor, read from the inbox, then the
/// new ones as the change feed hands them over.
public struct EventsService: Events.ServiceProtocol {
  private let store: any PlayerStore
  private let hub: EventHub
  /// Events read from the store at a time.
  static let pageSize = 100

  /// The service over `store`, with new events from `hub`.
  public init(store: any PlayerStore, hub: EventHub) {
    self.store = store
    self.hub = hub
  }

  public func subscribe(
    _ request: SubscribeRequest, context: ServerContext, events: ResponseStreamWriter<Event>
  ) async throws {
    let caller = try context.requirePrincipal()
    // Subscribe before reading the inbox. An event committed before the subscription is in the
    // inbox when it is read; one committed after reaches the subscription; one committed in
    // between is in both, and the cursor drops the second copy.
    let subscription = hub.subscribe(playerID: caller.userID)
    // However the call ends (a failed write, a slow reader, cancellation), the hub lets go.
    defer { subscription.cancel() }
    var cursor = try await replay(
      caller.userID, after: request.afterSequence, to: events, subscription)
    for try await record in subscription {
      guard record.sequence > cursor else { continue }
      if record.sequence > cursor + 1 {
        // Not expected, since the feed hands over every event in commit order; should one be
        // missing, the inbox has it.
        cursor = try await replay(caller.userID, after: cursor, to: events, subscription)
        guard record.sequence > cursor else { continue }
      }
      try subscription.ensureKeepingUp()
      try await events.write(Self.event(record))
      cursor = record.sequence
    }
    // The subscription ends without an error only when the call is cancelled.
    throw CancellationError()
  }

  /// Sends every stored event after `cursor`; returns the last sequence sent.
  private func replay(
    _ playerID: Int64, after cursor: UInt64, to writer: ResponseStreamWriter<Event>,
    _ subscription: EventHub.Subscription
  ) async throws -> UInt64 {
    var cursor = cursor
    while true {
      let page = try await store.events(playerID: playerID, after: cursor, limit: Self.pageSize)
      for record in page {
        try subscription.ensureKeepingUp()
        try await writer.write(Self.event(record))
        cursor = record.sequence
      }
      if page.count < Self.pageSize { return cursor }
    }
  }

  /// A stored event as the stream sends it.
  private static func event(_ record: EventRecord) -> Event {
    var event = (try? Event(serializedBytes: record.payload)) ?? Event()
    event.sequence = record.sequence
    event.createdAtUnixMs = record.createdAtUnixMs
    return event
  }
}

/// Puts events in players' inboxes. Services that notify a player publish through it; when the
/// event belongs with another write, they write it in that write's transaction instead. Either
/// way the change feed hands each committed event to its player's live subscribers.
public struct EventPublisher: Sendable {
  private let store: any PlayerStore
  private let clock: any WallClock

  /// A publisher over `store`.
  public init(store: any PlayerStore, clock: any WallClock) {
    self.store = store
    self.clock = clock
  }

  /// Stores `body` in each player's inbox; returns the sequences.
  @discardableResult
  public func publish(_ body: Event.Body, to playerIDs: [Int64]) async throws -> [UInt64] {
    try await publish(playerIDs.map { (body, $0) })
  }

  /// Stores each event in its player's inbox, all in one transaction; returns the sequences.
  @discardableResult
  public func publish(_ events: [(body: Event.Body, playerID: Int64)]) async throws -> [UInt64] {
    guard !events.isEmpty else { return [] }
    return try await store.appendEvents(
      events.map { (playerID: $0.playerID, payload: Event(body: $0.body).serializedBytes()) },
      atUnixMs: clock.nowUnixMs())
  }
}
