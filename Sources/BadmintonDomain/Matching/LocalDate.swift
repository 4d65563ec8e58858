/// A day of the Gregorian calendar with no time zone, as a player picks it on a calendar.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The year, 1 to 9999 for a valid date.
  public var year: Int
  /// The month, 1 to 12.
  public var month: Int
  /// The day of the month, from 1.
  public var day: Int

  /// The given day; see `isValid`.
  public init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// Whether the day exists: a year from 1 to 9999, a month from 1 to 12, a day the month has.
  public var isValid: Bool {
    guard (1...9999).contains(year), (1...12).contains(month), day >= 1 else { return false }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return day <= lengths[month - 1]
  }

  /// The day of the week of a valid date: 1 is Sunday, 7 is Saturday.
  public var weekday: Int {
    // 1970-01-01 was a Thursday, weekday 5.
    let days = daysSinceEpoch
    return ((days + 4) % 7 + 7) % 7 + 1
  }

  /// The date `days` after this valid date, or before it when `days` is negative.
  public func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

  /// The number of days from `other` to this date; positive when this date is later.
  public func days(since other: LocalDate) -> Int { daysSinceEpoch - other.daysSinceEpoch }

  /// Days since 1970-01-01 (H. Hinnant's `days_from_civil`).
  var daysSinceEpoch: Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
  init(daysSinceEpoch days: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra =
      (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    self.init(
      year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month,
      day: dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
  }

  /// Earlier dates first.
  public static func < (a: LocalDate, b: LocalDate) -> Bool {
    (a.year, a.month, a.day) < (b.year, b.month, b.day)
  }

  /// The date as `YYYY-MM-DD`.
  public var description: String {
    func padded(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
  }
}
