import BadmintonStore
import Foundation
import PostgresNIO
import Testing

@testable import BadmintonPostgres

/// The players and inboxes the matching and proposal tests stand on, on either store.
///
/// Through the store's own registration and inbox, except where the PostgreSQL store does not
/// build those yet (`NotBuilt`): there the player row is written, outside the change capture
/// (the feed cannot read players back yet either), and the inbox read, with statements of
/// their own, so that these tests rest on the matching tables alone.
enum MatchingTestSupport {
  /// A newly registered player's id.
  static func register(_ store: any ServerStore, phone: String) async throws -> Int64 {
    let new = StoreFixtures.newPlayer(phone: phone)
    do {
      return try await store.createPlayer(new).id
    } catch is NotBuilt {}
    let postgres = try #require(store as? PostgresStore)
    let row = try await postgres.write { db in
      try await db.run("SET LOCAL session_replication_role = replica")
      return try await db.row(
        InsertPlayer.self, new.phone, new.nickname, Data(new.password.hash),
        Data(new.password.salt), new.password.parameters, Int64(new.selfLevel), new.locale,
        new.joinedAtUnixMs)
    }
    return try #require(row).decode(Int64.self)
  }

  /// The payloads of the player's events, oldest first.
  static func eventPayloads(_ store: any ServerStore, playerID: Int64) async throws -> [[UInt8]] {
    do {
      return try await store.events(playerID: playerID, after: 0, limit: 1000).map(\.payload)
    } catch is NotBuilt {}
    let postgres = try #require(store as? PostgresStore)
    return try await postgres.read { db in
      try await db.rows(EventPayloads.self, playerID).map {
        Array(buffer: try $0.decode(ByteBuffer.self))
      }
    }
  }

  enum InsertPlayer: SQLStatement {
    static let sql = """
      INSERT INTO player (phone, nickname, password_hash, password_salt, password_parameters,
        self_level, locale, joined_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
      """
  }

  enum EventPayloads: SQLStatement {
    static let sql = "SELECT payload FROM event WHERE player_id = $1 ORDER BY sequence"
  }
}
