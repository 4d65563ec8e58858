import BadmintonRPC
import PropertyBased
import Synchronization
import Testing

/// Records each pause the client asks for and returns at once, so no test waits for real time.
private final class PauseLog: Sendable {
  private let pauses = Mutex<[Duration]>([])

  /// The pauses asked for so far.
  var recorded: [Duration] { pauses.withLock { $0 } }

  /// A configuration whose retries record their pauses here instead of sleeping.
  func configuration(retry: RetryPolicy = RetryPolicy()) -> ClientConfiguration {
    ClientConfiguration(
      retry: retry, retrySleep: { pause in self.pauses.withLock { $0.append(pause) } })
  }
}

@Suite("Retry hint (Status.retry_after_ms)")
struct RetryHintTests {
  @Test("a hint of any whole number of milliseconds goes from RPCError to Status and back")
  func hint_roundTripsThroughStatus() async {
    await propertyCheck(count: 300, input: Gen.int64(in: 1...Int64.max)) { milliseconds in
      let error = RPCError(
        code: .resourceExhausted, reason: "BUSY", message: LocalizedText(verbatim: "busy"),
        retryAfter: .milliseconds(milliseconds))
      let status = error.status(in: .zhCN)
      #expect(status.retryAfterMs == UInt64(milliseconds))
      let decoded = try? Status(serializedBytes: status.serializedBytes())
      #expect(decoded.map(RPCError.init(status:))?.retryAfter == .milliseconds(milliseconds))
    }
  }

  @Test("no hint is sent as 0 and read back as none")
  func noHint_isZero() throws {
    let error = RPCError(code: .unavailable, reason: "X", message: LocalizedText(verbatim: "x"))
    #expect(error.status(in: .en).retryAfterMs == 0)
    #expect(RPCError(status: error.status(in: .en)).retryAfter == nil)
    #expect(error.retrying(after: .zero).retryAfterMs == 0)
    #expect(error.retrying(after: .milliseconds(-5)).retryAfterMs == 0)
    // A number past what a Duration of milliseconds holds is read as the longest wait.
    let huge = RPCError(status: Status(code: .resourceExhausted, retryAfterMs: .max))
    #expect(huge.retryAfter == .milliseconds(Int64.max))
  }

  @Test("a hint that is not whole milliseconds is sent rounded up, never shorter")
  func fractionalHint_roundsUp() async {
    await propertyCheck(count: 300, input: Gen.int64(in: 1...(Int64.max / 1000))) { nanoseconds in
      let wait = Duration.nanoseconds(nanoseconds)
      let error = RPCError(
        code: .resourceExhausted, reason: "BUSY", message: LocalizedText(verbatim: "busy"),
        retryAfter: wait)
      // Oracle: the ceiling of nanoseconds / 1e6.
      let expected = UInt64((nanoseconds + 999_999) / 1_000_000)
      #expect(error.retryAfterMs == expected)
      #expect(Duration.milliseconds(Int64(expected)) >= wait)
    }
  }

  @Test("a retry's pause is the backoff, or the hint when longer")
  func pause_isAtLeastTheHint() async {
    await propertyCheck(
      count: 300, input: Gen.int(in: 1...6), Gen.int64(in: 0...10_000)
    ) { retry, hintMs in
      let policy = RetryPolicy()
      let error = RPCError(
        code: .unavailable, reason: "X", message: LocalizedText(verbatim: "x"),
        retryAfter: hintMs == 0 ? nil : .milliseconds(hintMs))
      // Oracle: the capped exponential step, halved at most by the jitter.
      let step = min(100 * (1 << (retry - 1)), 2000)
      let pause = policy.pause(beforeRetry: retry, after: error)
      #expect(pause >= .milliseconds(hintMs))
      #expect(pause >= .milliseconds(step / 2))
      #expect(pause <= max(.milliseconds(step), .milliseconds(hintMs)))
    }
  }

  @Test("the hint survives the wire: the server's refusal reaches the client's RPCError")
  func hint_crossesTheWire() async throws {
    let log = PauseLog()
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port, configuration: log.configuration()) { client in
        let refused = await rpcError {
          _ = try await client.unary(TestService.idempotentUnary, .init(service: "busy:1500:9"))
        }
        #expect(refused?.code == .resourceExhausted)
        #expect(refused?.reason == "TEST_BUSY")
        #expect(refused?.retryAfter == .milliseconds(1500))
        #expect(refused?.violations == [])
      }
    }
    // RESOURCE_EXHAUSTED is not retried: the hint is only surfaced.
    #expect(log.recorded.isEmpty)
  }

  @Test("a retried call waits at least the hint before each retry")
  func retry_waitsForTheHint() async throws {
    let log = PauseLog()
    try await withTestServer { _, port, probe in
      try await withTestClient(port: port, configuration: log.configuration()) { client in
        let answer = try await client.unary(
          TestService.idempotentUnary, .init(service: "unavailable:5000:2"))
        #expect(answer.service == "done")
      }
      #expect(probe.started == 3)
    }
    // The default backoff is at most 400 ms before the second retry: the hint decides.
    #expect(log.recorded == [.milliseconds(5000), .milliseconds(5000)])
  }

  @Test("a call that may not be retried surfaces the hint without waiting")
  func nonRetryable_surfacesTheHint() async throws {
    let log = PauseLog()
    try await withTestServer { _, port, probe in
      try await withTestClient(port: port, configuration: log.configuration()) { client in
        let refused = await rpcError {
          _ = try await client.unary(TestService.unary, .init(service: "unavailable:5000:1"))
        }
        #expect(refused?.reason == "TEST_UNAVAILABLE")
        #expect(refused?.retryAfter == .milliseconds(5000))
      }
      #expect(probe.started == 1)
    }
    #expect(log.recorded.isEmpty)
  }

  @Test("a hint that would pass the call's deadline ends the call at once with the refusal")
  func hintPastDeadline_failsAtOnce() async throws {
    let log = PauseLog()
    try await withTestServer { _, port, probe in
      try await withTestClient(port: port, configuration: log.configuration()) { client in
        let refused = await rpcError {
          _ = try await client.unary(
            TestService.idempotentUnary, .init(service: "unavailable:3600000:1"),
            options: CallOptions(timeout: .seconds(60)))
        }
        #expect(refused?.reason == "TEST_UNAVAILABLE")
        #expect(refused?.retryAfter == .seconds(3600))
      }
      #expect(probe.started == 1)
    }
    #expect(log.recorded.isEmpty)
  }
}
