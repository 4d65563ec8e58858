public import CoreMetrics
import NIOCore
import Synchronization

/// What the server records through swift-metrics: calls by method and status code, unary call
/// latency by method, open connections and streams, GOAWAYs by reason and refusals by reason.
/// The core knows only swift-metrics' API; the executable decides where the figures go (the
/// Prometheus endpoint), and without a backend they go nowhere.
///
/// Cost per call: the metric objects are made once (a method's at start, a status code's or a
/// reason's on first use), so a call adds one dictionary lookup of its method path, two reads of
/// the monotonic clock, one counter increment and (unary) one histogram record, and builds no
/// string: about 150 ns with Prometheus (docs/operations.md). With swift-metrics' no-op backend
/// (metrics off) a call skips all of it.
public final class ServerMetrics: Sendable {
  /// The metrics' names; docs/operations.md describes each.
  public enum Name {
    /// Calls answered, by `method` and `code` (counter).
    public static let calls = "badminton_rpc_calls_total"
    /// Time from a unary call's REQUEST to its RESPONSE, by `method` (histogram).
    public static let callDuration = "badminton_rpc_call_duration_seconds"
    /// Connections admitted and not yet closed (gauge).
    public static let openConnections = "badminton_open_connections"
    /// Server-streaming calls whose handlers are running (gauge).
    public static let openStreams = "badminton_open_streams"
    /// GOAWAYs sent on admitted connections, by `reason` (counter).
    public static let goAways = "badminton_goaways_total"
    /// RESOURCE_EXHAUSTED refusals of calls, frames and connections, by `reason` (counter).
    public static let refusals = "badminton_refusals_total"
  }

  /// The `method` label of calls to a path no service serves: the paths clients send are not
  /// turned into labels, so they cannot grow the metrics without bound.
  public static let unknownMethod = "unknown"
  /// The `reason` label of reasons past `maximumReasons` distinct ones.
  public static let otherReason = "OTHER"
  /// Distinct reasons counted under their own label, per metric.
  static let maximumReasons = 64

  /// Metrics that go nowhere.
  public static let disabled = ServerMetrics(factory: NOOPMetricsHandler.instance, methods: [])

  /// False with swift-metrics' no-op backend: calls then skip the clock and the lookups.
  private let enabled: Bool
  private let methods: [String: MethodMetrics]
  private let unknown: MethodMetrics
  private let openConnections: Meter
  private let openStreams: Meter
  private let goAways: ReasonCounters
  private let refusals: ReasonCounters

  /// Metrics made by `factory` (by default swift-metrics' bootstrapped one), for the method
  /// paths `methods`.
  public init(factory: any MetricsFactory = MetricsSystem.factory, methods: [String]) {
    enabled = !(factory is NOOPMetricsHandler)
    var byPath: [String: MethodMetrics] = [:]
    for path in methods { byPath[path] = MethodMetrics(path, factory: factory) }
    self.methods = byPath
    unknown = MethodMetrics(Self.unknownMethod, factory: factory)
    openConnections = Meter(label: Name.openConnections, factory: factory)
    openStreams = Meter(label: Name.openStreams, factory: factory)
    goAways = ReasonCounters(Name.goAways, factory: factory)
    refusals = ReasonCounters(Name.refusals, factory: factory)
  }

  /// A call to `path` has arrived.
  func callStarted(_ path: String) -> CallMeter {
    guard enabled else { return CallMeter(method: unknown, started: 0) }
    return CallMeter(
      method: methods[path] ?? unknown, started: NIODeadline.now().uptimeNanoseconds)
  }

  /// The call of `meter` is answered with `status`.
  func callEnded(_ meter: CallMeter, kind: MethodKind, status: Status) {
    guard enabled else { return }
    meter.method.count(status.code)
    if kind == .unary {
      let elapsed = NIODeadline.now().uptimeNanoseconds &- meter.started
      meter.method.duration.recordNanoseconds(Int64(truncatingIfNeeded: elapsed))
    }
    if status.code == .resourceExhausted { refusals.increment(status.reason) }
  }

  /// A server-streaming call's handler has started.
  func streamOpened() { openStreams.increment() }

  /// A server-streaming call's handler has ended.
  func streamClosed() { openStreams.decrement() }

  /// A connection was admitted.
  func connectionOpened() { openConnections.increment() }

  /// An admitted connection closed.
  func connectionClosed() { openConnections.decrement() }

  /// A connection was refused with `error` before being served.
  func connectionRefused(_ error: RPCError) { refusals.increment(error.reason) }

  /// GOAWAY with `error` was sent on an admitted connection.
  func goAwaySent(_ error: RPCError) {
    goAways.increment(error.reason)
    if error.code == .resourceExhausted { refusals.increment(error.reason) }
  }
}

/// One call's method metrics and its arrival time.
struct CallMeter {
  fileprivate let method: MethodMetrics
  fileprivate let started: UInt64
}

/// One method's calls by status code, and its latency.
private final class MethodMetrics: Sendable {
  private let path: String
  private let factory: any MetricsFactory
  /// The common case, made up front so that it takes no lock.
  private let ok: Counter
  private let others = Mutex<[Int32: Counter]>([:])
  let duration: Timer

  init(_ path: String, factory: any MetricsFactory) {
    self.path = path
    self.factory = factory
    ok = Self.counter(path, .ok, factory)
    duration = Timer(
      label: ServerMetrics.Name.callDuration, dimensions: [("method", path)], factory: factory)
  }

  private static func counter(_ path: String, _ code: StatusCode, _ factory: any MetricsFactory)
    -> Counter
  {
    Counter(
      label: ServerMetrics.Name.calls, dimensions: [("method", path), ("code", code.name)],
      factory: factory)
  }

  func count(_ code: StatusCode) {
    guard code != .ok else { return ok.increment() }
    let counter = others.withLock { others in
      if let counter = others[code.rawValue] { return counter }
      let counter = Self.counter(path, code, factory)
      others[code.rawValue] = counter
      return counter
    }
    counter.increment()
  }
}

/// A counter per reason, made on first use; reasons come from the server's own catalogs, and past
/// `ServerMetrics.maximumReasons` of them the rest share one label all the same.
private final class ReasonCounters: Sendable {
  private let label: String
  private let factory: any MetricsFactory
  private let counters = Mutex<[String: Counter]>([:])

  init(_ label: String, factory: any MetricsFactory) {
    self.label = label
    self.factory = factory
  }

  func increment(_ reason: String) {
    let counter = counters.withLock { counters in
      if let counter = counters[reason] { return counter }
      let key = counters.count < ServerMetrics.maximumReasons ? reason : ServerMetrics.otherReason
      if let counter = counters[key] { return counter }
      let counter = Counter(label: label, dimensions: [("reason", key)], factory: factory)
      counters[key] = counter
      return counter
    }
    counter.increment()
  }
}
