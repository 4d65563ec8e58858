import BadmintonRPC
import Dispatch
import NIOPosix
import Synchronization

/// Counts what the test service's handlers saw, so tests can tell that work really stopped.
final class HandlerProbe: Sendable {
  private struct Counts {
    var started = 0
    var cancelled = 0
    var finished = 0
  }
  private let counts = Mutex(Counts())
  /// The gates `gate:` commands wait at.
  let gates = Gates()

  var started: Int { counts.withLock { $0.started } }
  var cancelled: Int { counts.withLock { $0.cancelled } }
  var finished: Int { counts.withLock { $0.finished } }

  /// Signalled on every count's change.
  private let changes = ChangeSignal()

  func didStart() {
    counts.withLock { $0.started += 1 }
    changes.signal()
  }
  func didCancel() {
    counts.withLock { $0.cancelled += 1 }
    changes.signal()
  }
  func didFinish() {
    counts.withLock { $0.finished += 1 }
    changes.signal()
  }

  /// Opens gate `name`: the handlers waiting at it go on, and later ones pass at once.
  func open(_ name: String) { gates.open(name) }

  /// Waits until `condition` holds, checking it whenever a count changes. `limit` only bounds a
  /// failure: the condition decides the pass.
  func wait(for limit: Duration = hangBound, until condition: (HandlerProbe) -> Bool) async
    -> Bool
  {
    await changes.wait(for: limit) { condition(self) }
  }
}

/// Named gates that test handlers wait at until the test opens them; a cancelled wait throws
/// `CancellationError` at once.
final class Gates: Sendable {
  private struct State {
    var open: Set<String> = []
    var waiters: [UInt64: (name: String, continuation: CheckedContinuation<Void, any Error>)] =
      [:]
    /// Waits cancelled before they began waiting.
    var cancelled: Set<UInt64> = []
    var nextID: UInt64 = 0
  }
  private let state = Mutex(State())

  /// Returns once gate `name` is open.
  func wait(_ name: String) async throws {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
          if state.open.contains(name) { return .success(()) }
          state.waiters[id] = (name, continuation)
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        guard let waiter = state.waiters.removeValue(forKey: id) else {
          state.cancelled.insert(id)
          return nil as CheckedContinuation<Void, any Error>?
        }
        return waiter.continuation
      }
      waiter?.resume(throwing: CancellationError())
    }
  }

  /// Opens gate `name`.
  func open(_ name: String) {
    let ready = state.withLock { state in
      state.open.insert(name)
      let ids = state.waiters.filter { $0.value.name == name }.map(\.key)
      return ids.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
    }
    for continuation in ready { continuation.resume() }
  }
}

/// A service used only by tests. Its messages reuse `HealthCheckRequest`, whose one string field
/// carries a command:
/// - `echo:TEXT` answers TEXT;
/// - `size:N` answers N times `x`;
/// - `gate:NAME:TEXT` waits until the test opens the probe's gate NAME, then answers TEXT;
/// - `fail` throws an `RPCError` with reason `TEST_FAILURE` and a field violation;
/// - `busy:MS:N` and `unavailable:MS:N` fail the first N calls to reach the service (counted by
///   the probe) with RESOURCE_EXHAUSTED / UNAVAILABLE and a retry hint of MS ms, then answer `done`;
/// - `crash` throws an error that is not an `RPCError`;
/// - `thread` answers whether the handler ran on an event loop before and after it waited for
///   work finished on another thread;
/// - streaming `count:N` sends `0` ... `N-1` one at a time, `batch:N` the same in one
///   `write(serializedContentsOf:)`; `forever` sends a message every 10 ms until stopped;
///   `gate:NAME` sends nothing until the gate NAME opens, then ends.
struct TestService: RPCService {
  static let name = "test.v1.Echo"
  static let unary = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: name, method: "Unary", kind: .unary, idempotent: false, requiresAuthentication: false)
  static let idempotentUnary = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: name, method: "IdempotentUnary", kind: .unary, idempotent: true,
    requiresAuthentication: false)
  static let stream = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: name, method: "Stream", kind: .serverStreaming, idempotent: true,
    requiresAuthentication: false)

  let probe: HandlerProbe

  struct NotAnRPCError: Error {}

  func registerMethods(in registry: inout HandlerRegistry) {
    let probe = self.probe
    let handleUnary:
      @Sendable (HealthCheckRequest, ServerContext) async throws -> HealthCheckRequest = {
        request, context in
        probe.didStart()
        do {
          let reply = try await Self.run(
            request.service, locale: context.locale, attempt: probe.started, gates: probe.gates)
          probe.didFinish()
          return HealthCheckRequest(service: reply)
        } catch is CancellationError {
          probe.didCancel()
          throw CancellationError()
        }
      }
    registry.register(Self.unary, handler: handleUnary)
    registry.register(Self.idempotentUnary, handler: handleUnary)
    registry.register(Self.stream) { request, context, writer in
      probe.didStart()
      do {
        if request.service.hasPrefix("gate:") {
          try await probe.gates.wait(String(request.service.dropFirst(5)))
          probe.didFinish()
          return
        }
        if request.service == "forever" {
          var index = 0
          while true {
            try await writer.write(HealthCheckRequest(service: "\(index)"))
            index += 1
            try await Task.sleep(for: .milliseconds(10))
          }
        }
        if request.service.hasPrefix("batch:"), let count = Int(request.service.dropFirst(6)) {
          try await writer.write(
            serializedContentsOf: (0..<count).map {
              try HealthCheckRequest(service: "\($0)").serializedBytes()
            })
          probe.didFinish()
          return
        }
        guard request.service.hasPrefix("count:"), let count = Int(request.service.dropFirst(6))
        else {
          throw RPCError(
            code: .invalidArgument, reason: "BAD_COMMAND", message: .init(verbatim: "bad command"))
        }
        for index in 0..<count {
          try await writer.write(HealthCheckRequest(service: "\(index)"))
        }
        probe.didFinish()
      } catch is CancellationError {
        probe.didCancel()
        throw CancellationError()
      }
    }
  }

  private static func run(
    _ command: String, locale: RPCLocale, attempt: Int, gates: Gates
  ) async throws -> String {
    let parts = command.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(
      String.init)
    switch parts.first {
    case "echo":
      return parts.dropFirst().joined(separator: ":")
    case "size":
      return String(repeating: "x", count: Int(parts[1]) ?? 0)
    case "gate":
      try await gates.wait(parts.count > 1 ? parts[1] : "")
      return parts.count > 2 ? parts[2] : ""
    case "fail":
      throw RPCError(
        code: .invalidArgument, reason: "TEST_FAILURE",
        message: LocalizedText(en: "test failure", zhCN: "测试失败"),
        violations: [
          .init(field: "service", reason: "BAD", description: LocalizedText(en: "bad", zhCN: "错误"))
        ])
    case "busy":
      // `busy:MS:N`: the first N calls fail with RESOURCE_EXHAUSTED and a hint of MS ms.
      guard attempt > Int(parts[2]) ?? 0 else {
        throw RPCError(
          code: .resourceExhausted, reason: "TEST_BUSY",
          message: LocalizedText(en: "busy", zhCN: "忙"),
          retryAfter: .milliseconds(Int64(parts[1]) ?? 0))
      }
      return "done"
    case "unavailable":
      // `unavailable:MS:N`: the first N calls fail with UNAVAILABLE and a hint of MS ms.
      guard attempt > Int(parts[2]) ?? 0 else {
        throw RPCError(
          code: .unavailable, reason: "TEST_UNAVAILABLE",
          message: LocalizedText(en: "unavailable", zhCN: "不可用"),
          retryAfter: .milliseconds(Int64(parts[1]) ?? 0))
      }
      return "done"
    case "crash":
      throw NotAnRPCError()
    case "thread":
      // Where the handler runs, before and after it waits for work another thread finishes.
      let before = MultiThreadedEventLoopGroup.currentEventLoop != nil
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume() }
      }
      let after = MultiThreadedEventLoopGroup.currentEventLoop != nil
      return "\(before ? "event-loop" : "other") \(after ? "event-loop" : "other")"
    default:
      return command
    }
  }
}
