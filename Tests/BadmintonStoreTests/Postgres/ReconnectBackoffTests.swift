import BadmintonStoreSQL
import Testing

@testable import BadmintonPostgres

/// The change tail's reconnect schedule, driven without real time: the waits are read from the
/// schedule and added up, with the jitter's random numbers chosen by the test.
@Suite("Reconnecting to the database")
struct ReconnectBackoffTests {
  /// Always the same number: `lowest` gives the shortest jittered wait, `.max` the longest.
  /// (Not 0: the standard library draws again on 0, for ever.)
  struct ConstantRandom: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 { value }
    static let lowest = ConstantRandom(value: 1 << 10)
    static let highest = ConstantRandom(value: .max)
  }

  /// SplitMix64: reproducible random numbers.
  struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  @Test(
    "the first wait is 100 ms; each next one is 1.6 times longer up to 5 s, moved by at most 20%")
  func waits_growToTheCap_withinTheJitter() {
    var random = SeededRandom(state: 42)
    var waits = ReconnectBackoff.changeTail.makeIterator()
    #expect(waits.next(using: &random) == .milliseconds(100))
    var base = 0.1
    for _ in 0..<40 {
      base = min(base * 1.6, 5)
      let wait = Self.seconds(waits.next(using: &random))
      #expect(wait >= base * 0.8 - 1e-9 && wait <= base * 1.2 + 1e-9, "\(wait) for \(base)")
    }
  }

  @Test("the jitter's extremes stay within the longest wait, and reach both ends of the range")
  func extremes_stayWithinLongestWait() {
    for (generator, end) in [(ConstantRandom.lowest, 0.8), (.highest, 1.2)] {
      var random = generator
      var waits = ReconnectBackoff.changeTail.makeIterator()
      var last = Duration.zero
      for _ in 0..<40 { last = waits.next(using: &random) }
      #expect(last <= ReconnectBackoff.changeTail.longestWait)
      #expect(abs(Self.seconds(last) - 5 * end) < 1e-3, "\(last)")
    }
    #expect(ReconnectBackoff.changeTail.longestWait == .seconds(6))
  }

  @Test("a new run of attempts starts again from the first wait")
  func newIterator_startsOver() {
    var random = ConstantRandom.highest
    var first = ReconnectBackoff.changeTail.makeIterator()
    for _ in 0..<10 { _ = first.next(using: &random) }
    var second = ReconnectBackoff.changeTail.makeIterator()
    #expect(second.next(using: &random) == .milliseconds(100))
  }

  /// The attempts of a tail that loses the database at 0 and finds it back at `outage`: the
  /// first successful attempt's distance from `outage`. Each failed attempt takes
  /// `attemptTakes` (0 for a refused connection, up to the connect timeout for one that hangs).
  static func firstAttemptAfter(
    outage: Double, attemptTakes: Double, random: inout some RandomNumberGenerator
  ) -> Double {
    var waits = ReconnectBackoff.changeTail.makeIterator()
    var now = 0.0
    while now < outage {
      now += attemptTakes + seconds(waits.next(using: &random))
    }
    return now - outage
  }

  @Test(
    "after an outage of any length, the tail tries again within 10 s of the database being back",
    arguments: [0.3, 1, 5, 7, 30, 60, 600, 3600]
  )
  func anyOutage_retriesWithinTenSeconds(outage: Double) {
    let timeout = Self.seconds(ReconnectBackoff.changeTail.attemptTimeout)
    for attemptTakes in [0, timeout] {
      var generators: [any RandomNumberGenerator] = [
        ConstantRandom.lowest, ConstantRandom.highest,
      ]
      for seed in 0..<50 { generators.append(SeededRandom(state: UInt64(seed))) }
      for var random in generators {
        let after = Self.firstAttemptAfter(
          outage: outage, attemptTakes: attemptTakes, random: &random)
        #expect(after < 10, "outage \(outage) s, attempts of \(attemptTakes) s: \(after) s")
      }
    }
    // The bound that holds for every outage: the longest wait after the attempt that failed
    // last, which itself took at most the connect timeout.
    #expect(
      ReconnectBackoff.changeTail.longestWait + ReconnectBackoff.changeTail.attemptTimeout
        < .seconds(10))
  }
}
