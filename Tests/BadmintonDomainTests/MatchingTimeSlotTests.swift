import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("Posting time slots (properties 11, 12 and 13)")
struct MatchingTimeSlotTests {
  /// Real zones: daylight saving in both hemispheres, a 30-minute shift, UTC+14, a zone whose
  /// clocks skip midnight, and zones without daylight saving.
  static let zones = [
    "America/New_York", "Europe/London", "Asia/Shanghai", "Australia/Lord_Howe",
    "Pacific/Kiritimati", "America/Santiago", "Asia/Kolkata",
  ]

  /// Instants from 2020 to 2035.
  static let nows = Gen.int64(in: 1_577_836_800_000...2_082_758_400_000)

  static func calendar(_ zone: String) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone)!
    return calendar
  }

  /// Oracle: the local date `offset` days after the one at `now`, by Foundation's own day
  /// arithmetic from noon, which every day has.
  static func date(offset: Int, from now: Int64, in calendar: Calendar) -> LocalDate {
    let today = calendar.dateComponents(
      [.year, .month, .day], from: Date(timeIntervalSince1970: Double(now) / 1000))
    var noon = today
    noon.hour = 12
    let day = calendar.date(byAdding: .day, value: offset, to: calendar.date(from: noon)!)!
    let parts = calendar.dateComponents([.year, .month, .day], from: day)
    return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)
  }

  /// Oracle: the instant the clocks show `minute` on `date`, hour 24 being the next midnight.
  static func instant(_ date: LocalDate, minute: Int, in calendar: Calendar) -> Int64 {
    let components = DateComponents(
      year: date.year, month: date.month, day: date.day, hour: minute / 60, minute: minute % 60)
    return Int64(calendar.date(from: components)!.timeIntervalSince1970 * 1000)
  }

  /// The error `body` throws, or nil.
  static func error(_ body: () throws -> Void) -> DomainError? {
    do {
      try body()
      return nil
    } catch {
      return error as? DomainError
    }
  }

  /// The UTC instant of the given wall time, in unix milliseconds.
  static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Int64 {
    let date = calendar("UTC").date(
      from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    return Int64(date.timeIntervalSince1970 * 1000)
  }

  @Test("the time zones are known on this machine")
  func zones_areKnown() throws {
    for zone in Self.zones {
      #expect(TimeZone(identifier: zone) != nil, "\(zone)")
      try TimeSlotRules.validateTimeZone(zone)
    }
  }

  @Test("property 11: a slot may be posted for today and the next 13 days, not in the past")
  func dateWindow_matchesOracle() async {
    await propertyCheck(
      count: 1500, input: Self.nows, Gen.int(in: 0...(Self.zones.count - 1)),
      Gen.int(in: -5...20), Gen.int(in: 0...1439), Gen.int(in: 60...480)
    ) { now, zoneIndex, offset, start, length in
      let zone = Self.zones[zoneIndex]
      let calendar = Self.calendar(zone)
      let date = Self.date(offset: offset, from: now, in: calendar)
      let end = min(start + length, 1440)
      let startInstant = Self.instant(date, minute: start, in: calendar)
      let seconds = (Self.instant(date, minute: end, in: calendar) - startInstant) / 1000
      #expect(TimeSlotRules.isDateSelectable(daysFromToday: offset) == (0...13).contains(offset))

      var slot: TimeSlot?
      let error = Self.error {
        slot = try TimeSlotRules.slot(
          date: date, startMinute: start, endMinute: end, timeZone: zone, nowUnixMs: now)
      }
      let expectedField: String? =
        if !(0...13).contains(offset) {
          "date"
        } else if !(3600...28800).contains(seconds) {
          "end_minute"
        } else if startInstant < now {
          "start_minute"
        } else {
          nil
        }
      #expect(error?.violations.map(\.field) == expectedField.map { [$0] }, "\(zone) \(date)")
      #expect(error == nil || error?.reason == "TIME_SLOT_INVALID")
      if expectedField == nil {
        #expect(slot?.startUnixMs == startInstant)
        #expect(slot?.durationMs == seconds * 1000)
      }
    }
  }

  @Test("today is the date the zone's clocks show now")
  func today_matchesCalendar() async throws {
    await propertyCheck(count: 500, input: Self.nows, Gen.int(in: 0...(Self.zones.count - 1))) {
      now, zoneIndex throws in
      let zone = Self.zones[zoneIndex]
      #expect(
        try TimeSlotRules.today(timeZone: zone, nowUnixMs: now)
          == Self.date(offset: 0, from: now, in: Self.calendar(zone)))
    }
    // 2025-01-01 00:30 UTC is already the afternoon of 1 January on Kiritimati (UTC+14) and
    // still 31 December in New York.
    let now = Self.utc(2025, 1, 1, 0, 30)
    #expect(
      try TimeSlotRules.today(timeZone: "Pacific/Kiritimati", nowUnixMs: now)
        == LocalDate(year: 2025, month: 1, day: 1))
    #expect(
      try TimeSlotRules.today(timeZone: "America/New_York", nowUnixMs: now)
        == LocalDate(year: 2024, month: 12, day: 31))
  }

  @Test("property 12: a slot lasts 1 to 8 hours")
  func duration_matchesOracle() async {
    await propertyCheck(count: 1500, input: Gen.int64(in: -100_000...100_000)) { seconds in
      #expect(TimeSlotRules.isDurationValid(seconds: seconds) == (3600...28800 ~= seconds))
    }
    // Shanghai has no daylight saving, so a slot lasts exactly its minutes.
    await propertyCheck(
      count: 1500, input: Self.nows, Gen.int(in: 1...13), Gen.int(in: 0...1439),
      Gen.int(in: 0...1440)
    ) { now, offset, start, end in
      let date = Self.date(offset: offset, from: now, in: Self.calendar("Asia/Shanghai"))
      var slot: TimeSlot?
      let error = Self.error {
        slot = try TimeSlotRules.slot(
          date: date, startMinute: start, endMinute: end, timeZone: "Asia/Shanghai",
          nowUnixMs: now)
      }
      let seconds = (end - start) * 60
      if (3600...28800).contains(seconds) {
        #expect(error == nil)
        #expect(slot?.durationMs == Int64(seconds) * 1000)
      } else {
        #expect(error?.reason == "TIME_SLOT_INVALID")
        #expect(error?.violations.map(\.field) == ["end_minute"])
        #expect(error?.zhCN == "时间段需要1-8小时")
      }
    }
  }

  @Test("daylight-saving days: a slot lasts what the clocks say")
  func duration_onDaylightSavingDays() throws {
    func slot(_ zone: String, _ date: LocalDate, _ start: Int, _ end: Int) throws -> TimeSlot {
      try TimeSlotRules.slot(
        date: date, startMinute: start, endMinute: end, timeZone: zone,
        nowUnixMs: Self.utc(date.year, date.month, date.day, 0, 0) - 3 * 86_400_000)
    }
    let newYork = "America/New_York"
    let springForward = LocalDate(year: 2025, month: 3, day: 9)
    let fallBack = LocalDate(year: 2025, month: 11, day: 2)
    // 00:00-09:00 on the clock is 8 hours when an hour is skipped.
    #expect(
      try slot(newYork, springForward, 0, 540)
        == TimeSlot(startUnixMs: Self.utc(2025, 3, 9, 5, 0), endUnixMs: Self.utc(2025, 3, 9, 13, 0))
    )
    // 02:00-03:00 does not happen that night.
    #expect(Self.error { _ = try slot(newYork, springForward, 120, 180) }?.reason != nil)
    // 00:00-07:00 on the clock is 8 hours when an hour repeats; 01:00-08:30 is 8.5.
    #expect(try slot(newYork, fallBack, 0, 420).durationMs == 8 * 3_600_000)
    #expect(
      Self.error { _ = try slot(newYork, fallBack, 60, 510) }?.violations.map(\.field)
        == ["end_minute"])
    // Lord Howe moves its clocks by 30 minutes.
    let lordHowe = try slot(
      "Australia/Lord_Howe", LocalDate(year: 2025, month: 10, day: 5), 60, 540)
    #expect(lordHowe.durationMs == 7 * 3_600_000 + 1_800_000)
    // Santiago skips midnight: the day starts at 01:00, an hour before 02:00.
    let santiago = try slot("America/Santiago", LocalDate(year: 2025, month: 9, day: 7), 0, 120)
    #expect(
      santiago
        == TimeSlot(startUnixMs: Self.utc(2025, 9, 7, 4, 0), endUnixMs: Self.utc(2025, 9, 7, 5, 0)))
    // Minute 1440 is the midnight that ends the day.
    let lateShanghai = try slot(
      "Asia/Shanghai", LocalDate(year: 2025, month: 6, day: 10), 960, 1440)
    #expect(lateShanghai.endUnixMs == Self.utc(2025, 6, 10, 16, 0))
  }

  @Test("unknown zones, minutes outside the day and dates that do not exist are refused")
  func slot_validationErrors() {
    let now = Self.utc(2025, 6, 1, 0, 0)
    func fields(
      _ date: LocalDate = LocalDate(year: 2025, month: 6, day: 3), start: Int = 600,
      end: Int = 720, zone: String = "Asia/Shanghai"
    ) -> (String?, [String]?) {
      let error = Self.error {
        _ = try TimeSlotRules.slot(
          date: date, startMinute: start, endMinute: end, timeZone: zone, nowUnixMs: now)
      }
      return (error?.reason, error?.violations.map(\.field))
    }
    #expect(fields().0 == nil)
    #expect(fields(zone: "Mars/Olympus_Mons") == ("TIME_ZONE_UNKNOWN", ["time_zone"]))
    #expect(fields(zone: "") == ("TIME_ZONE_UNKNOWN", ["time_zone"]))
    #expect(fields(start: 1380, end: 1440).0 == nil)
    #expect(fields(start: -1, end: 120) == ("TIME_SLOT_INVALID", ["start_minute"]))
    #expect(fields(start: 1440, end: 1500) == ("TIME_SLOT_INVALID", ["start_minute"]))
    #expect(fields(start: 600, end: 1441) == ("TIME_SLOT_INVALID", ["end_minute"]))
    #expect(fields(start: 720, end: 600) == ("TIME_SLOT_INVALID", ["end_minute"]))
    #expect(
      fields(LocalDate(year: 2025, month: 6, day: 31)) == ("TIME_SLOT_INVALID", ["date"]))
    #expect(
      fields(LocalDate(year: 2025, month: 13, day: 1)) == ("TIME_SLOT_INVALID", ["date"]))
  }

  @Test("dates count days like the calendar does")
  func localDate_matchesCalendar() async {
    let calendar = Self.calendar("UTC")
    await propertyCheck(count: 1000, input: Self.nows, Gen.int(in: -800...800)) { now, offset in
      let today = Self.date(offset: 0, from: now, in: calendar)
      let later = Self.date(offset: offset, from: now, in: calendar)
      #expect(today.adding(days: offset) == later)
      #expect(later.days(since: today) == offset)
      #expect((today < later) == (offset > 0))
      let noon = calendar.date(
        from: DateComponents(year: later.year, month: later.month, day: later.day, hour: 12))!
      #expect(later.weekday == calendar.component(.weekday, from: noon))
    }
    #expect(LocalDate(year: 2024, month: 2, day: 29).isValid)
    #expect(!LocalDate(year: 2025, month: 2, day: 29).isValid)
    #expect(!LocalDate(year: 1900, month: 2, day: 29).isValid)
    #expect(LocalDate(year: 2000, month: 2, day: 29).isValid)
    #expect(LocalDate(year: 2025, month: 3, day: 9).description == "2025-03-09")
  }

  /// Slots on a small scale, so that boundaries at exactly 30 minutes come up often.
  static let slots = Generator { rng in
    let unit = [1, 60_000, 900_000].randomElement(using: &rng)!
    let start = Int64(Int.random(in: 0...400, using: &rng) * unit)
    let length = Int64(Int.random(in: 1...400, using: &rng) * unit)
    return TimeSlot(startUnixMs: start, endUnixMs: start + length)
  }

  @Test("property 13: two slots overlap when they share at least 30 minutes")
  func overlap_matchesOracle() async {
    await propertyCheck(count: 3000, input: Self.slots, Self.slots) { a, b in
      let start = max(a.startUnixMs, b.startUnixMs)
      let end = min(a.endUnixMs, b.endUnixMs)
      let common = max(0, end - start)
      let expected =
        common >= 1_800_000 ? TimeSlot(startUnixMs: start, endUnixMs: end) : nil
      #expect(a.overlap(with: b) == expected)
      #expect(b.overlap(with: a) == expected)
    }
    let half = TimeSlot(startUnixMs: 0, endUnixMs: 1_800_000)
    #expect(half.overlap(with: TimeSlot(startUnixMs: 0, endUnixMs: 3_600_000)) == half)
    #expect(half.overlap(with: TimeSlot(startUnixMs: 1, endUnixMs: 3_600_000)) == nil)
  }
}
