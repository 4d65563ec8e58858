import BadmintonMetrics
import CoreMetrics
import PropertyBased
import Synchronization
import Testing

@Suite("Recent metrics for the live page")
struct RecentMetricsTests {
  /// A clock tests move by hand, in milliseconds.
  final class Clock: Sendable {
    let now = Mutex<Int64>(1_800_000_000_000)
    func advance(_ milliseconds: Int64) { now.withLock { $0 += milliseconds } }
    var read: @Sendable () -> Int64 { { self.now.withLock { $0 } } }
  }

  static let method = "/badminton.v1.Players/GetMyProfile"

  @Test("for any latencies, the median and p99 are within a bin of the exact ones")
  func quantiles_matchOracle() async {
    let latencies = Gen.int64(in: 1...5_000_000).array(of: 1...400)
    await propertyCheck(count: 300, input: latencies) { micros in
      let clock = Clock()
      let metrics = RecentMetrics(nowMs: clock.read)
      let timer = metrics.makeTimer(
        label: "badminton_rpc_call_duration_seconds", dimensions: [("method", Self.method)])
      let counter = metrics.makeCounter(
        label: "badminton_rpc_calls_total", dimensions: [("method", Self.method), ("code", "OK")])
      for value in micros {
        timer.recordNanoseconds(value * 1000)
        counter.increment(by: 1)
      }
      let series = try #require(metrics.figures().methods.first)
      #expect(series.calls == micros.count)
      let point = try #require(series.points.last)
      // Oracle: the exact quantile of the sorted values (nearest rank).
      let sorted = micros.sorted()
      for (q, found) in [(0.5, point.p50Micros), (0.99, point.p99Micros)] {
        let exact = Double(sorted[max(1, Int((q * Double(sorted.count)).rounded(.up))) - 1])
        let shown = try #require(found)
        // A bin spans at most a quarter of its lower bound; its middle is within 12.5%.
        #expect(abs(shown - exact) <= exact * 0.125 + 1, "q \(q): \(shown) vs \(exact)")
      }
    }
  }

  @Test("calls are counted in the interval they happen in, and leave the window after it")
  func window_rollsWithTheClock() throws {
    let clock = Clock()
    let metrics = RecentMetrics(intervalMs: 5_000, points: 12, nowMs: clock.read)
    let counter = metrics.makeCounter(
      label: "badminton_rpc_calls_total", dimensions: [("method", Self.method), ("code", "OK")])
    let failed = metrics.makeCounter(
      label: "badminton_rpc_calls_total",
      dimensions: [("method", Self.method), ("code", "NOT_FOUND")])
    // Aligned to an interval's start, one second in.
    clock.now.withLock { $0 = $0 / 5_000 * 5_000 + 1_000 }
    counter.increment(by: 10)
    clock.advance(5_000)
    counter.increment(by: 3)
    failed.increment(by: 2)
    var series = try #require(metrics.figures().methods.first)
    #expect(series.points.count == 12)
    #expect(series.calls == 15)
    // The running interval's rate is over the second it has run; the one before, over 5 s.
    #expect(series.points[11].callsPerSecond == 5)
    #expect(series.points[10].callsPerSecond == 2)
    #expect(series.points[..<10].allSatisfy { $0.callsPerSecond == 0 && $0.p50Micros == nil })
    // Eleven intervals later the first one has left the window; twelve, both.
    clock.advance(11 * 5_000)
    series = try #require(metrics.figures().methods.first)
    #expect(series.calls == 5)
    clock.advance(5_000)
    #expect(metrics.figures().methods.isEmpty)
  }

  @Test("methods come busiest first; connections, streams and commits are kept; others dropped")
  func figures_orderAndLevels() throws {
    let clock = Clock()
    let metrics = RecentMetrics(nowMs: clock.read)
    for (method, calls) in [("/a", 1), ("/b", 5), ("/c", 3)] {
      metrics.makeCounter(
        label: "badminton_rpc_calls_total", dimensions: [("method", method), ("code", "OK")]
      ).increment(by: Int64(calls))
    }
    let connections = metrics.makeMeter(label: "badminton_open_connections", dimensions: [])
    connections.increment(by: 3)
    connections.decrement(by: 1)
    metrics.makeMeter(label: "badminton_open_streams", dimensions: []).increment(by: 4)
    let commits = metrics.makeTimer(
      label: "badminton_store_commit_duration_seconds", dimensions: [])
    for micros in [100, 100, 100, 5_000] { commits.recordNanoseconds(Int64(micros) * 1000) }
    metrics.makeCounter(label: "something_else", dimensions: []).increment(by: 9)
    let figures = metrics.figures()
    #expect(figures.methods.map(\.method) == ["/b", "/c", "/a"])
    #expect(figures.openConnections == 2 && figures.openStreams == 4)
    let latency = try #require(figures.commits)
    #expect(latency.count == 4)
    #expect(latency.p50Micros > 90 && latency.p50Micros < 115)
    #expect(latency.p99Micros > 4_500 && latency.p99Micros < 5_700)
    #expect(figures.endUnixMs == clock.read())
  }
}
