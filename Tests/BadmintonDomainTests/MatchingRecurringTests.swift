import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("Weekly time slots (property 15)")
struct MatchingRecurringTests {
  /// Weekly slots that pass every per-entry rule, some inactive.
  static let validSlots = Generator { rng in
    let start = Int.random(in: 0...1380, using: &rng)
    return RecurringSlot(
      weekday: Int.random(in: 1...7, using: &rng), startMinute: start,
      endMinute: min(start + Int.random(in: 60...480, using: &rng), 1440),
      mode: Bool.random(using: &rng) ? .singles : .doubles,
      isActive: Int.random(in: 0...3, using: &rng) > 0)
  }

  /// Weekly slots with any numbers, valid or not.
  static let anySlots = Generator { rng in
    RecurringSlot(
      weekday: Int.random(in: -1...9, using: &rng),
      startMinute: Int.random(in: -30...1460, using: &rng),
      endMinute: Int.random(in: -30...1460, using: &rng), mode: .singles, isActive: true)
  }

  static func error(_ body: () throws -> Void) -> DomainError? {
    MatchingTimeSlotTests.error(body)
  }

  @Test("property 15: a set holds at most 5 weekly slots; an empty set is allowed")
  func count_matchesOracle() async {
    await propertyCheck(count: 500, input: Self.validSlots.array(of: 0...8)) { slots in
      let error = Self.error { try RecurringSlotRules.validate(slots) }
      if slots.count <= 5 {
        #expect(error == nil)
      } else {
        #expect(error?.reason == "RECURRING_SLOTS_LIMIT")
        #expect(error?.violations.map(\.field) == ["slots"])
        #expect(error?.zhCN == "最多保存5个常用时间段")
      }
    }
  }

  @Test("each weekly slot needs a weekday 1-7 and 1 to 8 hours within the day")
  func entries_matchOracle() async {
    await propertyCheck(count: 2000, input: Self.anySlots.array(of: 1...5)) { slots in
      // Oracle: the first entry that breaks a rule, and the field it names.
      var expected: String?
      for (index, slot) in slots.enumerated() {
        let field: String? =
          if !(1...7).contains(slot.weekday) {
            "weekday"
          } else if !(0...1439).contains(slot.startMinute) {
            "start_minute"
          } else if !(0...1440).contains(slot.endMinute)
            || !(60...480).contains(slot.endMinute - slot.startMinute)
          {
            "end_minute"
          } else {
            nil
          }
        if let field {
          expected = "slots[\(index)].\(field)"
          break
        }
      }
      let error = Self.error { try RecurringSlotRules.validate(slots) }
      #expect(error?.violations.map(\.field) == expected.map { [$0] })
      #expect(error == nil || error?.reason == "TIME_SLOT_INVALID")
    }
  }

  @Test("property 15: the postings are the active slots posting accepts on the next 14 days")
  func occurrences_matchOracle() async throws {
    await propertyCheck(
      count: 400, input: Self.validSlots.array(of: 0...5), MatchingTimeSlotTests.nows,
      Gen.int(in: 0...(MatchingTimeSlotTests.zones.count - 1))
    ) { slots, now, zoneIndex throws in
      let zone = MatchingTimeSlotTests.zones[zoneIndex]
      let calendar = MatchingTimeSlotTests.calendar(zone)
      // Oracle: walk the 14 dates with Foundation, match the weekday, and keep what posting
      // that day accepts.
      var expected: [RecurringOccurrence] = []
      for offset in 0...13 {
        let date = MatchingTimeSlotTests.date(offset: offset, from: now, in: calendar)
        let noon = calendar.date(
          from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12))!
        for (index, slot) in slots.enumerated()
        where slot.isActive && slot.weekday == calendar.component(.weekday, from: noon) {
          if let posted = try? TimeSlotRules.slot(
            date: date, startMinute: slot.startMinute, endMinute: slot.endMinute,
            timeZone: zone, nowUnixMs: now)
          {
            expected.append(
              RecurringOccurrence(entry: index, date: date, slot: posted, mode: slot.mode))
          }
        }
      }
      #expect(
        try RecurringSlotRules.occurrences(of: slots, timeZone: zone, nowUnixMs: now) == expected)
    }

    // 02:00-03:00 on Sundays does not happen when New York moves its clocks forward.
    let sundayNight = RecurringSlot(
      weekday: 1, startMinute: 120, endMinute: 180, mode: .doubles, isActive: true)
    let dates = try RecurringSlotRules.occurrences(
      of: [sundayNight], timeZone: "America/New_York",
      nowUnixMs: MatchingTimeSlotTests.utc(2025, 3, 5, 12, 0)
    ).map(\.date)
    #expect(
      dates == [LocalDate(year: 2025, month: 3, day: 16)])
    #expect(
      MatchingTimeSlotTests.error {
        _ = try RecurringSlotRules.occurrences(of: [], timeZone: "Nowhere", nowUnixMs: 0)
      }?.reason == "TIME_ZONE_UNKNOWN")
  }
}
