public import BadmintonDomain

/// One day of a player's weekly schedule as stored.
public struct DayStatusRecord: Hashable, Sendable {
  public var playerID: Int64
  /// A calendar day in the player's time zone.
  public var date: LocalDate
  /// 0 unknown, 1 free, 2 busy, 3 evening only.
  public var status: Int
  /// Up to 200 characters.
  public var note: String
  /// Milliseconds since 1970-01-01 UTC.
  public var updatedAtUnixMs: Int64

  /// A record with the given fields.
  public init(playerID: Int64, date: LocalDate, status: Int, note: String, updatedAtUnixMs: Int64) {
    self.playerID = playerID
    self.date = date
    self.status = status
    self.note = note
    self.updatedAtUnixMs = updatedAtUnixMs
  }
}

/// The weekly schedules players share with friends, behind an interface of our own. Every method
/// that writes returns only after the write is committed.
public protocol ScheduleStore: Sendable {
  /// Stores one day, replacing what the player set for that day before (one record per day).
  func setDayStatus(_ record: DayStatusRecord) async throws
  /// The days each of `playerIDs` set from `first` through `last`, by player, earliest first.
  func dayStatuses(playerIDs: [Int64], from first: LocalDate, through last: LocalDate)
    async throws -> [Int64: [DayStatusRecord]]
}
