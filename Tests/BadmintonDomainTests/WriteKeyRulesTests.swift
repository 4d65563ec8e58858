import BadmintonDomain
import PropertyBased
import Testing

@Suite("Idempotency key rules")
struct WriteKeyRulesTests {
  @Test("a key is taken exactly when it has 1 to 128 characters, each from space to tilde")
  func isValid_matchesOracle() async {
    // Printable ASCII, its neighbours, and characters beyond ASCII.
    let alphabet: [Character] = ["a", " ", "~", "-", "\u{1F}", "\u{7F}", "\t", "é", "小", "🏸"]
    let keys = Generator { rng in
      let length = [0, 1, 2, 64, 127, 128, 129, 200].randomElement(using: &rng)!
      let bias = Int.random(in: 0..<4, using: &rng)
      return String(
        (0..<length).map { _ in
          // Mostly plain keys, so that long valid ones are drawn too.
          bias == 0 ? alphabet.randomElement(using: &rng)! : "k"
        })
    }
    await propertyCheck(count: 1000, input: keys) { key in
      // Oracle: the rule spelled out over Unicode scalars.
      let scalars = key.unicodeScalars
      let expected =
        !scalars.isEmpty && scalars.count <= 128
        && scalars.allSatisfy { (0x20...0x7E).contains($0.value) }
      #expect(WriteKeyRules.isValid(key) == expected)
      do {
        try WriteKeyRules.validate(key)
        #expect(expected)
      } catch let error as DomainError {
        #expect(!expected)
        #expect(error.reason == "IDEMPOTENCY_KEY_INVALID")
        #expect(error.kind == .invalidArgument)
      } catch {
        Issue.record("not a domain error: \(error)")
      }
    }
  }

  @Test("a key answers for 24 hours from its first call, and no longer")
  func isLive_lastsADay() async {
    let created: Int64 = 1_800_000_000_000
    await propertyCheck(count: 500, input: Gen.int64(in: 0...(2 * WriteKeyRules.lifetimeMs))) {
      elapsed in
      #expect(
        WriteKeyRules.isLive(createdAtUnixMs: created, nowUnixMs: created + elapsed)
          == (elapsed < 24 * 3_600_000))
    }
  }

  @Test("the refusals name their reasons, in English and Simplified Chinese")
  func refusals_areLocalized() {
    let reused = WriteKeyRules.keyReused
    #expect(reused.kind == .failedPrecondition)
    #expect(reused.reason == "IDEMPOTENCY_KEY_REUSED")
    #expect(!reused.en.isEmpty && reused.zhCN.contains("幂等键"))
    let exhausted = WriteKeyRules.keysExhausted(retryAfterMs: 0)
    #expect(exhausted.kind == .resourceExhausted)
    #expect(exhausted.reason == "IDEMPOTENCY_KEYS_EXHAUSTED")
    #expect(exhausted.retryAfterMs == 1)
    #expect(WriteKeyRules.keyInvalid.zhCN.contains("ASCII"))
  }
}
