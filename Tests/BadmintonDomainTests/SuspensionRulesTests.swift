import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("Suspension rules")
struct SuspensionRulesTests {
  private func reasons(_ body: () throws -> Void) -> Set<String>? {
    do {
      try body()
      return nil
    } catch let error as DomainError {
      return Set(error.violations.map(\.reason))
    } catch {
      return ["NOT_A_DOMAIN_ERROR"]
    }
  }

  @Test(
    "a suspension is accepted exactly when its reason has 1-500 characters not all space and it ends within ten years from now"
  )
  func validate_matchesOracle() async {
    let alphabet: [Character] = [" ", "\n", "a", "Z", "小", "é", "🏸"]
    let texts = Generator { rng in
      let length = [0, 1, 2, 499, 500, 501].randomElement(using: &rng)!
      return String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
    }
    let now: Int64 = 1_800_000_000_000
    let offsets = Gen.int64(
      in: -SuspensionRules.maximumDurationMs...(SuspensionRules.maximumDurationMs + 10))
    await propertyCheck(count: 1000, input: texts, offsets) { reason, offset in
      // Oracle: the rule spelled out with Foundation's trimming.
      let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
      var expected: Set<String> = []
      if trimmed.isEmpty || trimmed.count > 500 || trimmed.utf8.count > 2000 {
        expected.insert("SUSPENSION_REASON_INVALID")
      }
      if offset <= 0 || offset > SuspensionRules.maximumDurationMs {
        expected.insert("SUSPENSION_END_INVALID")
      }
      var kept: String?
      let found = reasons {
        kept = try SuspensionRules.validate(
          reason: reason, untilUnixMs: now + offset, nowUnixMs: now)
      }
      #expect((found ?? []) == expected)
      if found == nil { #expect(kept == trimmed) }
    }
  }

  @Test("a suspension holds exactly while the clock is before its end")
  func holds_matchesOracle() async {
    await propertyCheck(
      count: 1000, input: Gen.int64(in: -1_000_000...1_000_000),
      Gen.int64(in: -1_000_000...1_000_000)
    ) { until, now in
      #expect(SuspensionRules.holds(untilUnixMs: until, nowUnixMs: now) == (now < until))
    }
  }

  @Test("the end time is shown in UTC to the minute, as a calendar would show it")
  func utcText_matchesFoundation() async {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    await propertyCheck(count: 1000, input: Gen.int64(in: -2_000_000_000_000...4_000_000_000_000)) {
      unixMs in
      let date = Date(timeIntervalSince1970: TimeInterval(unixMs) / 1000)
      let floored = Date(
        timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60)
      #expect(SuspensionRules.utcText(unixMs) == formatter.string(from: floored))
    }
  }

  @Test("ACCOUNT_SUSPENDED is a permission error that names the end in both languages")
  func accountSuspended_message() {
    let error = SuspensionRules.accountSuspended(untilUnixMs: 1_800_000_000_000)
    #expect(error.kind == .permissionDenied && error.reason == "ACCOUNT_SUSPENDED")
    #expect(error.en == "This account is suspended until 2027-01-15 08:00 UTC.")
    #expect(error.zhCN == "此账号已被停用，直至 2027-01-15 08:00（UTC）。")
  }

  @Test("a note has at most 500 characters and 2000 bytes")
  func note_bounds() {
    #expect(reasons { try SuspensionRules.validateNote(String(repeating: "x", count: 500)) } == nil)
    #expect(reasons { try SuspensionRules.validateNote("") } == nil)
    #expect(
      reasons { try SuspensionRules.validateNote(String(repeating: "x", count: 501)) }
        == ["NOTE_TOO_LONG"])
    #expect(
      reasons { try SuspensionRules.validateNote(String(repeating: "🏸", count: 501)) }
        == ["NOTE_TOO_LONG"])
  }
}
