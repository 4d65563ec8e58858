import BadmintonClient
import PropertyBased
import Testing

@Suite("Connection backoff")
struct BackoffTests {
  /// The oracle: gRPC's loop, the ceiling multiplied once per failure and capped, in seconds.
  static func oracleCeiling(_ backoff: ConnectionBackoff, failures: Int) -> Double {
    var ceiling = seconds(backoff.base)
    for _ in 0..<failures { ceiling = min(ceiling * backoff.multiplier, seconds(backoff.maximum)) }
    return min(ceiling, seconds(backoff.maximum))
  }

  static func seconds(_ duration: Duration) -> Double {
    let (whole, fraction) = duration.components
    return Double(whole) + Double(fraction) / 1e18
  }

  @Test("gRPC's parameters: base 1 s, multiplier 1.6, at most 120 s, connect timeout 20 s")
  func defaults_areGRPCs() {
    let backoff = ConnectionBackoff()
    #expect(backoff.base == .seconds(1))
    #expect(backoff.multiplier == 1.6)
    #expect(backoff.maximum == .seconds(120))
    #expect(backoff.minimumConnectTimeout == .seconds(20))
    #expect(backoff.ceiling(afterFailures: 0) == .seconds(1))
    #expect(abs(Self.seconds(backoff.ceiling(afterFailures: 1)) - 1.6) < 1e-9)
    #expect(abs(Self.seconds(backoff.ceiling(afterFailures: 2)) - 2.56) < 1e-9)
    #expect(backoff.ceiling(afterFailures: 11) == .seconds(120))
    #expect(backoff.ceiling(afterFailures: 10_000) == .seconds(120))
  }

  @Test(
    "every delay lies in [0, min(maximum, base * multiplier^n)] and is the jitter's share of it")
  func delay_withinCeiling_matchesOracle() async {
    let parameters = Generator { rng in
      ConnectionBackoff(
        base: .milliseconds(Int.random(in: 1...5000, using: &rng)),
        multiplier: Double.random(in: 1.0...3.0, using: &rng),
        maximum: .milliseconds(Int.random(in: 1...300_000, using: &rng)))
    }
    await propertyCheck(
      count: 2000, input: parameters, Gen.int(in: 0...400), Gen.double(in: 0...1)
    ) { backoff, failures, random in
      let ceiling = Self.seconds(backoff.ceiling(afterFailures: failures))
      let expected = Self.oracleCeiling(backoff, failures: failures)
      #expect(abs(ceiling - expected) <= expected * 1e-9)
      let delay = Self.seconds(backoff.delay(afterFailures: failures, random: random))
      #expect(delay >= 0)
      #expect(delay <= ceiling * (1 + 1e-12))
      #expect(abs(delay - ceiling * random) <= ceiling * 1e-9)
      // The ceiling never falls as failures add up.
      #expect(Self.seconds(backoff.ceiling(afterFailures: failures + 1)) >= ceiling * (1 - 1e-12))
    }
  }

  @Test("full jitter: a random share outside [0, 1] is clamped to it")
  func delay_clampsRandom() {
    let backoff = ConnectionBackoff()
    #expect(backoff.delay(afterFailures: 3, random: -1) == .zero)
    #expect(backoff.delay(afterFailures: 3, random: .nan) == .zero)
    #expect(backoff.delay(afterFailures: 3, random: 2) == backoff.ceiling(afterFailures: 3))
  }
}
