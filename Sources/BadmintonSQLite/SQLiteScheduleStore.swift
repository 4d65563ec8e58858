public import BadmintonDomain
public import BadmintonStore
import GRDB

extension SQLitePlayerStore: ScheduleStore {
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

  public func setDayStatus(_ record: DayStatusRecord) async throws {
    try await grouped.write { db in
      try db.execute(
        sql: """
          INSERT INTO day_status (player_id, date, status, note, updated_at_ms)
          VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (player_id, date) DO UPDATE SET
            status = excluded.status, note = excluded.note, updated_at_ms = excluded.updated_at_ms
          """,
        arguments: [
          record.playerID, record.date.description, record.status, record.note,
          record.updatedAtUnixMs,
        ])
    }
  }

  public func dayStatuses(playerIDs: [Int64], from first: LocalDate, through last: LocalDate)
    async throws -> [Int64: [DayStatusRecord]]
  {
    guard !playerIDs.isEmpty else { return [:] }
    return try await writer.read { db in
      var result: [Int64: [DayStatusRecord]] = [:]
      let placeholders = databaseQuestionMarks(count: playerIDs.count)
      let rows = try Row.fetchCursor(
        db,
        sql: """
          SELECT * FROM day_status WHERE player_id IN (\(placeholders)) AND date BETWEEN ? AND ?
          ORDER BY player_id, date
          """,
        arguments: StatementArguments(
          playerIDs + [first.description, last.description] as [any DatabaseValueConvertible]))
      while let row = try rows.next() {
        let text: String = row["date"]
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { continue }
        let record = DayStatusRecord(
          playerID: row["player_id"],
          date: LocalDate(year: parts[0], month: parts[1], day: parts[2]),
          status: row["status"], note: row["note"], updatedAtUnixMs: row["updated_at_ms"])
        result[record.playerID, default: []].append(record)
      }
      return result
    }
  }
}
