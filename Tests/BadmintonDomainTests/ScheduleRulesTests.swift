import BadmintonDomain
import PropertyBased
import Testing

@Suite("Weekly schedule rules")
struct ScheduleRulesTests {
  static let today = LocalDate(year: 2027, month: 2, day: 27)

  @Test("the week is today and the 6 days after it, across month ends")
  func week() {
    let week = ScheduleRules.week(startingOn: Self.today)
    #expect(
      week.map(\.description) == [
        "2027-02-27", "2027-02-28", "2027-03-01", "2027-03-02", "2027-03-03", "2027-03-04",
        "2027-03-05",
      ])
  }

  @Test("for any day, status and note, an update is refused exactly when a rule says so")
  func validateUpdate_matchesOracle() async {
    let input = zip(
      Gen.int(in: -400...400), Gen.int(in: -2...6), Gen.int(in: 0...260), Gen.bool())
    await propertyCheck(count: 2000, input: input) { offset, status, length, wide in
      let date = Self.today.adding(days: offset)
      // Wide characters are single grapheme clusters of several scalars.
      let note = String(repeating: wide ? "🏸" : "a", count: length)
      let expected: String? =
        if offset < 0 { "CANNOT_UPDATE_PAST_DATE" } else if offset > 366 {
          "DATE_TOO_FAR"
        } else if !(0...3).contains(status) { "DAY_STATUS_INVALID" } else if length > 200 {
          "NOTE_TOO_LONG"
        } else { nil }
      var reason: String?
      do {
        try ScheduleRules.validateUpdate(date: date, status: status, note: note, today: Self.today)
      } catch let error as DomainError {
        reason = error.reason
      } catch {
        Issue.record("unexpected \(error)")
      }
      #expect(reason == expected, "offset \(offset) status \(status) note \(length)")
    }
  }

  @Test("a note of few characters but many bytes is refused")
  func note_byteCap() {
    let stacked = "a" + String(repeating: "\u{301}", count: 5_000)
    #expect(stacked.count == 1)
    #expect(throws: DomainError.self) {
      try ScheduleRules.validateUpdate(
        date: Self.today, status: 1, note: stacked, today: Self.today)
    }
  }

  @Test("a date that is not on the calendar is refused")
  func invalidDate() {
    #expect(throws: DomainError.self) {
      try ScheduleRules.validateUpdate(
        date: LocalDate(year: 2027, month: 2, day: 29), status: 1, note: "", today: Self.today)
    }
  }
}
