public import BadmintonDomain
public import BadmintonStore
import PostgresNIO

/// The weekly schedules on PostgreSQL: one row per player and day, replaced in place.
extension PostgresStore: ScheduleStore {
  public func setDayStatus(_ record: DayStatusRecord) async throws {
    try await write { db in
      _ = try await db.rows(
        UpsertDayStatus.self, record.playerID, record.date.description, Int64(record.status),
        record.note, record.updatedAtUnixMs)
    }
  }

  public func dayStatuses(playerIDs: [Int64], from first: LocalDate, through last: LocalDate)
    async throws -> [Int64: [DayStatusRecord]]
  {
    guard !playerIDs.isEmpty else { return [:] }
    return try await read { db in
      var result: [Int64: [DayStatusRecord]] = [:]
      for row in try await db.rows(
        DayStatuses.self, playerIDs, first.description, last.description)
      {
        let (playerID, text, status, note, updated) = try row.decode(
          (Int64, String, Int64, String, Int64).self)
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { continue }
        let record = DayStatusRecord(
          playerID: playerID, date: LocalDate(year: parts[0], month: parts[1], day: parts[2]),
          status: Int(status), note: note, updatedAtUnixMs: updated)
        result[record.playerID, default: []].append(record)
      }
      return result
    }
  }

  enum UpsertDayStatus: SQLStatement {
    static let sql = """
      INSERT INTO day_status (player_id, date, status, note, updated_at_ms)
      VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (player_id, date) DO UPDATE SET
        status = excluded.status, note = excluded.note, updated_at_ms = excluded.updated_at_ms
      """
  }

  /// Dates compare as the embedded store compares them: byte by byte ("C"), whatever the
  /// database's collation.
  enum DayStatuses: SQLStatement {
    static let sql = """
      SELECT player_id, date, status, note, updated_at_ms FROM day_status
      WHERE player_id = ANY($1) AND date COLLATE "C" BETWEEN $2 AND $3
      ORDER BY player_id, date COLLATE "C"
      """
  }
}
