/// The rules of game rooms: how many players a mode needs, when a room is ready, when it expires
/// and which time a started match takes.
public enum RoomRules {
  /// How long a room stays open without activity: 30 minutes.
  public static let idleLimitMs: Int64 = 30 * 60 * 1000
  /// How long a match started without a chosen time lasts: 1 hour from now.
  public static let defaultMatchDurationMs: Int64 = 3_600_000
  /// How far in the past a chosen start may lie, for clocks that differ a little: 1 minute.
  public static let startToleranceMs: Int64 = 60_000

  /// The players a room of `mode` holds when full: 2 for singles, 4 for doubles.
  public static func requiredPlayers(for mode: MatchMode) -> Int {
    switch mode {
    case .singles: 2
    case .doubles: 4
    }
  }

  /// Whether a room of `mode` with `participantCount` players can start: exactly the players
  /// the mode needs.
  public static func isReady(mode: MatchMode, participantCount: Int) -> Bool {
    participantCount == requiredPlayers(for: mode)
  }

  /// When a room whose last activity was at `lastActivityAtUnixMs` expires.
  public static func expiresAt(lastActivityAtUnixMs: Int64) -> Int64 {
    lastActivityAtUnixMs + idleLimitMs
  }

  /// Whether a room whose last activity was at `lastActivityAtUnixMs` has expired at
  /// `nowUnixMs`: 30 minutes or more have passed.
  public static func isExpired(lastActivityAtUnixMs: Int64, nowUnixMs: Int64) -> Bool {
    nowUnixMs >= expiresAt(lastActivityAtUnixMs: lastActivityAtUnixMs)
  }

  /// How far ahead a started match may begin: 14 days, as far as availability may be posted.
  public static let maximumLeadMs: Int64 = 14 * 24 * 3_600_000

  /// The time of a match started at `nowUnixMs`: `requested`, which must start no earlier than a
  /// minute ago and at most 14 days ahead and last 1 to 8 hours, or from now for one hour when
  /// nothing was requested.
  public static func matchSlot(requested: TimeSlot?, nowUnixMs: Int64) throws(DomainError)
    -> TimeSlot
  {
    guard let requested else {
      return TimeSlot(startUnixMs: nowUnixMs, endUnixMs: nowUnixMs + defaultMatchDurationMs)
    }
    // The start is checked first, so that the duration below cannot overflow whatever the
    // client sent.
    guard requested.startUnixMs >= nowUnixMs - startToleranceMs else {
      throw .invalidField(
        "slot.start_unix_ms", "TIME_SLOT_INVALID",
        en: "The start time must not be in the past.", zhCN: "开始时间不能早于现在")
    }
    guard requested.startUnixMs <= nowUnixMs + maximumLeadMs else {
      throw .invalidField(
        "slot.start_unix_ms", "TIME_SLOT_INVALID",
        en: "The match must start within 14 days.", zhCN: "比赛须在14天内开始")
    }
    let hours =
      TimeSlotRules.minimumDurationSeconds * 1000...TimeSlotRules.maximumDurationSeconds
      * 1000
    let (duration, overflow) = requested.endUnixMs.subtractingReportingOverflow(
      requested.startUnixMs)
    guard !overflow, hours.contains(duration) else {
      throw TimeSlotRules.durationInvalid("slot.end_unix_ms")
    }
    return requested
  }

  /// The teams of a started match, by player: in singles the players in the order given are
  /// teams 1 and 2; in doubles the most even split by level (`DoublesTeams.balanced`).
  public static func teams(_ players: [(playerID: Int64, level: Int)]) -> [Int64: Int] {
    guard players.count == 4 else {
      return Dictionary(
        players.enumerated().map { ($1.playerID, $0 + 1) }, uniquingKeysWith: { first, _ in first })
    }
    let split = DoublesTeams.balanced(players)
    var teams: [Int64: Int] = [:]
    for id in split.first { teams[id] = 1 }
    for id in split.second { teams[id] = 2 }
    return teams
  }
}
