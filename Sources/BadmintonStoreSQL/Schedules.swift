public import BadmintonDomain
public import BadmintonStore

/// The weekly schedules, on either engine: one row per player and day, replaced in place.
extension ScheduleStore where Self: StoreEngine {
  public func setDayStatus(_ record: DayStatusRecord) async throws {
    try await writeTransaction { db in
      _ = try db.rows(
        UpsertDayStatus.self, record.playerID, record.date.description, record.status,
        record.note, record.updatedAtUnixMs)
    }
  }

  public func dayStatuses(playerIDs: [Int64], from first: LocalDate, through last: LocalDate)
    async throws -> [Int64: [DayStatusRecord]]
  {
    guard !playerIDs.isEmpty else { return [:] }
    return try await readSnapshot { db in
      var result: [Int64: [DayStatusRecord]] = [:]
      for row in try db.rows(DayStatuses.self, playerIDs, first.description, last.description) {
        let (playerID, text, status, note, updated) = try row.decode(
          (Int64, String, Int, String, Int64).self)
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { continue }
        let record = DayStatusRecord(
          playerID: playerID, date: LocalDate(year: parts[0], month: parts[1], day: parts[2]),
          status: status, note: note, updatedAtUnixMs: updated)
        result[record.playerID, default: []].append(record)
      }
      return result
    }
  }
}

// MARK: Statements

private enum UpsertDayStatus: StoreStatement {
  static let sql = """
    INSERT INTO day_status (player_id, date, status, note, updated_at_ms)
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (player_id, date) DO UPDATE SET
      status = excluded.status, note = excluded.note, updated_at_ms = excluded.updated_at_ms
    """
}
/// Dates compare byte by byte on both engines: SQLite's text does by default, PostgreSQL's with
/// the "C" collation, whatever the database's.
private enum DayStatuses: StoreStatement {
  static let sql = """
    SELECT player_id, date, status, note, updated_at_ms FROM day_status
    WHERE player_id = ANY($1) AND date COLLATE "C" BETWEEN $2 AND $3
    ORDER BY player_id, date COLLATE "C"
    """
  static let sqlite = """
    SELECT player_id, date, status, note, updated_at_ms FROM day_status
    WHERE player_id IN (SELECT value FROM json_each(?1)) AND date BETWEEN ?2 AND ?3
    ORDER BY player_id, date
    """
}
