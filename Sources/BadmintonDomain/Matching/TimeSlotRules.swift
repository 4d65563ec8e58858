internal import Foundation

/// The rules for posting a time slot: a day within the next 14 days in the player's time zone, a
/// start and an end as minutes of that day, not in the past, lasting 1 to 8 hours.
public enum TimeSlotRules {
  /// The shortest slot, in seconds: 1 hour.
  public static let minimumDurationSeconds: Int64 = 3600
  /// The longest slot, in seconds: 8 hours.
  public static let maximumDurationSeconds: Int64 = 8 * 3600
  /// The days a slot may be posted for: today and the 13 days after it.
  public static let selectableDays = 14
  /// Minutes in a local day; an end minute of 1440 is the midnight that ends the day.
  public static let minutesPerDay = 1440

  /// Whether a slot of `seconds` lasts from 1 to 8 hours.
  public static func isDurationValid(seconds: Int64) -> Bool {
    (minimumDurationSeconds...maximumDurationSeconds).contains(seconds)
  }

  /// Whether a day `daysFromToday` after today (0 = today) may be picked: 0 to 13.
  public static func isDateSelectable(daysFromToday: Int) -> Bool {
    (0..<selectableDays).contains(daysFromToday)
  }

  /// The longest time zone name, in UTF-8 bytes; longer text is refused before any lookup.
  public static let maximumTimeZoneBytes = 64

  /// Checks that `identifier` is a canonical IANA time zone name, such as `Asia/Shanghai`, or
  /// `UTC`: one of `timeZoneNames`. Abbreviations (`CST`, which could be China's or the US
  /// central zone), fixed offsets (`GMT+8`, `Etc/GMT-8`), `SystemV/*` names and aliases such as
  /// `Asia/Calcutta` or `US/Eastern` are refused with `TIME_ZONE_UNKNOWN`.
  public static func validateTimeZone(_ identifier: String) throws(DomainError) {
    // Bytes first: hashing a huge string for the lookup would already be work per character.
    guard identifier.utf8.count <= maximumTimeZoneBytes, timeZoneNames.contains(identifier) else {
      throw Zone.unknown
    }
  }

  /// The local date at `nowUnixMs` in the time zone `timeZone`.
  public static func today(timeZone: String, nowUnixMs: Int64) throws(DomainError) -> LocalDate {
    try validateTimeZone(timeZone)
    return try Zone(timeZone).date(at: nowUnixMs)
  }

  /// The slot from `startMinute` to `endMinute` of `date` in `timeZone`, if it may be posted at
  /// `nowUnixMs`. Local times become instants through the Gregorian calendar in that zone, so a
  /// slot on a daylight-saving day lasts what the clocks say: a local time the clocks skip is
  /// moved forward by the jump, and a local time they repeat is its first occurrence.
  public static func slot(
    date: LocalDate, startMinute: Int, endMinute: Int, timeZone: String, nowUnixMs: Int64
  ) throws(DomainError) -> TimeSlot {
    try validateTimeZone(timeZone)
    let zone = try Zone(timeZone)
    return try slot(
      date: date, startMinute: startMinute, endMinute: endMinute, in: zone, nowUnixMs: nowUnixMs)
  }

  /// `slot(date:startMinute:endMinute:timeZone:nowUnixMs:)` with the zone already resolved.
  static func slot(
    date: LocalDate, startMinute: Int, endMinute: Int, in zone: Zone, nowUnixMs: Int64
  ) throws(DomainError) -> TimeSlot {
    guard (0..<minutesPerDay).contains(startMinute) else {
      throw minutesOutOfRange("start_minute")
    }
    guard (0...minutesPerDay).contains(endMinute) else { throw minutesOutOfRange("end_minute") }
    guard date.isValid, isDateSelectable(daysFromToday: date.days(since: zone.date(at: nowUnixMs)))
    else {
      throw .invalidField(
        "date", "TIME_SLOT_INVALID",
        en: "The date must be today or one of the next 13 days.", zhCN: "日期需在今后14天内")
    }
    let slot = TimeSlot(
      startUnixMs: zone.instant(date, minute: startMinute),
      endUnixMs: zone.instant(date, minute: endMinute))
    guard startMinute < endMinute, isDurationValid(seconds: slot.durationMs / 1000) else {
      throw durationInvalid("end_minute")
    }
    guard slot.startUnixMs >= nowUnixMs else {
      throw .invalidField(
        "start_minute", "TIME_SLOT_INVALID",
        en: "The start time must not be in the past.", zhCN: "开始时间不能早于现在")
    }
    return slot
  }

  /// The error for a slot shorter than 1 hour or longer than 8, about `field`.
  static func durationInvalid(_ field: String) -> DomainError {
    .invalidField(
      field, "TIME_SLOT_INVALID", en: "A time slot must last from 1 to 8 hours.",
      zhCN: "时间段需要1-8小时")
  }

  /// The error for a start or end outside the local day, about `field`.
  static func minutesOutOfRange(_ field: String) -> DomainError {
    .invalidField(
      field, "TIME_SLOT_INVALID",
      en: "The start and end must be minutes of the day, from 0 to 1440.",
      zhCN: "开始和结束时间须为当天的第 0 到 1440 分钟")
  }

  /// A time zone with the Gregorian calendar in it, to turn instants into local dates and back.
  struct Zone {
    private var calendar = Calendar(identifier: .gregorian)

    /// The error for a time zone name that is not one of `timeZoneNames`.
    static let unknown = DomainError.invalidField(
      "time_zone", "TIME_ZONE_UNKNOWN",
      en: "The time zone must be a canonical IANA time zone name, such as Asia/Shanghai, or UTC; "
        + "abbreviations such as CST and offsets such as GMT+8 are not accepted.",
      zhCN: "时区须为规范的 IANA 时区名称（例如 Asia/Shanghai）或 UTC；不接受 CST 等缩写或 GMT+8 等偏移。")

    /// The zone named `identifier`, or `TIME_ZONE_UNKNOWN` when the platform does not know it.
    /// Requests' names are checked with `validateTimeZone` first; names already stored are
    /// read as they are.
    init(_ identifier: String) throws(DomainError) {
      guard identifier.utf8.count <= TimeSlotRules.maximumTimeZoneBytes,
        let timeZone = TimeZone(identifier: identifier)
      else { throw Self.unknown }
      calendar.timeZone = timeZone
    }

    /// The local date at the instant `unixMs`.
    func date(at unixMs: Int64) -> LocalDate {
      let parts = calendar.dateComponents(
        [.year, .month, .day], from: Date(timeIntervalSince1970: Double(unixMs) / 1000))
      return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// The instant, in unix milliseconds, when the clocks show `minute` (0 to 1440) on `date`.
    func instant(_ date: LocalDate, minute: Int) -> Int64 {
      // Minute 1440 is midnight at the start of the next day.
      let day = minute == TimeSlotRules.minutesPerDay ? date.adding(days: 1) : date
      let local = minute % TimeSlotRules.minutesPerDay
      let components = DateComponents(
        year: day.year, month: day.month, day: day.day, hour: local / 60, minute: local % 60)
      let instant = calendar.date(from: components)!
      return Int64((instant.timeIntervalSince1970 * 1000).rounded())
    }
  }
}
