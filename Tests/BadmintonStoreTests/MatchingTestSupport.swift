import BadmintonStore

/// The players and inboxes the matching and proposal tests stand on, on either store.
enum MatchingTestSupport {
  /// A newly registered player's id.
  static func register(_ store: any ServerStore, phone: String) async throws -> Int64 {
    try await store.createPlayer(StoreFixtures.newPlayer(phone: phone)).id
  }

  /// The payloads of the player's events, oldest first.
  static func eventPayloads(_ store: any ServerStore, playerID: Int64) async throws -> [[UInt8]] {
    try await store.events(playerID: playerID, after: 0, limit: 1000).map(\.payload)
  }
}
