public import BadmintonStore
import Foundation
import GRDB

extension SQLitePlayerStore {
  /// Rows read at a time when a projection is built from the stored state.
  static let replayChunkRows = 1000

  /// Runs `sql` (a SELECT with no WHERE, ORDER or LIMIT of its own, whose rows carry `key` as
  /// `row_id`) chunk by chunk in `key` order inside the caller's read, handing each row to
  /// `body`: one consistent state, never more than a chunk of rows held at once.
  static func replayChunks(
    _ db: Database, sql: String, key: String, where condition: String = "1",
    arguments: StatementArguments = [], _ body: (Row) throws -> Void
  ) throws {
    var after = Int64.min
    while true {
      var chunkArguments: StatementArguments = [after]
      chunkArguments += arguments
      chunkArguments += [replayChunkRows]
      // Rows read from the statement find their columns through its index of names; copied
      // rows (`fetchAll`) compare every name in lower case, which was most of a start's time.
      let rows = try Row.fetchCursor(
        db.cachedStatement(
          sql: "\(sql) WHERE \(key) > ? AND (\(condition)) ORDER BY \(key) LIMIT ?"),
        arguments: chunkArguments)
      var count = 0
      var last = after
      while let row = try rows.next() {
        try body(row)
        count += 1
        last = row["row_id"]
      }
      guard count == replayChunkRows else { return }
      after = last
    }
  }

  public func replayPlayers(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    try await writer.read { db in
      try Self.replayChunks(db, sql: "SELECT *, id AS row_id FROM player", key: "id") { row in
        apply(.player(Self.player(from: row)))
      }
    }
  }

  public func replaySessions(
    nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    try await writer.read { db in
      try Self.replayChunks(
        db, sql: "SELECT rowid AS row_id, * FROM session", key: "rowid",
        where: "expires_at_ms > ?", arguments: [nowUnixMs]
      ) { row in
        apply(.session(rowID: row["row_id"], Self.session(from: row)))
      }
    }
  }

  /// A session row as a record.
  static func session(from row: Row) -> SessionRecord {
    SessionRecord(
      tokenHash: [UInt8](row["token_hash"] as Data), playerID: row["player_id"],
      createdAtUnixMs: row["created_at_ms"], expiresAtUnixMs: row["expires_at_ms"])
  }
}
