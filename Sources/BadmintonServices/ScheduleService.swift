public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Schedule`: the weekly schedule a player shares with friends. Days are calendar
/// days in the time zone the caller names; a day never set is unknown. Only friends see each
/// other's weeks.
public struct ScheduleService: Schedule.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock
  let budget: ResponseBudget

  /// The service over `store`. Every page of friends' weeks fits `budget`.
  public init(
    store: any ServerStore, clock: any WallClock,
    budget: ResponseBudget = ResponseBudget(maximumBodySize: WireConfiguration().maximumBodySize)
  ) {
    self.store = store
    self.clock = clock
    self.budget = budget
  }

  public func getMySchedule(_ request: GetMyScheduleRequest, context: ServerContext) async throws
    -> WeekSchedule
  {
    let caller = try context.requirePrincipal()
    let week = ScheduleRules.week(startingOn: try today(in: request.timeZone))
    let set = try await store.dayStatuses(
      playerIDs: [caller.userID], from: week.first!, through: week.last!)
    return WeekSchedule(userID: caller.userID, days: Self.days(week, set[caller.userID] ?? []))
  }

  public func updateDayStatus(_ request: UpdateDayStatusRequest, context: ServerContext)
    async throws -> DaySchedule
  {
    let caller = try context.requirePrincipal()
    let today = try today(in: request.timeZone)
    let date = BadmintonDomain.LocalDate(
      year: Int(request.date.year), month: Int(request.date.month), day: Int(request.date.day))
    try ScheduleRules.validateUpdate(
      date: date, status: Int(request.status.rawValue), note: request.note, today: today)
    let record = DayStatusRecord(
      playerID: caller.userID, date: date, status: Int(request.status.rawValue),
      note: request.note, updatedAtUnixMs: clock.nowUnixMs())
    try await withKeyedAnswer({ (_: Void) in Self.day(record) }) {
      try await store.setDayStatus(record)
    }
    return Self.day(record)
  }

  public func getFriendsSchedules(_ request: GetFriendsSchedulesRequest, context: ServerContext)
    async throws -> GetFriendsSchedulesResponse
  {
    let caller = try context.requirePrincipal()
    let week = ScheduleRules.week(startingOn: try today(in: request.timeZone))
    let pageSize = try PageRules.size(Int(request.pageSize))
    let after =
      try request.pageToken.isEmpty
      ? nil : PageToken.parse(request.pageToken, kind: Self.friendSchedulesKind, count: 1)[0]
    // One more than the page tells whether another page follows.
    let page = try await store.friends(
      playerID: caller.userID, afterID: after, limit: pageSize + 1
    ).map(\.friendID)
    let listed = Array(page.prefix(pageSize))
    let players = try await store.players(ids: listed)
    let set = try await store.dayStatuses(
      playerIDs: listed, from: week.first!, through: week.last!)
    let friends = listed.map { id in
      FriendSchedule(
        player: players[id].map(PlayerCard.init) ?? PlayerCard(userID: id),
        days: Self.days(week, set[id] ?? []))
    }
    let shown = Array(friends.prefix(budget.fitting(friends)))
    let next =
      page.count > shown.count
      ? PageToken(kind: Self.friendSchedulesKind, values: [shown.last!.player.userID]).text : ""
    return GetFriendsSchedulesResponse(friends: shown, nextPageToken: next)
  }

  /// The kind of GetFriendsSchedules' page tokens.
  static let friendSchedulesKind = "friendschedules"

  /// Today in `timeZone`; an unknown zone is `TIME_ZONE_UNKNOWN`.
  private func today(in timeZone: String) throws -> BadmintonDomain.LocalDate {
    try TimeSlotRules.today(timeZone: timeZone, nowUnixMs: clock.nowUnixMs())
  }

  /// Each day of `week`, with what was set for it or unknown.
  private static func days(_ week: [BadmintonDomain.LocalDate], _ set: [DayStatusRecord])
    -> [DaySchedule]
  {
    let byDate = Dictionary(set.map { ($0.date, $0) }, uniquingKeysWith: { _, last in last })
    return week.map { date in
      byDate[date].map(day)
        ?? DaySchedule(date: MatchingService.message(date))
    }
  }

  private static func day(_ record: DayStatusRecord) -> DaySchedule {
    DaySchedule(
      date: MatchingService.message(record.date),
      status: DayStatus(rawValue: Int32(record.status)), note: record.note,
      updatedAtUnixMs: record.updatedAtUnixMs)
  }
}
