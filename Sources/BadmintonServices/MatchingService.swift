public import BadmintonAPI
import BadmintonDomain
public import BadmintonProjections
public import BadmintonRPC
public import BadmintonStore
public import Logging

/// `badminton.v1.Matching`: availability, recurring slots and the search for partners. Every
/// method acts as the caller the session token names; another player's availability reads as
/// missing.
public struct MatchingService: Matching.ServiceProtocol {
  /// Active posted availability one player may have at once.
  public static let activePostLimit = 10
  /// Radius when the request gives none, in miles.
  public static let defaultRadiusMiles = 10.0
  /// Players one new availability tells of itself at most (`partner_available`): the first of
  /// the standing searches it fits, in the order the poster's own search would list them. See
  /// docs/matching.md §4.
  public static let standingSearchNoticeLimit = 100

  let store: any ServerStore
  let board: MatchBoard
  /// The players' public profiles, for the candidates of a page.
  let players: PlayerBook
  let blocks: any BlockRelations
  /// Who is suspended: left out of every search.
  let suspensions: SuspensionBook?
  let clock: any WallClock
  let events: EventPublisher
  /// Saving a player's recurring slots and adding their due days run one at a time, so the days
  /// added are always those of the settings saved last.
  let recurringGate = SerialGate()
  let budget: ResponseBudget
  /// Where the housekeeping's own failures to tell standing searches go.
  let logger: Logger

  /// The service over `store`, searching on `board`. Every page of ListMyMatches fits `budget`.
  public init(
    store: any ServerStore, board: MatchBoard, players: PlayerBook, blocks: any BlockRelations,
    clock: any WallClock, events: EventPublisher,
    budget: ResponseBudget = ResponseBudget(maximumBodySize: WireConfiguration().maximumBodySize),
    logger: Logger = Logger(label: "badminton.matching"), suspensions: SuspensionBook? = nil
  ) {
    self.suspensions = suspensions
    self.logger = logger
    self.store = store
    self.board = board
    self.players = players
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
    let record = try await withKeyedAnswer({ Self.message($0) }) {
      try await store.createAvailability(
        NewAvailability(
          playerID: caller.userID, mode: mode, date: date, startMinute: Int(request.startMinute),
          endMinute: Int(request.endMinute), timeZone: request.timeZone, slot: slot,
          location: settings.location, radiusMiles: settings.radiusMiles,
          skillTolerance: settings.skillTolerance, postedAtUnixMs: now, source: .posted),
        activeLimit: Self.activePostLimit, now: now
      ) { _ in [] }
    }
    await tellStandingSearches(of: [record], posterID: caller.userID, logger: context.logger)
    return Self.message(record)
  }

  public func cancelAvailability(_ request: CancelAvailabilityRequest, context: ServerContext)
    async throws -> CancelAvailabilityResponse
  {
    let caller = try context.requirePrincipal()
    _ = try await withKeyedAnswer({ (_: AvailabilityRecord) in CancelAvailabilityResponse() }) {
      try await store.cancelAvailability(id: request.availabilityID, playerID: caller.userID)
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
    let change = try await recurringGate.run {
      try await withKeyedAnswer({ (_: RecurringChange) in Self.message(saved) }) {
        try await store.saveRecurring(
          saved, occurrences: try Self.occurrences(of: saved, nowUnixMs: clock.nowUnixMs())
        ) { _ in [] }
      }
    }
    await tellStandingSearches(of: change.added, posterID: caller.userID, logger: context.logger)
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
      let records = try await recurringGate.run {
        // Read again inside the gate: a save may have replaced the settings meanwhile.
        guard let settings = try await store.recurringSettings(playerID: playerID) else {
          return [AvailabilityRecord]()
        }
        let occurrences = try Self.occurrences(of: settings, nowUnixMs: clock.nowUnixMs())
        guard !occurrences.isEmpty else { return [] }
        return try await store.addRecurringOccurrences(occurrences) { _ in [] }
      }
      await tellStandingSearches(of: records, posterID: playerID, logger: logger)
      added += records.count
    }
    return added
  }

  // MARK: Finding partners

  public func findMatches(_ request: FindMatchesRequest, context: ServerContext) throws
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
    var excluded = blocks.playersBlockedNow(eitherWayWith: caller.userID)
    // Suspended players' availability stays on the board, and is left out of every search.
    if let suspensions { excluded.formUnion(suspensions.holding(nowUnixMs: now)) }
    let page = board.search(for: query, excluding: excluded, limit: pageSize, after: cursor)
    var response = FindMatchesResponse(
      candidates: candidates(page.candidates),
      nextPageToken: page.nextCursor?.token ?? "")
    if page.candidates.isEmpty && cursor == nil {
      response.suggestions = board.relaxations(for: query, excluding: excluded).map(Self.message)
    }
    return response
  }

  /// Tells the players whose standing search one of `records` fits (their active availability,
  /// which the new one fits): a `partner_available` event each, at most
  /// `standingSearchNoticeLimit` per availability. Runs after the availability was committed,
  /// on the board as the change feed left it, outside any transaction; the events are one write
  /// of their own. The availability stands whether or not they could be written, so a failure
  /// is logged, not returned.
  func tellStandingSearches(
    of records: [AvailabilityRecord], posterID: Int64, logger: Logger
  ) async {
    guard !records.isEmpty else { return }
    do {
      try await events.publish(try await standingSearchNotices(of: records, posterID: posterID))
    } catch {
      logger.warning(
        "standing-search notices not sent",
        metadata: ["player": "\(posterID)", "error": "\(error)"])
    }
  }

  /// The events of `tellStandingSearches`.
  func standingSearchNotices(of records: [AvailabilityRecord], posterID: Int64) async throws
    -> [(body: Event.Body, playerID: Int64)]
  {
    guard let poster = players.player(posterID) else { return [] }
    let excluded = try await blocks.playersBlocked(eitherWayWith: posterID)
    let now = clock.nowUnixMs()
    var notices: [(body: Event.Body, playerID: Int64)] = []
    for record in records {
      // The board's own form, with the level the poster has on it; an availability already
      // used up or cancelled tells nobody.
      guard var posted = board.request(record.id) else { continue }
      posted.slot.startUnixMs = max(posted.slot.startUnixMs, now)
      guard posted.slot.durationMs > 0 else { continue }
      let fits = board.search(
        for: posted, excluding: excluded, limit: Self.standingSearchNoticeLimit, after: nil)
      for fit in fits.candidates {
        // Seen from the other side: the poster is the candidate for the other's availability.
        let candidate = BadmintonDomain.MatchCandidate(
          requestID: record.id, playerID: poster.id, distanceMiles: fit.distanceMiles,
          skillDifference: fit.skillDifference, overlap: fit.overlap,
          postedAtUnixMs: record.details.postedAtUnixMs)
        let event = PartnerAvailable(
          availabilityID: fit.requestID, candidate: Self.message(candidate, player: poster))
        notices.append((.partnerAvailable(event), fit.playerID))
      }
    }
    return notices
  }

  /// The candidates' messages, with each player's public profile from memory.
  private func candidates(_ found: [BadmintonDomain.MatchCandidate]) -> [APIMatchCandidate] {
    let players = players.players(ids: found.map(\.playerID))
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
    var location: Coordinate
    var radiusMiles: Double
    var skillTolerance: Int
  }

  private func searchSettings(
    _ playerID: Int64, location: GeoPoint?, radiusMiles: Double, skillTolerance: SkillTolerance?
  ) async throws -> SearchSettings {
    let radius = try MatchRules.validateRadius(
      radiusMiles == 0 ? Self.defaultRadiusMiles : radiusMiles)
    let tolerance = try MatchRules.validateSkillTolerance(
      skillTolerance.map { Int($0.levels) } ?? MatchRules.defaultSkillTolerance)
    guard let player = players.player(playerID) else { throw DomainError.playerNotFound }
    let point: Coordinate
    if let location {
      point = try Coordinate.validated(latitude: location.latitude, longitude: location.longitude)
    } else if let known = player.location {
      point = known
    } else {
      throw Self.locationUnknown
    }
    return SearchSettings(location: point, radiusMiles: radius, skillTolerance: tolerance)
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

  static func message(_ candidate: BadmintonDomain.MatchCandidate, player: PlayerEntry)
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
