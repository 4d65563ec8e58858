import Synchronization

/// The request limit of the built-in Health and Reflection methods, in bytes: their requests
/// hold a service name at most, and a peer without a session may call them.
let builtInRequestBytes = 1024

/// The built-in health service, `badminton.rpc.v1.Health`: only `CheckSession` needs a session.
public enum Health {
  /// The service's full name.
  public static let serviceName = "badminton.rpc.v1.Health"

  /// `Check`: the current status; an unknown service name gives NOT_FOUND.
  public static let check = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(
    service: serviceName, method: "Check", kind: .unary, idempotent: true,
    requiresAuthentication: false, maximumRequestBytes: builtInRequestBytes)

  /// `Watch`: the current status, then every change, until the call ends.
  public static let watch = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(
    service: serviceName, method: "Watch", kind: .serverStreaming, idempotent: true,
    requiresAuthentication: false, maximumRequestBytes: builtInRequestBytes)

  /// `CheckSession`: SERVING when the caller's session is valid. A connection on which a call
  /// has passed authentication may carry frames over 64 KiB; the reference client calls this
  /// first on a connection where it must send a larger request.
  public static let checkSession = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(
    service: serviceName, method: "CheckSession", kind: .unary, idempotent: true,
    requiresAuthentication: true, maximumRequestBytes: builtInRequestBytes)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName, methods: [check.info, watch.info, checkSession.info])

  /// What a health service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `Check`, from memory: served inline on the connection's event loop.
    func check(_ request: HealthCheckRequest, context: ServerContext) throws
      -> HealthCheckResponse
    /// Serves `Watch`.
    func watch(
      _ request: HealthCheckRequest, context: ServerContext,
      responses: ResponseStreamWriter<HealthCheckResponse>
    ) async throws
  }

  /// The typed client of the health service.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `Check`.
    public func check(
      _ request: HealthCheckRequest = HealthCheckRequest(), options: CallOptions = CallOptions()
    ) async throws -> HealthCheckResponse {
      try await client.unary(Health.check, request, options: options)
    }

    /// Calls `CheckSession` with the options' session token.
    public func checkSession(options: CallOptions = CallOptions()) async throws
      -> HealthCheckResponse
    {
      try await client.unary(Health.checkSession, HealthCheckRequest(), options: options)
    }

    /// Calls `Watch`; the stream ends when the server ends the call.
    public func watch(
      _ request: HealthCheckRequest = HealthCheckRequest(), options: CallOptions = CallOptions()
    ) async throws -> ResponseStream<HealthCheckResponse> {
      try await client.serverStreaming(Health.watch, request, options: options)
    }
  }
}

extension Health.ServiceProtocol {
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(
      Health.check,
      inline: { request, context in
        try self.check(request, context: context)
      })
    registry.register(Health.watch) { request, context, writer in
      try await self.watch(request, context: context, responses: writer)
    }
    // The core has checked the session before the handler runs.
    registry.register(
      Health.checkSession, inline: { _, _ in HealthCheckResponse(status: .serving) })
  }
}

/// The serving status of the server and its services, with watchers notified of each change.
public final class HealthStatus: Sendable {
  private struct State {
    var statuses: [String: ServingStatus] = ["": .serving]
    var watchers: [Int: (service: String, continuation: AsyncStream<ServingStatus>.Continuation)] =
      [:]
    var nextWatcher = 0
    var shuttingDown = false
  }

  private let state = Mutex(State())

  /// A status where the whole server ("") is serving and no service is known yet.
  public init() {}

  /// The status of `service` ("" = the whole server); nil when the service is unknown.
  public func status(of service: String) -> ServingStatus? {
    state.withLock { $0.statuses[service] }
  }

  /// Sets the status of `service` ("" = the whole server) and tells its watchers; once the
  /// server is shutting down, statuses stay NOT_SERVING.
  public func set(_ status: ServingStatus, for service: String) {
    let toNotify = state.withLock { state in
      guard !state.shuttingDown else { return [AsyncStream<ServingStatus>.Continuation]() }
      state.statuses[service] = status
      return state.watchers.values.filter { $0.service == service }.map(\.continuation)
    }
    for continuation in toNotify { continuation.yield(status) }
  }

  /// True once the server began shutting down.
  public var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }

  /// Marks the server and every service NOT_SERVING for good, tells every watcher, and ends
  /// their updates.
  public func beginShutdown() {
    let watchers = state.withLock { state in
      state.shuttingDown = true
      for service in state.statuses.keys { state.statuses[service] = .notServing }
      defer { state.watchers = [:] }
      return Array(state.watchers.values)
    }
    for watcher in watchers {
      watcher.continuation.yield(.notServing)
      watcher.continuation.finish()
    }
  }

  /// The current status of `service` followed by each change, until the sequence is dropped or
  /// the server shuts down.
  public func updates(of service: String) -> AsyncStream<ServingStatus> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: ServingStatus.self, bufferingPolicy: .bufferingNewest(1))
    let id: Int? = state.withLock { state in
      continuation.yield(state.statuses[service] ?? .serviceUnknown)
      guard !state.shuttingDown else { return nil }
      let id = state.nextWatcher
      state.nextWatcher += 1
      state.watchers[id] = (service, continuation)
      return id
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
    }
    return stream
  }
}

/// The health service the server registers, answering from a `HealthStatus`.
public struct HealthService: Health.ServiceProtocol {
  private let status: HealthStatus

  /// A service that reports `status`.
  public init(status: HealthStatus) { self.status = status }

  public func check(_ request: HealthCheckRequest, context: ServerContext) throws
    -> HealthCheckResponse
  {
    guard let current = status.status(of: request.service) else {
      throw RPCError(
        code: .notFound, reason: "SERVICE_UNKNOWN",
        message: LocalizedText(
          en: "The server has no service \(request.service).",
          zhCN: "服务器没有服务 \(request.service)。"))
    }
    return HealthCheckResponse(status: current)
  }

  public func watch(
    _ request: HealthCheckRequest, context: ServerContext,
    responses: ResponseStreamWriter<HealthCheckResponse>
  ) async throws {
    var last: ServingStatus?
    for await current in status.updates(of: request.service) where current != last {
      try await responses.write(HealthCheckResponse(status: current))
      last = current
    }
    // The updates end when the server shuts down, or when this call is cancelled.
    if status.isShuttingDown { throw RPCError.serverShuttingDown }
    throw CancellationError()
  }
}
