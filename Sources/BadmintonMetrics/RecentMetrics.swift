public import CoreMetrics
import Synchronization

/// The last few minutes of the server's own metrics, in memory, for the operator console's
/// live page: calls per second and latency by method, open connections and streams, and the
/// store's commit times. A swift-metrics factory (beside Prometheus's, or alone when only the
/// console is on) that keeps, per method, one small latency histogram per interval of the
/// window; everything else it is handed it drops.
///
/// **Cost.** A method's handlers are made once, so a call adds one lock of that method's window
/// (its own, not shared with other methods), an index computed from the clock, and one counter
/// increment in a preallocated array. **Memory.** A window is `points` intervals of
/// `Histogram.bins` counters (4 bytes each), made for a method on its first call: about 27 KB a
/// method, bounded by the methods the server serves (`unknown` for the rest).
public final class RecentMetrics: MetricsFactory, Sendable {
  /// One interval of the window, in milliseconds.
  public let intervalMs: Int64
  /// Intervals in the window.
  public let points: Int
  private let nowMs: @Sendable () -> Int64
  private let windows = Mutex<[String: Window]>([:])
  private let commits: Window
  private let connections = Level()
  private let streams = Level()

  /// A window of `points` intervals of `intervalMs`, read by the clock `nowMs` (milliseconds).
  public init(
    intervalMs: Int64 = 5_000, points: Int = 60, nowMs: @escaping @Sendable () -> Int64
  ) {
    self.intervalMs = max(1, intervalMs)
    self.points = max(1, points)
    self.nowMs = nowMs
    commits = Window(points: self.points)
  }

  // MARK: What the live page reads

  /// One interval of one method: its calls per second and, when some were timed, the median
  /// and 99th percentile of their latency in microseconds.
  public struct Point: Sendable, Hashable {
    public var callsPerSecond: Double
    public var p50Micros: Double?
    public var p99Micros: Double?
  }

  /// One method over the window.
  public struct Series: Sendable, Hashable {
    public var method: String
    /// Calls answered in the window.
    public var calls: Int
    /// Oldest first, one per interval; the last one is the interval running now, its rate over
    /// the time it has run.
    public var points: [Point]
  }

  /// The figures of the window ending now.
  public struct Figures: Sendable, Hashable {
    public var intervalMs: Int64
    /// The end of the newest interval: now.
    public var endUnixMs: Int64
    /// Methods with calls in the window, busiest first.
    public var methods: [Series]
    public var openConnections: Int
    public var openStreams: Int
    /// Store commits timed in the window; nil when none was.
    public var commits: Latency?
  }

  /// How many were timed, and the median and 99th percentile of their times in microseconds.
  public struct Latency: Sendable, Hashable {
    public var count: Int
    public var p50Micros: Double
    public var p99Micros: Double
  }

  /// The window's figures now.
  public func figures() -> Figures {
    let now = nowMs()
    let current = now / intervalMs
    let elapsedMs = max(1000, now - current * intervalMs)
    let windows = self.windows.withLock { $0 }
    var methods: [Series] = []
    for (method, window) in windows {
      let intervals = window.intervals(endingAt: current)
      let calls = intervals.reduce(0) { $0 + $1.calls }
      guard calls > 0 else { continue }
      let points = intervals.enumerated().map { index, interval in
        let seconds =
          index == intervals.count - 1 ? Double(elapsedMs) / 1000 : Double(intervalMs) / 1000
        return Point(
          callsPerSecond: Double(interval.calls) / seconds,
          p50Micros: interval.histogram.quantile(0.5), p99Micros: interval.histogram.quantile(0.99))
      }
      methods.append(Series(method: method, calls: calls, points: points))
    }
    methods.sort { ($0.calls, $1.method) > ($1.calls, $0.method) }
    let commitIntervals = commits.intervals(endingAt: current)
    var all = Histogram()
    for interval in commitIntervals { all.add(interval.histogram) }
    let commits =
      all.count == 0
      ? nil
      : Latency(
        count: all.count, p50Micros: all.quantile(0.5) ?? 0, p99Micros: all.quantile(0.99) ?? 0)
    return Figures(
      intervalMs: intervalMs, endUnixMs: now, methods: methods,
      openConnections: connections.current, openStreams: streams.current, commits: commits)
  }

  // MARK: MetricsFactory

  /// The metrics it keeps; the names are the server's (`ServerMetrics.Name`,
  /// `PrometheusSetup`).
  enum Name {
    static let calls = "badminton_rpc_calls_total"
    static let callDuration = "badminton_rpc_call_duration_seconds"
    static let openConnections = "badminton_open_connections"
    static let openStreams = "badminton_open_streams"
    static let storeCommitDuration = PrometheusSetup.storeCommitDuration
  }

  private func window(_ dimensions: [(String, String)]) -> Window? {
    guard let method = dimensions.first(where: { $0.0 == "method" })?.1 else { return nil }
    return windows.withLock { windows in
      if let window = windows[method] { return window }
      let window = Window(points: points)
      windows[method] = window
      return window
    }
  }

  public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
    guard label == Name.calls, let window = window(dimensions) else {
      return NOOPMetricsHandler.instance
    }
    return CallCounter(window: window, interval: currentInterval)
  }

  public func makeFloatingPointCounter(label: String, dimensions: [(String, String)])
    -> any FloatingPointCounterHandler
  {
    NOOPMetricsHandler.instance
  }

  public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
    switch label {
    case Name.openConnections: connections
    case Name.openStreams: streams
    default: NOOPMetricsHandler.instance
    }
  }

  public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool)
    -> any RecorderHandler
  {
    NOOPMetricsHandler.instance
  }

  public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
    switch label {
    case Name.callDuration:
      guard let window = window(dimensions) else { return NOOPMetricsHandler.instance }
      return LatencyTimer(window: window, interval: currentInterval)
    case Name.storeCommitDuration:
      return LatencyTimer(window: commits, interval: currentInterval)
    default:
      return NOOPMetricsHandler.instance
    }
  }

  public func destroyCounter(_ handler: any CounterHandler) {}
  public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
  public func destroyMeter(_ handler: any MeterHandler) {}
  public func destroyRecorder(_ handler: any RecorderHandler) {}
  public func destroyTimer(_ handler: any TimerHandler) {}

  /// The number of the interval running now.
  private var currentInterval: @Sendable () -> Int64 {
    { [nowMs, intervalMs] in nowMs() / intervalMs }
  }
}

/// Latencies in microseconds, counted in bins four to a power of two (each bin within 19% of
/// its neighbours) from 1 µs to about 134 s.
struct Histogram: Sendable, Hashable {
  static let subBins = 4
  static let powers = 28
  static let bins = subBins * powers
  private(set) var counts: [UInt32] = []
  private(set) var count = 0

  /// The bin of `micros`.
  static func bin(_ micros: Int64) -> Int {
    guard micros > 1 else { return 0 }
    let power = 63 - micros.leadingZeroBitCount
    guard power < powers else { return bins - 1 }
    // The two bits below the leading one pick the sub-bin.
    let sub = power >= 2 ? Int((micros >> (power - 2)) & 3) : Int((micros << (2 - power)) & 3)
    return min(bins - 1, power * subBins + sub)
  }

  /// The smallest value of bin `bin`.
  static func lowerBound(_ bin: Int) -> Double {
    let power = bin / subBins
    let sub = bin % subBins
    return Double(Int64(1) << power) * (1 + Double(sub) / Double(subBins))
  }

  mutating func record(_ micros: Int64) {
    if counts.isEmpty { counts = Array(repeating: 0, count: Self.bins) }
    counts[Self.bin(micros)] &+= 1
    count += 1
  }

  mutating func add(_ other: Histogram) {
    guard other.count > 0 else { return }
    if counts.isEmpty { counts = Array(repeating: 0, count: Self.bins) }
    for index in 0..<Self.bins { counts[index] &+= other.counts[index] }
    count += other.count
  }

  /// The value below which a `q` share of the recorded values lie, as the middle of its bin;
  /// nil when nothing was recorded.
  func quantile(_ q: Double) -> Double? {
    guard count > 0 else { return nil }
    let rank = max(1, Int((q * Double(count)).rounded(.up)))
    var seen = 0
    for (bin, binCount) in counts.enumerated() where binCount > 0 {
      seen += Int(binCount)
      if seen >= rank {
        let low = Self.lowerBound(bin)
        let high = bin + 1 < Self.bins ? Self.lowerBound(bin + 1) : low * 1.19
        return (low + high) / 2
      }
    }
    return nil
  }
}

/// One method's (or the commits') window: a ring of intervals, each reused once the window has
/// moved past it.
final class Window: Sendable {
  struct Interval: Sendable {
    var number: Int64 = -1
    var calls = 0
    var histogram = Histogram()
  }

  private let ring: Mutex<[Interval]>

  init(points: Int) { ring = Mutex(Array(repeating: Interval(), count: points)) }

  private func update(_ number: Int64, _ change: (inout Interval) -> Void) {
    ring.withLock { ring in
      let slot = Int(number % Int64(ring.count))
      if ring[slot].number != number { ring[slot] = Interval(number: number) }
      change(&ring[slot])
    }
  }

  func count(at number: Int64, by amount: Int) { update(number) { $0.calls += amount } }

  func time(at number: Int64, micros: Int64) { update(number) { $0.histogram.record(micros) } }

  /// The intervals from `current - points + 1` to `current`, oldest first; empty ones for those
  /// with nothing recorded.
  func intervals(endingAt current: Int64) -> [Interval] {
    ring.withLock { ring in
      let count = Int64(ring.count)
      return (current - count + 1...current).map { number in
        let slot = Int(((number % count) + count) % count)
        return ring[slot].number == number ? ring[slot] : Interval(number: number)
      }
    }
  }
}

/// Calls answered of one method and status code: counted in the method's window.
private final class CallCounter: CounterHandler, Sendable {
  let window: Window
  let interval: @Sendable () -> Int64
  init(window: Window, interval: @escaping @Sendable () -> Int64) {
    self.window = window
    self.interval = interval
  }
  func increment(by amount: Int64) { window.count(at: interval(), by: Int(amount)) }
  func reset() {}
}

/// A method's call latency, or the commits' durations: timed in the window.
private final class LatencyTimer: TimerHandler, Sendable {
  let window: Window
  let interval: @Sendable () -> Int64
  init(window: Window, interval: @escaping @Sendable () -> Int64) {
    self.window = window
    self.interval = interval
  }
  func recordNanoseconds(_ duration: Int64) {
    window.time(at: interval(), micros: max(0, duration) / 1000)
  }
}

/// A level that goes up and down (open connections, open streams); the factory hands the same
/// one to every meter of its name.
private final class Level: MeterHandler, Sendable {
  private let value = Atomic<Int>(0)
  var current: Int { value.load(ordering: .relaxed) }
  func set(_ value: Int64) { self.value.store(Int(value), ordering: .relaxed) }
  func set(_ value: Double) { self.value.store(Int(value), ordering: .relaxed) }
  func increment(by amount: Double) { _ = value.add(Int(amount), ordering: .relaxed) }
  func decrement(by amount: Double) { _ = value.subtract(Int(amount), ordering: .relaxed) }
}
