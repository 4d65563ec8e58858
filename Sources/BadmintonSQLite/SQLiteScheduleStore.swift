public import BadmintonStore
public import BadmintonStoreSQL
import GRDB

/// Weekly schedules run the operations written once in `BadmintonStoreSQL` (Schedules.swift).
extension SQLitePlayerStore: ScheduleStore {}

extension SQLitePlayerStore {
  /// The table of weekly schedules.
  static func registerScheduleMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v8: weekly schedules") { db in
      try db.execute(
        sql: """
          CREATE TABLE day_status (
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            date TEXT NOT NULL,
            status INTEGER NOT NULL,
            note TEXT NOT NULL,
            updated_at_ms INTEGER NOT NULL,
            PRIMARY KEY (player_id, date)
          ) WITHOUT ROWID;
          """)
    }
  }
}
