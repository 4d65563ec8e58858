/// Times as the console shows and reads them: in UTC, to the minute.
enum UTCTime {
  private static let msPerMinute: Int64 = 60_000
  private static let msPerDay: Int64 = 86_400_000

  /// `unixMs` as `2025-03-01 14:05 UTC`.
  static func format(unixMs: Int64) -> String {
    let days = floorDivide(unixMs, msPerDay)
    let minutesOfDay = (unixMs - days * msPerDay) / msPerMinute
    let (year, month, day) = civil(fromDays: days)
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) "
      + "\(pad(minutesOfDay / 60, 2)):\(pad(minutesOfDay % 60, 2)) UTC"
  }

  /// `unixMs` as an HTML `datetime-local` value, `2025-03-01T14:05`.
  static func dateTimeLocal(unixMs: Int64) -> String {
    String(format(unixMs: unixMs).dropLast(4)).replacingSpaceWithT()
  }

  /// The Unix milliseconds of an HTML `datetime-local` value (`2025-03-01T14:05`, seconds
  /// optional) read as UTC, or nil when it is not one.
  static func parseDateTimeLocal(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard bytes.count == 16 || bytes.count == 19 else { return nil }
    func number(_ range: Range<Int>) -> Int64? {
      var value: Int64 = 0
      for byte in bytes[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
      bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
      let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16)
    else { return nil }
    var second: Int64 = 0
    if bytes.count == 19 {
      guard bytes[16] == UInt8(ascii: ":"), let value = number(17..<19) else { return nil }
      second = value
    }
    guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
      hour < 24, minute < 60, second < 60
    else { return nil }
    let days = self.days(year: year, month: month, day: day)
    return ((days * 24 + hour) * 60 + minute) * msPerMinute + second * 1000
  }

  private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor < 0 ? quotient - 1 : quotient
  }

  private static func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }

  private static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
  private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = floorDivide(shiftedYear, 400)
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The date of a count of days since 1970-01-01.
  private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
    let shifted = days + 719_468
    let era = floorDivide(shifted, 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}

extension String {
  fileprivate func replacingSpaceWithT() -> String {
    String(map { $0 == " " ? "T" : $0 })
  }
}
