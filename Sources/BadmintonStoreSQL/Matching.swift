public import BadmintonDomain
public import BadmintonStore

/// Availability and match rows, read by several areas and by the engines' change feeds.
public enum MatchRows {
  /// The columns `availability(from:)` reads, in its order.
  static let availabilityColumns = """
    id, player_id, mode, local_date, start_minute, end_minute, time_zone, start_ms, end_ms,
    latitude, longitude, radius_miles, skill_tolerance, posted_at_ms, source, state
    """

  /// The availabilities with `ids` that exist, by id (the change tail reads changed ones with it).
  public static func availabilities(_ db: any StoreSession, ids: [Int64]) throws
    -> [Int64: AvailabilityRecord]
  {
    var found: [Int64: AvailabilityRecord] = [:]
    for row in try db.rows(AvailabilitiesByID.self, ids) {
      let record = try availability(from: row)
      found[record.id] = record
    }
    return found
  }

  /// The matches with `ids` that exist, with their participants, by id (the change tail reads
  /// changed ones with it).
  public static func matches(_ db: any StoreSession, ids: [Int64]) throws -> [Int64: MatchRecord] {
    var participants: [Int64: [MatchParticipantRecord]] = [:]
    for row in try db.rows(ParticipantsOfGames.self, ids) {
      let (game, player, availability, team) = try row.decode((Int64, Int64, Int64, Int).self)
      participants[game, default: []].append(
        MatchParticipantRecord(playerID: player, availabilityID: availability, team: team))
    }
    var found: [Int64: MatchRecord] = [:]
    for row in try db.rows(GamesByID.self, ids) {
      let (
        id, mode, start, end, state, proposal, confirmedAt, cancelledBy, cancelledAt, team,
        completedAt, completedBy
      ) = try row.decode(
        (Int64, Int, Int64, Int64, Int, Int64, Int64, Int64?, Int64?, Int?, Int64?, Int64?).self)
      var result: MatchResult?
      if let team, let completedAt, let completedBy {
        result = MatchResult(
          winningTeam: team, completedAtUnixMs: completedAt, completedBy: completedBy)
      }
      found[id] = MatchRecord(
        id: id, mode: MatchMode(rawValue: mode) ?? .singles,
        slot: TimeSlot(startUnixMs: start, endUnixMs: end),
        participants: participants[id] ?? [],
        state: StoredMatchState(rawValue: state) ?? .cancelled, proposalID: proposal,
        confirmedAtUnixMs: confirmedAt, cancelledBy: cancelledBy, cancelledAtUnixMs: cancelledAt,
        result: result)
    }
    return found
  }

  /// The match with `id`, with its participants.
  public static func fetchMatch(_ db: any StoreSession, id: Int64) throws -> MatchRecord? {
    try matches(db, ids: [id])[id]
  }

  /// The matches with `ids` that exist, in the order of `ids`.
  public static func fetchMatches(_ db: any StoreSession, ids: [Int64]) throws -> [MatchRecord] {
    guard !ids.isEmpty else { return [] }
    let found = try matches(db, ids: ids)
    return ids.compactMap { found[$0] }
  }

  /// Rows read at once by the replays and the full listings, so that a million rows are never
  /// held at once; every page comes from the same snapshot.
  public static let replayPage: Int64 = 1000

  /// Calls `body` with the rows `Page` returns, page by page in id order: `Page` takes the rows
  /// with an `id` after `$1`, at most `$2` of them, then `values` as `$3`, `$4`, ….
  public static func forEachPage<Page: StoreStatement>(
    _ db: any StoreSession, _ page: Page.Type, _ values: any StoreEncodable...,
    body: ([StoreRow]) throws -> Void
  ) throws {
    var after = Int64.min
    while true {
      let bindings = [.integer(after), .integer(replayPage)] + values.map(\.storeValue)
      let rows = try db.rows(page, values: bindings)
      guard let last = rows.last else { return }
      try body(rows)
      // The page's first column is its id.
      after = try last.column(0, as: Int64.self)
      if rows.count < replayPage { return }
    }
  }

  /// Inserts `new`; nil when it is a recurring day already stored.
  static func insert(_ db: any StoreSession, _ new: NewAvailability) throws
    -> AvailabilityRecord?
  {
    guard
      let row = try db.row(
        InsertAvailability.self, new.playerID, Int64(new.mode.rawValue), new.date.description,
        Int64(new.startMinute), Int64(new.endMinute), new.timeZone, new.slot.startUnixMs,
        new.slot.endUnixMs, new.location.latitude, new.location.longitude, new.radiusMiles,
        Int64(new.skillTolerance), new.postedAtUnixMs, Int64(new.source.rawValue),
        new.recurringKey, Int64(AvailabilityState.active.rawValue))
    else { return nil }
    return AvailabilityRecord(id: try row.decode(Int64.self), details: new, state: .active)
  }

  /// The date a `YYYY-MM-DD` column holds.
  static func date(_ text: String) -> LocalDate {
    let parts = text.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3 else { return LocalDate(year: 1970, month: 1, day: 1) }
    return LocalDate(year: parts[0], month: parts[1], day: parts[2])
  }

  /// The availability a row of `availabilityColumns` holds.
  /// The matches of `playerID` that end after `unixMs`, with where each stands: what
  /// `BookingRules.isBooked` needs to tell whether the player is booked at a time from then on.
  public static func bookedMatches(
    _ db: any StoreSession, playerID: Int64, endingAfter unixMs: Int64
  )
    throws -> [BookedMatch]
  {
    try db.rows(BookedMatchesOfPlayer.self, playerID, unixMs).map { row in
      let (start, end, state) = try row.decode((Int64, Int64, Int).self)
      return BookedMatch(
        slot: TimeSlot(startUnixMs: start, endUnixMs: end),
        status: (StoredMatchState(rawValue: state) ?? .cancelled).status)
    }
  }

  public static func availability(from row: StoreRow) throws -> AvailabilityRecord {
    let cells = try row.decode(
      (
        Int64, Int64, Int, String, Int, Int, String, Int64, Int64, Double, Double, Double, Int,
        Int64, Int, Int
      ).self)
    return AvailabilityRecord(
      id: cells.0,
      details: NewAvailability(
        playerID: cells.1, mode: MatchMode(rawValue: cells.2) ?? .singles, date: date(cells.3),
        startMinute: cells.4, endMinute: cells.5, timeZone: cells.6,
        slot: TimeSlot(startUnixMs: cells.7, endUnixMs: cells.8),
        location: Coordinate(latitude: cells.9, longitude: cells.10),
        radiusMiles: cells.11, skillTolerance: cells.12, postedAtUnixMs: cells.13,
        source: AvailabilitySource(rawValue: cells.14) ?? .posted),
      state: AvailabilityState(rawValue: cells.15) ?? .cancelled)
  }

  /// A row of `recurringSlotColumns`: the player and the slot.
  static func slot(from row: StoreRow) throws -> (playerID: Int64, slot: RecurringSlot) {
    let (playerID, weekday, start, end, mode, active) = try row.decode(
      (Int64, Int, Int, Int, Int, Int64).self)
    return (
      playerID,
      RecurringSlot(
        weekday: weekday, startMinute: start, endMinute: end,
        mode: MatchMode(rawValue: mode) ?? .singles, isActive: active != 0)
    )
  }

  static func recurringSettings(from row: StoreRow, slots: [RecurringSlot]) throws
    -> RecurringSettings
  {
    let (playerID, timeZone, latitude, longitude, radius, tolerance) = try row.decode(
      (Int64, String, Double, Double, Double, Int).self)
    return RecurringSettings(
      playerID: playerID, slots: slots, timeZone: timeZone,
      location: Coordinate(latitude: latitude, longitude: longitude), radiusMiles: radius,
      skillTolerance: tolerance)
  }
}

extension MatchingStore where Self: StoreEngine {
  public func createAvailability(
    _ new: NewAvailability, activeLimit: Int, now: Int64,
    notify: @escaping @Sendable (AvailabilityRecord) -> OutgoingEvents
  ) async throws -> AvailabilityRecord {
    // The count and the insert are one serializable transaction: two posts racing past the
    // limit on two instances cannot both commit.
    try await writeTransaction { db in
      let active: Int64 =
        try db.row(
          CountActivePosted.self, new.playerID, Int64(AvailabilitySource.posted.rawValue),
          Int64(AvailabilityState.active.rawValue), now
        )?.decode(Int64.self) ?? 0
      try MatchingErrors.checkActivePosts(Int(active), limit: activeLimit)
      guard let record = try MatchRows.insert(db, new) else {
        throw MatchingErrors.availabilityNotFound
      }
      try Shared.append(db, notify(record), atUnixMs: now)
      return record
    }
  }

  public func availability(id: Int64) async throws -> AvailabilityRecord? {
    try await readEach { db in try MatchRows.availabilities(db, ids: [id])[id] }
  }

  public func activeAvailability(playerID: Int64, now: Int64) async throws
    -> [AvailabilityRecord]
  {
    try await readEach { db in
      try db.rows(
        ActiveAvailabilityOfPlayer.self, playerID, Int64(AvailabilityState.active.rawValue), now
      ).map(MatchRows.availability(from:))
    }
  }

  public func allActiveAvailability(now: Int64) async throws -> [AvailabilityRecord] {
    try await readSnapshot { db in
      var all: [AvailabilityRecord] = []
      try MatchRows.forEachPage(
        db, ActiveAvailabilityPage.self, Int64(AvailabilityState.active.rawValue), now
      ) { rows in
        all += try rows.map(MatchRows.availability(from:))
      }
      return all
    }
  }

  public func cancelAvailability(id: Int64, playerID: Int64) async throws -> AvailabilityRecord {
    try await writeTransaction { db in
      guard
        let row = try db.row(
          CancelAvailability.self, Int64(AvailabilityState.cancelled.rawValue), id, playerID,
          Int64(AvailabilityState.active.rawValue))
      else { throw MatchingErrors.availabilityNotFound }
      return try MatchRows.availability(from: row)
    }
  }

  public func saveRecurring(
    _ settings: RecurringSettings, occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> RecurringChange {
    try await writeTransaction { db in
      guard try db.row(PlayerExists.self, settings.playerID) != nil else {
        throw DomainError.playerNotFound
      }
      try db.rows(DeleteRecurringSettings.self, settings.playerID)
      try db.rows(
        InsertRecurringSettings.self, settings.playerID, settings.timeZone,
        settings.location.latitude, settings.location.longitude, settings.radiusMiles,
        Int64(settings.skillTolerance))
      for (position, slot) in settings.slots.enumerated() {
        try db.rows(
          InsertRecurringSlot.self, settings.playerID, Int64(position), Int64(slot.weekday),
          Int64(slot.startMinute), Int64(slot.endMinute), Int64(slot.mode.rawValue),
          Int64(slot.isActive ? 1 : 0))
      }
      let removed = try db.rows(
        RecurringDaysInState.self, settings.playerID, Int64(AvailabilitySource.recurring.rawValue),
        Int64(AvailabilityState.active.rawValue)
      ).map { try $0.decode(Int64.self) }
      // Cancelled days go too, so saving again makes them matchable again; days used by a match
      // stay, and keep their day from being added again.
      try db.rows(
        DeleteRecurringDaysNotInState.self, settings.playerID,
        Int64(AvailabilitySource.recurring.rawValue), Int64(AvailabilityState.matched.rawValue))
      var added: [AvailabilityRecord] = []
      for occurrence in occurrences {
        if let record = try MatchRows.insert(db, occurrence) { added.append(record) }
      }
      try Shared.append(db, notify(added), atUnixMs: occurrences.first?.postedAtUnixMs ?? 0)
      return RecurringChange(removed: removed, added: added)
    }
  }

  public func recurringSettings(playerID: Int64) async throws -> RecurringSettings? {
    try await readSnapshot { db in
      guard let row = try db.row(RecurringSettingsOfPlayer.self, playerID) else {
        return nil
      }
      let slots = try db.rows(RecurringSlotsOfPlayer.self, playerID).map(MatchRows.slot(from:))
      return try MatchRows.recurringSettings(from: row, slots: slots.map(\.slot))
    }
  }

  public func allRecurringSettings() async throws -> [RecurringSettings] {
    try await readSnapshot { db in
      var slots: [Int64: [RecurringSlot]] = [:]
      for row in try db.rows(AllRecurringSlots.self) {
        let (playerID, slot) = try MatchRows.slot(from: row)
        slots[playerID, default: []].append(slot)
      }
      return try db.rows(AllRecurringSettings.self).map { row in
        let playerID = try row.column(0, as: Int64.self)
        return try MatchRows.recurringSettings(from: row, slots: slots[playerID] ?? [])
      }
    }
  }

  public func addRecurringOccurrences(
    _ occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> [AvailabilityRecord] {
    try await writeTransaction { db in
      var added: [AvailabilityRecord] = []
      for occurrence in occurrences {
        if let record = try MatchRows.insert(db, occurrence) { added.append(record) }
      }
      try Shared.append(db, notify(added), atUnixMs: occurrences.first?.postedAtUnixMs ?? 0)
      return added
    }
  }

  public func deleteAvailability(endedBefore unixMs: Int64) async throws -> Int {
    try await writeTransaction { db in
      let rows = try db.rows(DeleteAvailabilityEndedBefore.self, unixMs)
      // PostgreSQL counts in the statement; SQLite returns a row per deleted one.
      guard db.kind == .postgres else { return rows.count }
      return try rows.first?.column(0, as: Int.self) ?? 0
    }
  }

  // MARK: Replay

  // Each replay reads page by page in one snapshot, so that a million rows are never held at
  // once and they all come from one moment of the database.

  public func replayActiveAvailability(
    nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    try await readSnapshot { db in
      try MatchRows.forEachPage(
        db, ActiveAvailabilityPage.self, Int64(AvailabilityState.active.rawValue), nowUnixMs
      ) { rows in
        for row in rows {
          let record = try MatchRows.availability(from: row)
          apply(.availability(id: record.id, record))
        }
      }
    }
  }

  public func replayConfirmedMatches(
    endingAfter unixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    try await readSnapshot { db in
      try MatchRows.forEachPage(
        db, UncancelledGamePage.self, Int64(StoredMatchState.cancelled.rawValue), unixMs
      ) { rows in
        let ids = try rows.map { try $0.decode(Int64.self) }
        for match in try MatchRows.fetchMatches(db, ids: ids) {
          apply(.match(id: match.id, match))
        }
      }
    }
  }

  public func replayPlayerLevels(
    _ apply: @escaping @Sendable (_ playerID: Int64, _ level: Int) -> Void
  ) async throws {
    try await readSnapshot { db in
      try MatchRows.forEachPage(db, PlayerLevelPage.self) { rows in
        for row in rows {
          let (id, selfLevel, peerRatingSum, peerRatingCount) = try row.decode(
            (Int64, Int, Int, Int).self)
          apply(
            id,
            SkillRating.displayLevel(
              selfLevel: selfLevel, peerRatingSum: peerRatingSum,
              peerRatingCount: peerRatingCount
            ).level)
        }
      }
    }
  }
}

// MARK: Statements

private enum AvailabilitiesByID: StoreStatement {
  static let sql = "SELECT \(MatchRows.availabilityColumns) FROM availability WHERE id = ANY($1)"
}
private enum CountActivePosted: StoreStatement {
  static let sql = """
    SELECT count(*) FROM availability
    WHERE player_id = $1 AND source = $2 AND state = $3 AND end_ms > $4
    """
}
private enum InsertAvailability: StoreStatement {
  static let sql = """
    INSERT INTO availability (player_id, mode, local_date, start_minute, end_minute,
      time_zone, start_ms, end_ms, latitude, longitude, radius_miles, skill_tolerance,
      posted_at_ms, source, recurring_key, state)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
    ON CONFLICT DO NOTHING RETURNING id
    """
}
private enum ActiveAvailabilityOfPlayer: StoreStatement {
  static let sql = """
    SELECT \(MatchRows.availabilityColumns) FROM availability
    WHERE player_id = $1 AND state = $2 AND end_ms > $3 ORDER BY start_ms, id
    """
}
/// A page of the active availability, by id. The unary plus keeps the planner off the
/// `(state, end_ms)` index, which would visit every active row and sort them for each page:
/// the pages walk the primary key instead.
private enum ActiveAvailabilityPage: StoreStatement {
  static let sql = """
    SELECT \(MatchRows.availabilityColumns) FROM availability
    WHERE id > $1 AND +state = $3 AND +end_ms > $4 ORDER BY id LIMIT $2
    """
}
private enum CancelAvailability: StoreStatement {
  static let sql = """
    UPDATE availability SET state = $1 WHERE id = $2 AND player_id = $3 AND state = $4
    RETURNING \(MatchRows.availabilityColumns)
    """
}
private enum PlayerExists: StoreStatement {
  static let sql = "SELECT 1 FROM player WHERE id = $1"
}
private enum DeleteRecurringSettings: StoreStatement {
  static let sql = "DELETE FROM recurring_settings WHERE player_id = $1"
}
private enum InsertRecurringSettings: StoreStatement {
  static let sql = """
    INSERT INTO recurring_settings (player_id, time_zone, latitude, longitude, radius_miles,
      skill_tolerance) VALUES ($1, $2, $3, $4, $5, $6)
    """
}
private enum InsertRecurringSlot: StoreStatement {
  static let sql = """
    INSERT INTO recurring_slot (player_id, position, weekday, start_minute, end_minute, mode,
      active) VALUES ($1, $2, $3, $4, $5, $6, $7)
    """
}
private enum RecurringDaysInState: StoreStatement {
  static let sql = """
    SELECT id FROM availability WHERE player_id = $1 AND source = $2 AND state = $3
    ORDER BY id
    """
}
private enum DeleteRecurringDaysNotInState: StoreStatement {
  static let sql = """
    DELETE FROM availability WHERE player_id = $1 AND source = $2 AND state <> $3
    """
}
private enum RecurringSettingsOfPlayer: StoreStatement {
  static let sql = """
    SELECT player_id, time_zone, latitude, longitude, radius_miles, skill_tolerance
    FROM recurring_settings WHERE player_id = $1
    """
}
private enum AllRecurringSettings: StoreStatement {
  static let sql = """
    SELECT player_id, time_zone, latitude, longitude, radius_miles, skill_tolerance
    FROM recurring_settings ORDER BY player_id
    """
}
private enum RecurringSlotsOfPlayer: StoreStatement {
  static let sql = """
    SELECT player_id, weekday, start_minute, end_minute, mode, active FROM recurring_slot
    WHERE player_id = $1 ORDER BY position
    """
}
private enum AllRecurringSlots: StoreStatement {
  static let sql = """
    SELECT player_id, weekday, start_minute, end_minute, mode, active FROM recurring_slot
    ORDER BY player_id, position
    """
}
private enum DeleteAvailabilityEndedBefore: StoreStatement {
  static let sql = """
    WITH gone AS (DELETE FROM availability WHERE end_ms < $1 RETURNING 1)
    SELECT count(*) FROM gone
    """
  /// SQLite has no statement that changes rows inside a WITH: the deleted rows are counted.
  static let sqlite = """
    DELETE FROM availability WHERE end_ms < ?1 RETURNING 1
    """
}
private enum UncancelledGamePage: StoreStatement {
  static let sql = """
    SELECT id FROM game WHERE id > $1 AND +state <> $3 AND +end_ms > $4 ORDER BY id LIMIT $2
    """
}
private enum PlayerLevelPage: StoreStatement {
  static let sql = """
    SELECT id, self_level, peer_rating_sum, peer_rating_count FROM player WHERE id > $1
    ORDER BY id LIMIT $2
    """
}
private enum GamesByID: StoreStatement {
  static let sql = """
    SELECT id, mode, start_ms, end_ms, state, proposal_id, confirmed_at_ms, cancelled_by,
      cancelled_at_ms, winning_team, completed_at_ms, completed_by
    FROM game WHERE id = ANY($1)
    """
}
private enum ParticipantsOfGames: StoreStatement {
  static let sql = """
    SELECT game_id, player_id, availability_id, team FROM game_participant
    WHERE game_id = ANY($1) ORDER BY game_id, position
    """
}
private enum BookedMatchesOfPlayer: StoreStatement {
  static let sql = """
    SELECT game.start_ms, game.end_ms, game.state
    FROM game_participant JOIN game ON game.id = game_participant.game_id
    WHERE game_participant.player_id = $1 AND game.end_ms > $2
    """
}
