import BadmintonDomain
public import BadmintonStore
import BadmintonStoreSQL
import GRDB

extension SQLitePlayerStore: MatchingStore {
  public func createAvailability(
    _ new: NewAvailability, activeLimit: Int, now: Int64,
    notify: @escaping @Sendable (AvailabilityRecord) -> OutgoingEvents
  ) async throws -> AvailabilityRecord {
    try await grouped.write { db in
      let active = try Int.fetchOne(
        try db.cachedStatement(
          sql: """
            SELECT count(*) FROM availability
            WHERE player_id = ? AND source = ? AND state = ? AND end_ms > ?
            """),
        arguments: [
          new.playerID, AvailabilitySource.posted.rawValue, AvailabilityState.active.rawValue, now,
        ])!
      guard active < activeLimit else { throw Self.availabilityLimit(activeLimit) }
      let record = try Self.insert(db, new)!
      try Self.append(db, notify(record), atUnixMs: now)
      return record
    }
  }

  public func availability(id: Int64) async throws -> AvailabilityRecord? {
    try await writer.read { db in
      try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM availability WHERE id = ?"), arguments: [id]
      )
      .map(Self.availability(from:))
    }
  }

  public func activeAvailability(playerID: Int64, now: Int64) async throws
    -> [AvailabilityRecord]
  {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(
          sql: """
            SELECT * FROM availability WHERE player_id = ? AND state = ? AND end_ms > ?
            ORDER BY start_ms, id
            """),
        arguments: [playerID, AvailabilityState.active.rawValue, now]
      ).map(Self.availability(from:))
    }
  }

  public func allActiveAvailability(now: Int64) async throws -> [AvailabilityRecord] {
    // Row by row through a cursor, so that loading a million availability never holds a
    // million database rows at once.
    try await writer.read { db in
      try Array(
        Row.fetchCursor(
          try db.cachedStatement(
            sql: "SELECT * FROM availability WHERE state = ? AND end_ms > ? ORDER BY id"),
          arguments: [AvailabilityState.active.rawValue, now]
        ).map(Self.availability(from:)))
    }
  }

  public func cancelAvailability(id: Int64, playerID: Int64) async throws -> AvailabilityRecord {
    try await grouped.write { db in
      try db.execute(
        sql: "UPDATE availability SET state = ? WHERE id = ? AND player_id = ? AND state = ?",
        arguments: [
          AvailabilityState.cancelled.rawValue, id, playerID, AvailabilityState.active.rawValue,
        ])
      guard db.changesCount == 1,
        let row = try Row.fetchOne(
          try db.cachedStatement(sql: "SELECT * FROM availability WHERE id = ?"), arguments: [id])
      else { throw MatchingErrors.availabilityNotFound }
      return Self.availability(from: row)
    }
  }

  public func saveRecurring(
    _ settings: RecurringSettings, occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> RecurringChange {
    try await grouped.write { db in
      guard
        try Row.fetchOne(
          try db.cachedStatement(sql: "SELECT 1 FROM player WHERE id = ?"),
          arguments: [settings.playerID]) != nil
      else { throw DomainError.playerNotFound }
      try db.execute(
        sql: "DELETE FROM recurring_settings WHERE player_id = ?", arguments: [settings.playerID])
      try db.execute(
        sql: """
          INSERT INTO recurring_settings (player_id, time_zone, latitude, longitude, radius_miles,
            skill_tolerance) VALUES (?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          settings.playerID, settings.timeZone, settings.location.latitude,
          settings.location.longitude, settings.radiusMiles, settings.skillTolerance,
        ])
      for (position, slot) in settings.slots.enumerated() {
        try db.execute(
          sql: """
            INSERT INTO recurring_slot (player_id, position, weekday, start_minute, end_minute,
              mode, active) VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
          arguments: [
            settings.playerID, position, slot.weekday, slot.startMinute, slot.endMinute,
            Self.code(slot.mode), slot.isActive,
          ])
      }
      let removed = try Int64.fetchAll(
        try db.cachedStatement(
          sql: "SELECT id FROM availability WHERE player_id = ? AND source = ? AND state = ?"),
        arguments: [
          settings.playerID, AvailabilitySource.recurring.rawValue,
          AvailabilityState.active.rawValue,
        ])
      // Cancelled days go too, so saving again makes them matchable again; days used by a match
      // stay, and keep their day from being added again.
      try db.execute(
        sql: "DELETE FROM availability WHERE player_id = ? AND source = ? AND state != ?",
        arguments: [
          settings.playerID, AvailabilitySource.recurring.rawValue,
          AvailabilityState.matched.rawValue,
        ])
      var added: [AvailabilityRecord] = []
      for occurrence in occurrences {
        if let record = try Self.insert(db, occurrence) { added.append(record) }
      }
      try Self.append(db, notify(added), atUnixMs: occurrences.first?.postedAtUnixMs ?? 0)
      return RecurringChange(removed: removed, added: added)
    }
  }

  public func recurringSettings(playerID: Int64) async throws -> RecurringSettings? {
    try await writer.read { db in
      try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM recurring_settings WHERE player_id = ?"),
        arguments: [playerID]
      ).map { try Self.recurringSettings(db, from: $0) }
    }
  }

  public func allRecurringSettings() async throws -> [RecurringSettings] {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(sql: "SELECT * FROM recurring_settings ORDER BY player_id")
      )
      .map { try Self.recurringSettings(db, from: $0) }
    }
  }

  public func addRecurringOccurrences(
    _ occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> [AvailabilityRecord] {
    try await grouped.write { db in
      let added = try occurrences.compactMap { try Self.insert(db, $0) }
      try Self.append(db, notify(added), atUnixMs: occurrences.first?.postedAtUnixMs ?? 0)
      return added
    }
  }

  public func deleteAvailability(endedBefore unixMs: Int64) async throws -> Int {
    try await grouped.write { db in
      try db.execute(sql: "DELETE FROM availability WHERE end_ms < ?", arguments: [unixMs])
      return db.changesCount
    }
  }

  // MARK: Replay

  // Each replay reads row by row through a cursor, in one read, so that a million rows are
  // never held at once and they all come from one moment of the database.

  public func replayActiveAvailability(
    nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    try await writer.read { db in
      let rows = try Row.fetchCursor(
        try db.cachedStatement(
          sql: "SELECT * FROM availability WHERE state = ? AND end_ms > ? ORDER BY id"),
        arguments: [AvailabilityState.active.rawValue, nowUnixMs])
      while let row = try rows.next() {
        let record = Self.availability(from: row)
        apply(.availability(id: record.id, record))
      }
    }
  }

  public func replayConfirmedMatches(
    endingAfter unixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    try await writer.read { db in
      let ids = try Int64.fetchCursor(
        try db.cachedStatement(
          sql: "SELECT id FROM game WHERE state != ? AND end_ms > ? ORDER BY id"),
        arguments: [StoredMatchState.cancelled.rawValue, unixMs])
      while let id = try ids.next() {
        if let match = try Self.fetchMatch(db, id: id) { apply(.match(id: id, match)) }
      }
    }
  }

  public func replayPlayerLevels(_ apply: @escaping @Sendable (StoreChange) -> Void)
    async throws
  {
    try await writer.read { db in
      let rows = try Row.fetchCursor(
        try db.cachedStatement(sql: "SELECT \(Shared.playerColumns) FROM player ORDER BY id"))
      while let row = try rows.next() {
        let values = Array(row.databaseValues.map(SQLiteSession.storeValue))
        apply(.player(try Shared.player(from: StoreRow(values))))
      }
    }
  }

  // MARK: Rows

  static func availabilityLimit(_ limit: Int) -> DomainError {
    DomainError(
      .failedPrecondition, "AVAILABILITY_LIMIT",
      en: "You already have \(limit) active availability posts; cancel one first.",
      zhCN: "您已有 \(limit) 个有效的可约时间，请先取消一个。")
  }

  /// Inserts `new`; nil when it is a recurring day already stored.
  private static func insert(_ db: Database, _ new: NewAvailability) throws -> AvailabilityRecord? {
    try db.execute(
      sql: """
        INSERT OR IGNORE INTO availability (player_id, mode, local_date, start_minute, end_minute,
          time_zone, start_ms, end_ms, latitude, longitude, radius_miles, skill_tolerance,
          posted_at_ms, source, recurring_key, state)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
      arguments: [
        new.playerID, code(new.mode), new.date.description, new.startMinute, new.endMinute,
        new.timeZone, new.slot.startUnixMs, new.slot.endUnixMs, new.location.latitude,
        new.location.longitude, new.radiusMiles, new.skillTolerance, new.postedAtUnixMs,
        new.source.rawValue, new.recurringKey, AvailabilityState.active.rawValue,
      ])
    guard db.changesCount == 1 else { return nil }
    return AvailabilityRecord(id: db.lastInsertedRowID, details: new, state: .active)
  }

  private static func code(_ mode: MatchMode) -> Int { mode.rawValue }

  private static func mode(_ code: Int) -> MatchMode { MatchMode(rawValue: code) ?? .singles }

  /// The date a `YYYY-MM-DD` column holds.
  private static func date(_ text: String) -> LocalDate {
    let parts = text.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3 else { return LocalDate(year: 1970, month: 1, day: 1) }
    return LocalDate(year: parts[0], month: parts[1], day: parts[2])
  }

  static func availability(from row: Row) -> AvailabilityRecord {
    AvailabilityRecord(
      id: row["id"],
      details: NewAvailability(
        playerID: row["player_id"], mode: mode(row["mode"]),
        date: date(row["local_date"]),
        startMinute: row["start_minute"], endMinute: row["end_minute"],
        timeZone: row["time_zone"],
        slot: TimeSlot(startUnixMs: row["start_ms"], endUnixMs: row["end_ms"]),
        location: Coordinate(latitude: row["latitude"], longitude: row["longitude"]),
        radiusMiles: row["radius_miles"], skillTolerance: row["skill_tolerance"],
        postedAtUnixMs: row["posted_at_ms"],
        source: AvailabilitySource(rawValue: row["source"]) ?? .posted),
      state: AvailabilityState(rawValue: row["state"]) ?? .cancelled)
  }

  private static func recurringSettings(_ db: Database, from row: Row) throws
    -> RecurringSettings
  {
    let playerID: Int64 = row["player_id"]
    let slots = try Row.fetchAll(
      try db.cachedStatement(
        sql: "SELECT * FROM recurring_slot WHERE player_id = ? ORDER BY position"),
      arguments: [playerID]
    ).map { slot in
      RecurringSlot(
        weekday: slot["weekday"], startMinute: slot["start_minute"],
        endMinute: slot["end_minute"], mode: mode(slot["mode"]), isActive: slot["active"])
    }
    return RecurringSettings(
      playerID: playerID, slots: slots, timeZone: row["time_zone"],
      location: Coordinate(latitude: row["latitude"], longitude: row["longitude"]),
      radiusMiles: row["radius_miles"], skillTolerance: row["skill_tolerance"])
  }
}
