import BadmintonStore
import BadmintonStoreSQL
import PostgresNIO

extension PostgresStore {
  /// The players with `ids` that exist, by id, read on the caller's connection: for the change
  /// tail's read-back and the matching replay, which run on postgres-nio's event loops rather
  /// than in a `StoreSession`.
  static func players(_ db: SQLConnection, ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    guard !ids.isEmpty else { return [:] }
    var players: [Int64: PlayerRecord] = [:]
    for row in try await db.rows(PlayerRowsByIDs.self, ids) {
      let player = try Shared.player(from: PostgresSession.storeRow(row))
      players[player.id] = player
    }
    return players
  }

  /// `Shared`'s statement of the same text, so both prepare as one.
  enum PlayerRowsByIDs: SQLStatement {
    static let sql = "SELECT \(Shared.playerColumns) FROM player WHERE id = ANY($1)"
  }
}
