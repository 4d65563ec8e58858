public import BadmintonStore
import BadmintonStoreSQL
import GRDB

/// Idempotency keys run the operations written once in `BadmintonStoreSQL` (WriteKeys.swift).
extension SQLitePlayerStore: WriteKeyStore {}

extension SQLitePlayerStore {
  /// The keys of players' writes with their answers, and how many each player holds. Not
  /// watched by the change feed: nothing in memory mirrors them.
  static func registerWriteKeyMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v14: idempotency keys") { db in
      try db.execute(
        sql: """
          CREATE TABLE write_key (
            player_id INTEGER NOT NULL,
            key TEXT NOT NULL,
            digest BLOB NOT NULL,
            created_at_ms INTEGER NOT NULL,
            response BLOB,
            error TEXT,
            PRIMARY KEY (player_id, key)
          ) WITHOUT ROWID;
          CREATE INDEX write_key_created ON write_key(created_at_ms);
          CREATE TABLE write_key_count (
            player_id INTEGER PRIMARY KEY,
            held INTEGER NOT NULL
          );
          """)
    }
  }
}
