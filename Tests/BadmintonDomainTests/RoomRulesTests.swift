import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("Room rules")
struct RoomRulesTests {
  private static let alphabet = Set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

  private func reason(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "NOT_A_DOMAIN_ERROR"
    }
  }

  @Test("codes from the real generator are 6 characters of the alphabet, spread over all of it")
  func generatedCodes_haveTheFormat() {
    var generator = SystemRandomNumberGenerator()
    let codes = (0..<10_000).map { _ in RoomCode.generate(using: &generator) }
    for code in codes {
      #expect(code.count == 6)
      #expect(code.allSatisfy(Self.alphabet.contains))
      #expect(RoomCode.isWellFormed(code))
      #expect(RoomCode.normalized(code) == code)
    }
    for banned in "0O1IL" { #expect(!codes.contains { $0.contains(banned) }) }
    // 31^6 codes: 10,000 draws repeat one about once in 18 runs, so a few repeats are allowed;
    // codes of open rooms are made unique by the store, which draws again on a clash.
    #expect(Set(codes).count >= codes.count - 3)
    // Every character turns up at every position (about 320 times each).
    for position in 0..<6 {
      let seen = Set(codes.map { Array($0)[position] })
      #expect(seen == Self.alphabet)
    }
  }

  @Test("the code alphabet has 31 characters and none of 0, O, 1, I, L")
  func alphabet_leavesOutLookAlikes() {
    #expect(RoomCode.alphabet.count == 31)
    #expect(Set(RoomCode.alphabet) == Self.alphabet)
  }

  @Test("typed codes are accepted in any case and with space around, exactly when well formed")
  func normalisation_matchesOracle() async {
    let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 \t-_é")
    let texts = Generator { rng in
      String(
        (0..<Int.random(in: 0...9, using: &rng)).map { _ in
          characters.randomElement(using: &rng)!
        })
    }
    await propertyCheck(count: 2000, input: texts) { text in
      // Oracle: the format as a regular expression over the trimmed, upper-cased text.
      let candidate = text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
      let oracle = candidate.wholeMatch(of: /[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}/) != nil
      #expect((RoomCode.normalized(text) != nil) == oracle)
      if oracle { #expect(RoomCode.normalized(text) == candidate) }
    }
    await propertyCheck(count: 500, input: texts) { _ in
      var generator = SystemRandomNumberGenerator()
      let code = RoomCode.generate(using: &generator)
      let typed = String(code.map { Bool.random() ? Character($0.lowercased()) : $0 })
      #expect(RoomCode.normalized("  \(typed)\n") == code)
    }
    #expect(RoomCode.normalized("abc234") == "ABC234")
    #expect(RoomCode.normalized("ABC23") == nil)
    #expect(RoomCode.normalized("ABC2340") == nil)
    #expect(RoomCode.normalized("ABCDE1") == nil)
    #expect(RoomCode.normalized("abcdel") == nil)
  }

  @Test("a room is ready exactly when it holds 2 players for singles or 4 for doubles")
  func ready_matchesOracle() async {
    await propertyCheck(
      count: 500, input: Gen.int(in: 0...1), Gen.int(in: 0...8)
    ) { modeIndex, count in
      let mode: MatchMode = modeIndex == 0 ? .singles : .doubles
      let oracle = mode == .singles ? count == 2 : count == 4
      #expect(RoomRules.isReady(mode: mode, participantCount: count) == oracle)
    }
    #expect(RoomRules.requiredPlayers(for: .singles) == 2)
    #expect(RoomRules.requiredPlayers(for: .doubles) == 4)
  }

  @Test("a room expires once 30 minutes or more have passed since its last activity")
  func expiry_boundary() async {
    await propertyCheck(
      count: 1000, input: Gen.int(in: 0...4_000_000_000), Gen.int(in: 0...7_200_000)
    ) { last, elapsed in
      let lastActivity = Int64(1_700_000_000_000 + last)
      let now = lastActivity + Int64(elapsed)
      #expect(
        RoomRules.isExpired(lastActivityAtUnixMs: lastActivity, nowUnixMs: now)
          == (elapsed >= 30 * 60 * 1000))
      #expect(RoomRules.expiresAt(lastActivityAtUnixMs: lastActivity) == lastActivity + 1_800_000)
    }
    #expect(!RoomRules.isExpired(lastActivityAtUnixMs: 0, nowUnixMs: 1_799_999))
    #expect(RoomRules.isExpired(lastActivityAtUnixMs: 0, nowUnixMs: 1_800_000))
  }

  @Test(
    "a match slot lasts 1 to 8 hours within 14 days from a minute ago, else from now; never traps")
  func matchSlot_rules() throws {
    let now: Int64 = 1_800_000_000_000
    let hour: Int64 = 3_600_000
    #expect(
      try RoomRules.matchSlot(requested: nil, nowUnixMs: now)
        == TimeSlot(startUnixMs: now, endUnixMs: now + hour))
    let fine = TimeSlot(startUnixMs: now + hour, endUnixMs: now + 9 * hour)
    #expect(try RoomRules.matchSlot(requested: fine, nowUnixMs: now) == fine)
    let latest = TimeSlot(
      startUnixMs: now + RoomRules.maximumLeadMs, endUnixMs: now + RoomRules.maximumLeadMs + hour)
    #expect(try RoomRules.matchSlot(requested: latest, nowUnixMs: now) == latest)
    let justNow = TimeSlot(startUnixMs: now - 60_000, endUnixMs: now + hour)
    #expect(try RoomRules.matchSlot(requested: justNow, nowUnixMs: now) == justNow)
    for bad in [
      TimeSlot(startUnixMs: now, endUnixMs: now + hour - 1),
      TimeSlot(startUnixMs: now, endUnixMs: now + 8 * hour + 1),
      TimeSlot(startUnixMs: now + hour, endUnixMs: now),
      TimeSlot(startUnixMs: now - 60_001, endUnixMs: now + hour),
      // Hostile extremes: a refusal, never an overflow.
      TimeSlot(startUnixMs: .min, endUnixMs: 1),
      TimeSlot(startUnixMs: now, endUnixMs: .min),
      TimeSlot(startUnixMs: now, endUnixMs: .max),
      TimeSlot(startUnixMs: .max - hour, endUnixMs: .max),
      TimeSlot(startUnixMs: now + RoomRules.maximumLeadMs + 1, endUnixMs: now + 15 * 24 * hour),
    ] {
      #expect(
        reason { _ = try RoomRules.matchSlot(requested: bad, nowUnixMs: now) }
          == "TIME_SLOT_INVALID")
    }
  }

  @Test("singles teams follow join order; doubles teams are the most even split")
  func teams() {
    #expect(MatchRules.teams([(7, 3), (2, 5)]) == [7: 1, 2: 2])
    let doubles = MatchRules.teams([(1, 9), (2, 1), (3, 5), (4, 5)])
    #expect(doubles[1] == doubles[2])
    #expect(doubles[3] == doubles[4])
    #expect(doubles[1] != doubles[3])
  }
}
