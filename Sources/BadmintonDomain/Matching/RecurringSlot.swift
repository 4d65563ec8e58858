/// A time a player is usually free each week, saved so the app can post it for them.
public struct RecurringSlot: Hashable, Sendable {
  /// The day of the week: 1 is Sunday, 7 is Saturday.
  public var weekday: Int
  /// The start, in minutes of the local day (0 to 1439).
  public var startMinute: Int
  /// The end, in minutes of the local day (1 to 1440; 1440 is the midnight that ends the day).
  public var endMinute: Int
  /// The kind of game.
  public var mode: MatchMode
  /// Whether the slot is posted; an inactive one is kept but not posted.
  public var isActive: Bool

  /// A weekly slot with the given fields.
  public init(weekday: Int, startMinute: Int, endMinute: Int, mode: MatchMode, isActive: Bool) {
    self.weekday = weekday
    self.startMinute = startMinute
    self.endMinute = endMinute
    self.mode = mode
    self.isActive = isActive
  }
}

/// One day's posting of a weekly slot.
public struct RecurringOccurrence: Hashable, Sendable {
  /// The position of the weekly slot in its set.
  public var entry: Int
  /// The local date.
  public var date: LocalDate
  /// The slot on that date.
  public var slot: TimeSlot
  /// The kind of game.
  public var mode: MatchMode

  /// An occurrence with the given fields.
  public init(entry: Int, date: LocalDate, slot: TimeSlot, mode: MatchMode) {
    self.entry = entry
    self.date = date
    self.slot = slot
    self.mode = mode
  }
}

/// The rules for a player's set of weekly slots and the days they are posted for.
public enum RecurringSlotRules {
  /// The most weekly slots a player may keep.
  public static let maximumCount = 5

  /// Checks a whole set: at most 5 slots (none clears the set), each on a weekday from 1 to 7,
  /// from a start to a later end within the day, lasting 1 to 8 hours.
  public static func validate(_ slots: [RecurringSlot]) throws(DomainError) {
    guard slots.count <= maximumCount else {
      throw .invalidField(
        "slots", "RECURRING_SLOTS_LIMIT",
        en: "You can keep at most 5 weekly time slots.", zhCN: "最多保存5个常用时间段")
    }
    for (index, slot) in slots.enumerated() {
      let prefix = "slots[\(index)]."
      guard (1...7).contains(slot.weekday) else {
        throw .invalidField(
          prefix + "weekday", "TIME_SLOT_INVALID",
          en: "The weekday must be from 1 (Sunday) to 7 (Saturday).",
          zhCN: "星期须为 1（星期日）到 7（星期六）")
      }
      guard (0..<TimeSlotRules.minutesPerDay).contains(slot.startMinute) else {
        throw TimeSlotRules.minutesOutOfRange(prefix + "start_minute")
      }
      guard (0...TimeSlotRules.minutesPerDay).contains(slot.endMinute) else {
        throw TimeSlotRules.minutesOutOfRange(prefix + "end_minute")
      }
      let seconds = Int64(slot.endMinute - slot.startMinute) * 60
      guard TimeSlotRules.isDurationValid(seconds: seconds) else {
        throw TimeSlotRules.durationInvalid(prefix + "end_minute")
      }
    }
  }

  /// The postings of the active slots for today and the next 13 days in `timeZone` whose start
  /// is not before `nowUnixMs`: exactly the slots `TimeSlotRules.slot` accepts for those days,
  /// so a daylight-saving day that makes a slot too short or too long leaves it out. In date
  /// order, then in the set's order.
  public static func occurrences(
    of slots: [RecurringSlot], timeZone: String, nowUnixMs: Int64
  ) throws(DomainError) -> [RecurringOccurrence] {
    let zone = try TimeSlotRules.Zone(timeZone)
    let today = zone.date(at: nowUnixMs)
    var result: [RecurringOccurrence] = []
    for offset in 0..<TimeSlotRules.selectableDays {
      let date = today.adding(days: offset)
      for (index, entry) in slots.enumerated()
      where entry.isActive && entry.weekday == date.weekday {
        guard
          let slot = try? TimeSlotRules.slot(
            date: date, startMinute: entry.startMinute, endMinute: entry.endMinute, in: zone,
            nowUnixMs: nowUnixMs)
        else { continue }
        result.append(RecurringOccurrence(entry: index, date: date, slot: slot, mode: entry.mode))
      }
    }
    return result
  }
}
