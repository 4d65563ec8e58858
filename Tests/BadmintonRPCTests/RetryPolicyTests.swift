import BadmintonRPC
import PropertyBased
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
  @Test("each backoff lies between half and all of the capped exponential step")
  func backoff_followsFormula() async {
    await propertyCheck(
      count: 300, input: Gen.int(in: 1...200), Gen.int(in: 1...10), Gen.int(in: 1...8)
    ) {
      initialMilliseconds, retry, multiplierTimesTwo in
      let multiplier = Double(multiplierTimesTwo) / 2 + 1  // 1.5 ... 5
      let policy = RetryPolicy(
        initialBackoff: .milliseconds(initialMilliseconds), maximumBackoff: .seconds(2),
        multiplier: multiplier)
      // Oracle: min(initial * multiplier^(retry-1), cap).
      let step = min(Double(initialMilliseconds) * pow(multiplier, Double(retry - 1)), 2000)
      let backoff = policy.backoff(beforeRetry: retry)
      let milliseconds =
        Double(backoff.components.seconds) * 1000 + Double(backoff.components.attoseconds) / 1e15
      #expect(milliseconds >= step * 0.5 - 0.001)
      #expect(milliseconds <= step + 0.001)
    }
  }

  @Test("the defaults are 3 retries from 100 ms, doubling, capped at 2 s")
  func defaults() {
    let policy = RetryPolicy()
    #expect(policy.maximumRetries == 3)
    #expect(policy.initialBackoff == .milliseconds(100))
    #expect(policy.multiplier == 2)
    #expect(policy.maximumBackoff == .seconds(2))
  }
}

private func pow(_ base: Double, _ exponent: Double) -> Double {
  var result = 1.0
  for _ in 0..<Int(exponent) { result *= base }
  return result
}
