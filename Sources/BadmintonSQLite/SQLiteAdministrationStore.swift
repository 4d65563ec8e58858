public import BadmintonStore
import BadmintonStoreSQL
import GRDB

/// Suspensions and the audit log run the operations written once in `BadmintonStoreSQL`
/// (Administration.swift).
extension SQLitePlayerStore: AdministrationStore {}

extension SQLitePlayerStore {
  /// The tables of suspensions and of the audit log. A suspension's row id is its player's id,
  /// which is how the change feed names it. The audit log keeps the id of a player who is gone.
  static func registerAdministrationMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v13: suspensions and the audit log") { db in
      try db.execute(
        sql: """
          CREATE TABLE suspension (
            player_id INTEGER PRIMARY KEY REFERENCES player(id) ON DELETE CASCADE,
            until_ms INTEGER NOT NULL,
            reason TEXT NOT NULL,
            administrator_id INTEGER NOT NULL,
            at_ms INTEGER NOT NULL
          );
          CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at_ms INTEGER NOT NULL,
            administrator_id INTEGER NOT NULL,
            action TEXT NOT NULL,
            player_id INTEGER,
            note TEXT NOT NULL
          );
          CREATE INDEX session_player ON session(player_id);
          """)
    }
  }
}
