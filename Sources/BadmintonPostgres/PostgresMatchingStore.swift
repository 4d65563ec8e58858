import BadmintonDomain
public import BadmintonStore
import PostgresNIO

extension PostgresStore {
  /// The availabilities with `ids` that exist, by id (the change tail reads changed ones with it).
  static func availabilities(_ db: SQLConnection, ids: [Int64]) async throws
    -> [Int64: AvailabilityRecord]
  {
    var found: [Int64: AvailabilityRecord] = [:]
    for row in try await db.rows(AvailabilitiesByID.self, ids) {
      let record = try availability(from: row)
      found[record.id] = record
    }
    return found
  }

  /// The matches with `ids` that exist, with their participants, by id (the change tail reads
  /// changed ones with it).
  static func matches(_ db: SQLConnection, ids: [Int64]) async throws -> [Int64: MatchRecord] {
    var participants: [Int64: [MatchParticipantRecord]] = [:]
    for row in try await db.rows(ParticipantsOfGames.self, ids) {
      let (game, player, availability, team) = try row.decode((Int64, Int64, Int64, Int).self)
      participants[game, default: []].append(
        MatchParticipantRecord(playerID: player, availabilityID: availability, team: team))
    }
    var found: [Int64: MatchRecord] = [:]
    for row in try await db.rows(GamesByID.self, ids) {
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
  static func fetchMatch(_ db: SQLConnection, id: Int64) async throws -> MatchRecord? {
    try await matches(db, ids: [id])[id]
  }

  /// The matches with `ids` that exist, in the order of `ids`.
  static func fetchMatches(_ db: SQLConnection, ids: [Int64]) async throws -> [MatchRecord] {
    guard !ids.isEmpty else { return [] }
    let found = try await matches(db, ids: ids)
    return ids.compactMap { found[$0] }
  }

  /// Rows read at once by the replays and the full listings, so that a million rows are never
  /// held at once; every page comes from the same snapshot.
  static let replayPage: Int64 = 1000

  /// Calls `body` with the rows `Page` returns, page by page in id order: `Page` takes the rows
  /// with an `id` after `$1`, at most `$2` of them, then `values` as `$3`, `$4`, ….
  static func forEachPage<Page: SQLStatement>(
    _ db: SQLConnection, _ page: Page.Type, _ values: (any PostgresThrowingDynamicTypeEncodable)...,
    body: ([PostgresRow]) async throws -> Void
  ) async throws {
    var after = Int64.min
    while true {
      let bindings: [(any PostgresThrowingDynamicTypeEncodable)?] =
        [after, replayPage] + values.map { $0 }
      let rows = try await db.rows(page, values: bindings)
      guard let last = rows.last else { return }
      try await body(rows)
      after = try last.makeRandomAccess()["id"].decode(Int64.self)
      if rows.count < replayPage { return }
    }
  }
}

extension PostgresStore: MatchingStore {
  public func createAvailability(
    _ new: NewAvailability, activeLimit: Int, now: Int64,
    notify: @escaping @Sendable (AvailabilityRecord) -> OutgoingEvents
  ) async throws -> AvailabilityRecord {
    // The count and the insert are one serializable transaction: two posts racing past the
    // limit on two instances cannot both commit.
    try await write { db in
      let active =
        try await db.row(
          CountActivePosted.self, new.playerID, Int64(AvailabilitySource.posted.rawValue),
          Int64(AvailabilityState.active.rawValue), now
        )?.decode(Int64.self) ?? 0
      guard active < activeLimit else { throw Self.availabilityLimit(activeLimit) }
      guard let record = try await Self.insert(db, new) else {
        throw MatchingErrors.availabilityNotFound
      }
      try await Self.append(db, notify(record), atUnixMs: now)
      return record
    }
  }

  public func availability(id: Int64) async throws -> AvailabilityRecord? {
    try await read { db in try await Self.availabilities(db, ids: [id])[id] }
  }

  public func activeAvailability(playerID: Int64, now: Int64) async throws
    -> [AvailabilityRecord]
  {
    try await read { db in
      try await db.rows(
        ActiveAvailabilityOfPlayer.self, playerID, Int64(AvailabilityState.active.rawValue), now
      ).map(Self.availability(from:))
    }
  }

  public func allActiveAvailability(now: Int64) async throws -> [AvailabilityRecord] {
    try await snapshot { db in
      var all: [AvailabilityRecord] = []
      try await Self.forEachPage(
        db, ActiveAvailabilityPage.self, Int64(AvailabilityState.active.rawValue), now
      ) { rows in
        all += try rows.map(Self.availability(from:))
      }
      return all
    }
  }

  public func cancelAvailability(id: Int64, playerID: Int64) async throws -> AvailabilityRecord {
    try await write { db in
      guard
        let row = try await db.row(
          CancelAvailability.self, Int64(AvailabilityState.cancelled.rawValue), id, playerID,
          Int64(AvailabilityState.active.rawValue))
      else { throw MatchingErrors.availabilityNotFound }
      return try Self.availability(from: row)
    }
  }

  public func saveRecurring(
    _ settings: RecurringSettings, occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> RecurringChange {
    try await write { db in
      guard try await db.row(PlayerExists.self, settings.playerID) != nil else {
        throw DomainError.playerNotFound
      }
      try await db.rows(DeleteRecurringSettings.self, settings.playerID)
      try await db.rows(
        InsertRecurringSettings.self, settings.playerID, settings.timeZone,
        settings.location.latitude, settings.location.longitude, settings.radiusMiles,
        Int64(settings.skillTolerance))
      for (position, slot) in settings.slots.enumerated() {
        try await db.rows(
          InsertRecurringSlot.self, settings.playerID, Int64(position), Int64(slot.weekday),
          Int64(slot.startMinute), Int64(slot.endMinute), Int64(slot.mode.rawValue),
          Int64(slot.isActive ? 1 : 0))
      }
      let removed = try await db.rows(
        RecurringDaysInState.self, settings.playerID, Int64(AvailabilitySource.recurring.rawValue),
        Int64(AvailabilityState.active.rawValue)
      ).map { try $0.decode(Int64.self) }
      // Cancelled days go too, so saving again makes them matchable again; days used by a match
      // stay, and keep their day from being added again.
      try await db.rows(
        DeleteRecurringDaysNotInState.self, settings.playerID,
        Int64(AvailabilitySource.recurring.rawValue), Int64(AvailabilityState.matched.rawValue))
      var added: [AvailabilityRecord] = []
      for occurrence in occurrences {
        if let record = try await Self.insert(db, occurrence) { added.append(record) }
      }
      try await Self.append(db, notify(added), atUnixMs: occurrences.first?.postedAtUnixMs ?? 0)
      return RecurringChange(removed: removed, added: added)
    }
  }

  public func recurringSettings(playerID: Int64) async throws -> RecurringSettings? {
    try await snapshot { db in
      guard let row = try await db.row(RecurringSettingsOfPlayer.self, playerID) else {
        return nil
      }
      let slots = try await db.rows(RecurringSlotsOfPlayer.self, playerID).map(Self.slot(from:))
      return try Self.recurringSettings(from: row, slots: slots.map(\.slot))
    }
  }

  public func allRecurringSettings() async throws -> [RecurringSettings] {
    try await snapshot { db in
      var slots: [Int64: [RecurringSlot]] = [:]
      for row in try await db.rows(AllRecurringSlots.self) {
        let (playerID, slot) = try Self.slot(from: row)
        slots[playerID, default: []].append(slot)
      }
      return try await db.rows(AllRecurringSettings.self).map { row in
        let playerID = try row.makeRandomAccess()["player_id"].decode(Int64.self)
        return try Self.recurringSettings(from: row, slots: slots[playerID] ?? [])
      }
    }
  }

  public func addRecurringOccurrences(
    _ occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> [AvailabilityRecord] {
    try await write { db in
      var added: [AvailabilityRecord] = []
      for occurrence in occurrences {
        if let record = try await Self.insert(db, occurrence) { added.append(record) }
      }
      try await Self.append(db, notify(added), atUnixMs: occurrences.first?.postedAtUnixMs ?? 0)
      return added
    }
  }

  public func deleteAvailability(endedBefore unixMs: Int64) async throws -> Int {
    try await write { db in
      try await db.row(DeleteAvailabilityEndedBefore.self, unixMs)?.decode(Int.self) ?? 0
    }
  }

  // MARK: Replay

  // Each replay reads page by page in one snapshot, so that a million rows are never held at
  // once and they all come from one moment of the database.

  public func replayActiveAvailability(
    nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    try await snapshot { db in
      try await Self.forEachPage(
        db, ActiveAvailabilityPage.self, Int64(AvailabilityState.active.rawValue), nowUnixMs
      ) { rows in
        for row in rows {
          let record = try Self.availability(from: row)
          apply(.availability(id: record.id, record))
        }
      }
    }
  }

  public func replayConfirmedMatches(
    endingAfter unixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    try await snapshot { db in
      try await Self.forEachPage(
        db, UncancelledGamePage.self, Int64(StoredMatchState.cancelled.rawValue), unixMs
      ) { rows in
        let ids = try rows.map { try $0.decode(Int64.self) }
        for match in try await Self.fetchMatches(db, ids: ids) {
          apply(.match(id: match.id, match))
        }
      }
    }
  }

  public func replayPlayerLevels(_ apply: @escaping @Sendable (StoreChange) -> Void)
    async throws
  {
    try await snapshot { db in
      try await Self.forEachPage(db, PlayerPage.self) { rows in
        let ids = try rows.map { try $0.decode(Int64.self) }
        let players = try await Self.players(db, ids: ids)
        for id in ids {
          if let player = players[id] { apply(.player(player)) }
        }
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
  private static func insert(_ db: SQLConnection, _ new: NewAvailability) async throws
    -> AvailabilityRecord?
  {
    guard
      let row = try await db.row(
        InsertAvailability.self, new.playerID, Int64(new.mode.rawValue), new.date.description,
        Int64(new.startMinute), Int64(new.endMinute), new.timeZone, new.slot.startUnixMs,
        new.slot.endUnixMs, new.location.latitude, new.location.longitude, new.radiusMiles,
        Int64(new.skillTolerance), new.postedAtUnixMs, Int64(new.source.rawValue),
        new.recurringKey, Int64(AvailabilityState.active.rawValue))
    else { return nil }
    return AvailabilityRecord(id: try row.decode(Int64.self), details: new, state: .active)
  }

  /// The date a `YYYY-MM-DD` column holds.
  private static func date(_ text: String) -> LocalDate {
    let parts = text.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3 else { return LocalDate(year: 1970, month: 1, day: 1) }
    return LocalDate(year: parts[0], month: parts[1], day: parts[2])
  }

  /// The availability a row of `availabilityColumns` holds.
  static func availability(from row: PostgresRow) throws -> AvailabilityRecord {
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
  private static func slot(from row: PostgresRow) throws -> (playerID: Int64, slot: RecurringSlot) {
    let (playerID, weekday, start, end, mode, active) = try row.decode(
      (Int64, Int, Int, Int, Int, Int64).self)
    return (
      playerID,
      RecurringSlot(
        weekday: weekday, startMinute: start, endMinute: end,
        mode: MatchMode(rawValue: mode) ?? .singles, isActive: active != 0)
    )
  }

  private static func recurringSettings(from row: PostgresRow, slots: [RecurringSlot]) throws
    -> RecurringSettings
  {
    let (playerID, timeZone, latitude, longitude, radius, tolerance) = try row.decode(
      (Int64, String, Double, Double, Double, Int).self)
    return RecurringSettings(
      playerID: playerID, slots: slots, timeZone: timeZone,
      location: Coordinate(latitude: latitude, longitude: longitude), radiusMiles: radius,
      skillTolerance: tolerance)
  }

  // MARK: Statements

  /// The columns `availability(from:)` reads, in its order.
  static let availabilityColumns = """
    id, player_id, mode, local_date, start_minute, end_minute, time_zone, start_ms, end_ms,
    latitude, longitude, radius_miles, skill_tolerance, posted_at_ms, source, state
    """

  enum AvailabilitiesByID: SQLStatement {
    static let sql = "SELECT \(availabilityColumns) FROM availability WHERE id = ANY($1)"
  }
  enum CountActivePosted: SQLStatement {
    static let sql = """
      SELECT count(*) FROM availability
      WHERE player_id = $1 AND source = $2 AND state = $3 AND end_ms > $4
      """
  }
  enum InsertAvailability: SQLStatement {
    static let sql = """
      INSERT INTO availability (player_id, mode, local_date, start_minute, end_minute,
        time_zone, start_ms, end_ms, latitude, longitude, radius_miles, skill_tolerance,
        posted_at_ms, source, recurring_key, state)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
      ON CONFLICT DO NOTHING RETURNING id
      """
  }
  enum ActiveAvailabilityOfPlayer: SQLStatement {
    static let sql = """
      SELECT \(availabilityColumns) FROM availability
      WHERE player_id = $1 AND state = $2 AND end_ms > $3 ORDER BY start_ms, id
      """
  }
  enum ActiveAvailabilityPage: SQLStatement {
    static let sql = """
      SELECT \(availabilityColumns) FROM availability
      WHERE id > $1 AND state = $3 AND end_ms > $4 ORDER BY id LIMIT $2
      """
  }
  enum CancelAvailability: SQLStatement {
    static let sql = """
      UPDATE availability SET state = $1 WHERE id = $2 AND player_id = $3 AND state = $4
      RETURNING \(availabilityColumns)
      """
  }
  enum PlayerExists: SQLStatement {
    static let sql = "SELECT 1 FROM player WHERE id = $1"
  }
  enum DeleteRecurringSettings: SQLStatement {
    static let sql = "DELETE FROM recurring_settings WHERE player_id = $1"
  }
  enum InsertRecurringSettings: SQLStatement {
    static let sql = """
      INSERT INTO recurring_settings (player_id, time_zone, latitude, longitude, radius_miles,
        skill_tolerance) VALUES ($1, $2, $3, $4, $5, $6)
      """
  }
  enum InsertRecurringSlot: SQLStatement {
    static let sql = """
      INSERT INTO recurring_slot (player_id, position, weekday, start_minute, end_minute, mode,
        active) VALUES ($1, $2, $3, $4, $5, $6, $7)
      """
  }
  enum RecurringDaysInState: SQLStatement {
    static let sql = """
      SELECT id FROM availability WHERE player_id = $1 AND source = $2 AND state = $3
      ORDER BY id
      """
  }
  enum DeleteRecurringDaysNotInState: SQLStatement {
    static let sql = """
      DELETE FROM availability WHERE player_id = $1 AND source = $2 AND state <> $3
      """
  }
  enum RecurringSettingsOfPlayer: SQLStatement {
    static let sql = """
      SELECT player_id, time_zone, latitude, longitude, radius_miles, skill_tolerance
      FROM recurring_settings WHERE player_id = $1
      """
  }
  enum AllRecurringSettings: SQLStatement {
    static let sql = """
      SELECT player_id, time_zone, latitude, longitude, radius_miles, skill_tolerance
      FROM recurring_settings ORDER BY player_id
      """
  }
  enum RecurringSlotsOfPlayer: SQLStatement {
    static let sql = """
      SELECT player_id, weekday, start_minute, end_minute, mode, active FROM recurring_slot
      WHERE player_id = $1 ORDER BY position
      """
  }
  enum AllRecurringSlots: SQLStatement {
    static let sql = """
      SELECT player_id, weekday, start_minute, end_minute, mode, active FROM recurring_slot
      ORDER BY player_id, position
      """
  }
  enum DeleteAvailabilityEndedBefore: SQLStatement {
    static let sql = """
      WITH gone AS (DELETE FROM availability WHERE end_ms < $1 RETURNING 1)
      SELECT count(*) FROM gone
      """
  }
  enum UncancelledGamePage: SQLStatement {
    static let sql = """
      SELECT id FROM game WHERE id > $1 AND state <> $3 AND end_ms > $4 ORDER BY id LIMIT $2
      """
  }
  enum PlayerPage: SQLStatement {
    static let sql = "SELECT id FROM player WHERE id > $1 ORDER BY id LIMIT $2"
  }
  enum GamesByID: SQLStatement {
    static let sql = """
      SELECT id, mode, start_ms, end_ms, state, proposal_id, confirmed_at_ms, cancelled_by,
        cancelled_at_ms, winning_team, completed_at_ms, completed_by
      FROM game WHERE id = ANY($1)
      """
  }
  enum ParticipantsOfGames: SQLStatement {
    static let sql = """
      SELECT game_id, player_id, availability_id, team FROM game_participant
      WHERE game_id = ANY($1) ORDER BY game_id, position
      """
  }
}
