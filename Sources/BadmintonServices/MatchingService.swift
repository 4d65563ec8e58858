public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Matching`: availability, recurring slots and the search for partners. Every
/// method acts as the caller the session token names; another player's availability reads as
/// missing.
public struct MatchingService: Matching.ServiceProtocol {
  /// Active posted availability one player may have at once.
  public static let activePostLimit = 10
  /// Radius when the request gives none, in miles.
  public static let defaultRadiusMiles = 10.0

  let store: any ServerStore
  let board: MatchBoard
  let blocks: any BlockRelations
  let clock: any WallClock
  let events: EventPublisher
  /// Writes and the board updates that follow them run one at a time, so the board sees the
  /// changes in the order the database committed them.
  let writeGate = SerialGate()
  let budget: ResponseBudget

  /// The service over `store`, searching on `board`. Every page of ListMyMatches fits `budget`.
  public init(
    store: any ServerStore, board: MatchBoard, blocks: any BlockRelations,
    clock: any WallClock, events: EventPublisher,
    budget: ResponseBudget = ResponseBudget(maximumBodySize: WireConfiguration().maximumBodySize)
  ) {
    self.store = store
    self.board = board
    self.blocks = blocks
    self.clock = clock
    self.events = events
    self.budget = budget
  }

  // MARK: Availability

  public func postAvailability(_ request: PostAvailabilityRequest, context: ServerContext)
    async throws -> Availability
  {
    let caller = try context.requirePrincipal()
    let now = clock.nowUnixMs()
    let mode = try Self.mode(request.mode, field: "mode")
    try TimeSlotRules.validateTimeZone(request.timeZone)
    let date = BadmintonDomain.LocalDate(
      year: Int(request.date.year), month: Int(request.date.month), day: Int(request.date.day))
    let slot = try TimeSlotRules.slot(
      date: date, startMinute: Int(request.startMinute), endMinute: Int(request.endMinute),
      timeZone: request.timeZone, nowUnixMs: now)
    let settings = try await searchSettings(
      caller.userID, location: request.location, radiusMiles: request.radiusMiles,
      skillTolerance: request.skillTolerance)
    let excluded = try await blocks.playersBlocked(eitherWayWith: caller.userID)
    let recipients = Recipients()
    let record = try await writeGate.run {
      let record = try await store.createAvailability(
        NewAvailability(
          playerID: caller.userID, mode: mode, date: date, startMinute: Int(request.startMinute),
          endMinute: Int(request.endMinute), timeZone: request.timeZone, slot: slot,
          location: settings.location, radiusMiles: settings.radiusMiles,
          skillTolerance: settings.skillTolerance, postedAtUnixMs: now, source: .posted),
        activeLimit: Self.activePostLimit, now: now
      ) { [board] record in
        recipients.record(
          Self.partnerNotices(
            [record], poster: settings.player, board: board, excluding: excluded, now: now))
      }
      board.insert(record, displayLevel: settings.displayLevel)
      return record
    }
    return Self.message(record)
  }

  public func cancelAvailability(_ request: CancelAvailabilityRequest, context: ServerContext)
    async throws -> CancelAvailabilityResponse
  {
    let caller = try context.requirePrincipal()
    try await writeGate.run {
      let cancelled = try await store.cancelAvailability(
        id: request.availabilityID, playerID: caller.userID)
      board.remove([cancelled.id])
    }
    return CancelAvailabilityResponse()
  }

  public func listMyAvailability(_ request: ListMyAvailabilityRequest, context: ServerContext)
    async throws -> ListMyAvailabilityResponse
  {
    let caller = try context.requirePrincipal()
    let records = try await store.activeAvailability(
      playerID: caller.userID, now: clock.nowUnixMs())
    return ListMyAvailabilityResponse(availability: records.map(Self.message))
  }

  // MARK: Recurring slots

  public func saveRecurringSlots(_ request: SaveRecurringSlotsRequest, context: ServerContext)
    async throws -> RecurringSlots
  {
    let caller = try context.requirePrincipal()
    var slots: [BadmintonDomain.RecurringSlot] = []
    for (index, slot) in request.slots.enumerated() {
      slots.append(
        BadmintonDomain.RecurringSlot(
          weekday: Int(slot.weekday), startMinute: Int(slot.startMinute),
          endMinute: Int(slot.endMinute),
          mode: try Self.mode(slot.mode, field: "slots[\(index)].mode"), isActive: slot.active))
    }
    try RecurringSlotRules.validate(slots)
    try TimeSlotRules.validateTimeZone(request.timeZone)
    let settings = try await searchSettings(
      caller.userID, location: request.location, radiusMiles: request.radiusMiles,
      skillTolerance: request.skillTolerance)
    let saved = RecurringSettings(
      playerID: caller.userID, slots: slots, timeZone: request.timeZone,
      location: settings.location, radiusMiles: settings.radiusMiles,
      skillTolerance: settings.skillTolerance)
    let excluded = try await blocks.playersBlocked(eitherWayWith: caller.userID)
    let recipients = Recipients()
    try await writeGate.run {
      let now = clock.nowUnixMs()
      let change = try await store.saveRecurring(
        saved, occurrences: try Self.occurrences(of: saved, nowUnixMs: now)
      ) { [board] added in
        recipients.record(
          Self.partnerNotices(
            added, poster: settings.player, board: board, excluding: excluded, now: now))
      }
      board.remove(change.removed)
      for record in change.added { board.insert(record, displayLevel: settings.displayLevel) }
    }
    return Self.message(saved)
  }

  public func getRecurringSlots(_ request: GetRecurringSlotsRequest, context: ServerContext)
    async throws -> RecurringSlots
  {
    let caller = try context.requirePrincipal()
    guard let saved = try await store.recurringSettings(playerID: caller.userID) else {
      return RecurringSlots()
    }
    return Self.message(saved)
  }

  /// Adds the recurring days that became due, drops ended availability from the index, ends
  /// the proposals that expired, and deletes availability that ended more than `retention` ago.
  /// Runs at start and every hour.
  @discardableResult
  public func sweep(retention: Duration = .seconds(30 * 24 * 3600)) async throws
    -> (added: Int, deleted: Int)
  {
    board.removeExpired(nowUnixMs: clock.nowUnixMs())
    try await lapseExpiredProposals()
    let added = try await addDueRecurringDays()
    let cutoff = clock.nowUnixMs() - retention.components.seconds * 1000
    return (added, try await store.deleteAvailability(endedBefore: cutoff))
  }

  /// Adds the recurring days that became due since the last call, for every player; returns how
  /// many were added.
  func addDueRecurringDays() async throws -> Int {
    var added = 0
    for playerID in try await store.allRecurringSettings().map(\.playerID) {
      guard let player = try await store.player(id: playerID) else { continue }
      let excluded = try await blocks.playersBlocked(eitherWayWith: playerID)
      let recipients = Recipients()
      added += try await writeGate.run {
        // Read again inside the gate: a save may have replaced the settings meanwhile.
        guard let settings = try await store.recurringSettings(playerID: playerID) else {
          return 0
        }
        let now = clock.nowUnixMs()
        let occurrences = try Self.occurrences(of: settings, nowUnixMs: now)
        guard !occurrences.isEmpty else { return 0 }
        let records = try await store.addRecurringOccurrences(occurrences) { [board] added in
          recipients.record(
            Self.partnerNotices(added, poster: player, board: board, excluding: excluded, now: now))
        }
        for record in records { board.insert(record, displayLevel: player.displayLevel.level) }
        return records.count
      }
    }
    return added
  }

  // MARK: Finding partners

  public func findMatches(_ request: FindMatchesRequest, context: ServerContext) async throws
    -> FindMatchesResponse
  {
    let caller = try context.requirePrincipal()
    let pageSize = try PageRules.size(Int(request.pageSize))
    let cursor = try request.pageToken.isEmpty ? nil : MatchCursor(token: request.pageToken)
    let now = clock.nowUnixMs()
    guard var query = board.request(request.availabilityID), query.playerID == caller.userID,
      query.slot.endUnixMs > now
    else { throw MatchingErrors.availabilityNotFound }
    // Only time still ahead counts: an overlap that has partly passed is measured from now, and
    // availability that has ended overlaps nothing.
    query.slot.startUnixMs = max(query.slot.startUnixMs, now)
    let excluded = try await blocks.playersBlocked(eitherWayWith: caller.userID)
    let page = board.search(for: query, excluding: excluded, limit: pageSize, after: cursor)
    var response = FindMatchesResponse(
      candidates: try await candidates(page.candidates),
      nextPageToken: page.nextCursor?.token ?? "")
    if page.candidates.isEmpty && cursor == nil {
      response.suggestions = board.relaxations(for: query, excluding: excluded).map(Self.message)
    }
    return response
  }

  /// The events telling every player whose availability one of `records` fits: a standing
  /// search. Runs inside the transaction that stores `records`.
  static func partnerNotices(
    _ records: [AvailabilityRecord], poster: PlayerRecord, board: MatchBoard,
    excluding excluded: Set<Int64>, now: Int64
  ) -> OutgoingEvents {
    var notices: OutgoingEvents = []
    for record in records {
      var posted = MatchBoard.request(record, displayLevel: poster.displayLevel.level)
      posted.slot.startUnixMs = max(posted.slot.startUnixMs, now)
      guard posted.slot.durationMs > 0 else { continue }
      for fit in board.allFits(for: posted, excluding: excluded) {
        // Seen from the other side: the poster is the candidate for the other's availability.
        let candidate = BadmintonDomain.MatchCandidate(
          requestID: record.id, playerID: poster.id, distanceMiles: fit.distanceMiles,
          skillDifference: fit.skillDifference, overlap: fit.overlap,
          postedAtUnixMs: record.details.postedAtUnixMs)
        let event = PartnerAvailable(
          availabilityID: fit.requestID, candidate: message(candidate, player: poster))
        notices.append((fit.playerID, Event(body: .partnerAvailable(event)).serializedBytes()))
      }
    }
    return notices
  }

  /// The candidates' messages, with each player's public profile.
  private func candidates(_ found: [BadmintonDomain.MatchCandidate]) async throws
    -> [APIMatchCandidate]
  {
    let players = try await store.players(ids: found.map(\.playerID))
    return found.compactMap { candidate in
      players[candidate.playerID].map { Self.message(candidate, player: $0) }
    }
  }

  // MARK: Rules

  private static let locationUnknown = DomainError(
    .failedPrecondition, "LOCATION_UNKNOWN",
    en: "Share your location first, or give one, to find partners nearby.",
    zhCN: "需要位置权限才能找到附近的球友")

  private static func mode(_ mode: APIMatchMode, field: String) throws(DomainError)
    -> BadmintonDomain.MatchMode
  {
    switch mode {
    case .singles: return .singles
    case .doubles: return .doubles
    default:
      throw .invalidField(
        field, "MATCH_MODE_INVALID", en: "The mode must be SINGLES or DOUBLES.",
        zhCN: "模式须为单打或双打。")
    }
  }

  /// Where and how widely a player searches, with the defaults filled in.
  private struct SearchSettings {
    var player: PlayerRecord
    var location: Coordinate
    var radiusMiles: Double
    var skillTolerance: Int
    var displayLevel: Int
  }

  private func searchSettings(
    _ playerID: Int64, location: GeoPoint?, radiusMiles: Double, skillTolerance: SkillTolerance?
  ) async throws -> SearchSettings {
    let radius = try MatchRules.validateRadius(
      radiusMiles == 0 ? Self.defaultRadiusMiles : radiusMiles)
    let tolerance = try MatchRules.validateSkillTolerance(
      skillTolerance.map { Int($0.levels) } ?? MatchRules.defaultSkillTolerance)
    guard let player = try await store.player(id: playerID) else {
      throw DomainError.playerNotFound
    }
    let point: Coordinate
    if let location {
      point = try Coordinate.validated(latitude: location.latitude, longitude: location.longitude)
    } else if let known = player.location {
      point = known
    } else {
      throw Self.locationUnknown
    }
    return SearchSettings(
      player: player, location: point, radiusMiles: radius, skillTolerance: tolerance,
      displayLevel: player.displayLevel.level)
  }

  private static func occurrences(of settings: RecurringSettings, nowUnixMs: Int64) throws
    -> [NewAvailability]
  {
    try RecurringSlotRules.occurrences(
      of: settings.slots, timeZone: settings.timeZone, nowUnixMs: nowUnixMs
    ).map { occurrence in
      let entry = settings.slots[occurrence.entry]
      return NewAvailability(
        playerID: settings.playerID, mode: occurrence.mode, date: occurrence.date,
        startMinute: entry.startMinute, endMinute: entry.endMinute,
        timeZone: settings.timeZone, slot: occurrence.slot, location: settings.location,
        radiusMiles: settings.radiusMiles, skillTolerance: settings.skillTolerance,
        postedAtUnixMs: nowUnixMs, source: .recurring)
    }
  }

  // MARK: Messages

  static func message(_ mode: BadmintonDomain.MatchMode) -> APIMatchMode {
    mode == .singles ? .singles : .doubles
  }

  static func message(_ slot: BadmintonDomain.TimeSlot) -> APITimeSlot {
    APITimeSlot(startUnixMs: slot.startUnixMs, endUnixMs: slot.endUnixMs)
  }

  static func message(_ date: BadmintonDomain.LocalDate) -> APILocalDate {
    APILocalDate(year: Int32(date.year), month: Int32(date.month), day: Int32(date.day))
  }

  static func message(_ point: Coordinate) -> GeoPoint {
    GeoPoint(latitude: point.latitude, longitude: point.longitude)
  }

  static func message(_ record: AvailabilityRecord) -> Availability {
    let details = record.details
    return Availability(
      id: record.id, userID: details.playerID, mode: message(details.mode),
      date: message(details.date), startMinute: Int32(details.startMinute),
      endMinute: Int32(details.endMinute), timeZone: details.timeZone,
      slot: message(details.slot), location: message(details.location),
      radiusMiles: details.radiusMiles, skillTolerance: Int32(details.skillTolerance),
      postedAtUnixMs: details.postedAtUnixMs,
      source: details.source == .posted ? .posted : .recurring)
  }

  static func message(_ settings: RecurringSettings) -> RecurringSlots {
    RecurringSlots(
      slots: settings.slots.map { slot in
        APIRecurringSlot(
          weekday: Int32(slot.weekday), startMinute: Int32(slot.startMinute),
          endMinute: Int32(slot.endMinute), mode: message(slot.mode), active: slot.isActive)
      },
      timeZone: settings.timeZone, location: message(settings.location),
      radiusMiles: settings.radiusMiles, skillTolerance: Int32(settings.skillTolerance))
  }

  static func message(_ candidate: BadmintonDomain.MatchCandidate, player: PlayerRecord)
    -> APIMatchCandidate
  {
    let display = player.displayLevel
    return APIMatchCandidate(
      availabilityID: candidate.requestID, userID: player.id, nickname: player.nickname,
      displayLevel: Int32(display.level), newPlayer: display.isNewPlayer,
      reputation: PlayersService.summary(player.reputation),
      distanceMiles: candidate.distanceMiles, skillDifference: Int32(candidate.skillDifference),
      overlap: message(candidate.overlap))
  }

  static func message(_ relaxation: BadmintonDomain.MatchRelaxation)
    -> APIMatchRelaxation
  {
    let kind: RelaxationKind =
      switch relaxation.kind {
      case .widenTime: .widenTime
      case .raiseTolerance: .raiseSkillTolerance
      case .widenRadius: .widenRadius
      }
    return APIMatchRelaxation(
      kind: kind, slot: message(relaxation.slot), skillTolerance: Int32(relaxation.skillTolerance),
      radiusMiles: relaxation.radiusMiles, candidateCount: Int32(relaxation.candidateCount))
  }
}
