import BadmintonAPI
import BadmintonRPC
import Foundation
import Testing

@testable import BadmintonClient

@Suite("Replayed writes")
struct ReplayTests {
  /// An availability tomorrow evening, UTC, in Shanghai.
  static func availability() -> PostAvailabilityRequest {
    let tomorrow = Calendar(identifier: .gregorian).dateComponents(
      in: TimeZone(identifier: "UTC")!, from: Date().addingTimeInterval(86_400))
    return PostAvailabilityRequest(
      mode: .singles,
      date: LocalDate(
        year: Int32(tomorrow.year!), month: Int32(tomorrow.month!), day: Int32(tomorrow.day!)),
      startMinute: 18 * 60, endMinute: 20 * 60, timeZone: "UTC",
      location: GeoPoint(latitude: 31.2304, longitude: 121.4737))
  }

  @Test(
    "a write sent again with its key after the app died before recording the answer is done once")
  func replayAfterCrash_doneOnce() async throws {
    try await withServer { server, folder in
      let player = try await server.player()
      try FileTokenStore(path: folder.path + "/session.json").save(server.storedSession(of: player))
      var fixedKey = configuration(port: server.port, folder: folder)
      fixedKey.environment.makeKey = { "replayed-key-1" }
      let request = Self.availability()
      let first = try BadmintonSession(configuration: fixedKey)
      let posted = try await first.write(Matching.postAvailability, request)
      await first.close()

      // The app died after the server answered and before the queue recorded it: the write is
      // still in the file, with its key.
      let file = try WriteQueue(path: folder.path + "/writes.queue", limit: 10)
      try file.append(
        QueuedWrite(
          key: "replayed-key-1", methodPath: Matching.postAvailability.path,
          request: request.serializedBytes()))
      file.close()

      let second = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      let replayed = try await outcomes(second, count: 1)
      #expect(replayed.map(\.key) == ["replayed-key-1"])
      #expect(try replayed.first?.response(of: Matching.postAvailability) == posted)
      let mine = try await second.call(Matching.listMyAvailability, ListMyAvailabilityRequest())
      #expect(mine.availability.map(\.id) == [posted.id])
      await second.close()
    }
  }
}
