public import Logging
public import NIOCore
public import NIOPosix
public import ServiceLifecycle
import Synchronization

/// The RPC server: accepts connections, serves the registered services on them, and drains
/// gracefully on shutdown. Runs as a `Service` in a `ServiceGroup`, which turns SIGINT and
/// SIGTERM into that drain.
public final class RPCServer: Service, Sendable {
  /// The server's life.
  private enum State {
    /// Not yet bound. Goes to `serving` once bound, or to `stopped` when shut down first.
    case idle
    /// Bound and accepting. Goes to `draining` on graceful shutdown.
    case serving(any Channel)
    /// No longer accepting; connections finish their calls. Goes to `stopped` when `run` ends.
    case draining
    /// Final.
    case stopped
  }

  /// How the server listens, and its limits.
  public let configuration: ServerConfiguration
  /// The serving status that the health service reports.
  public let health: HealthStatus
  private let registry: HandlerRegistry
  private let authenticator: (any Authenticator)?
  private let group: any EventLoopGroup
  private let logger: Logger
  private let state = Mutex(State.idle)
  private let connections = Mutex<[ObjectIdentifier: NIOLoopBound<ServerConnectionHandler>]>([:])
  private let address = Mutex<
    (
      result: Result<SocketAddress, any Error>?,
      waiters: [CheckedContinuation<SocketAddress, any Error>]
    )
  >((nil, []))
  private let requestBudget: RequestMemoryBudget

  /// A server for `services`, plus the built-in health and reflection services. Methods that
  /// need authentication are checked with `authenticator`; without one they are all refused.
  public init(
    configuration: ServerConfiguration = ServerConfiguration(),
    services: [any RPCService],
    authenticator: (any Authenticator)? = nil,
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "badminton.rpc.server")
  ) {
    self.configuration = configuration
    self.authenticator = authenticator
    self.group = eventLoopGroup
    self.logger = logger
    self.requestBudget = RequestMemoryBudget(limit: configuration.maximumRequestBytesInFlight)
    let health = HealthStatus()
    self.health = health

    var registry = HandlerRegistry()
    for service in services { service.registerMethods(in: &registry) }
    HealthService(status: health).registerMethods(in: &registry)
    let listed = registry.allMethods + [Reflection.listMethods.info]
    ReflectionService(methods: listed).registerMethods(in: &registry)
    for name in Set(listed.map { Self.serviceName(of: $0.path) }) {
      health.set(.serving, for: name)
    }
    self.registry = registry
  }

  private static func serviceName(of path: String) -> String {
    String(path.dropFirst().prefix { $0 != "/" })
  }

  /// Every method the server serves, sorted by path.
  public var methods: [MethodInfo] { registry.allMethods }

  /// The address the server is bound to, once it is; throws the error that kept it from binding.
  public func localAddress() async throws -> SocketAddress {
    try await withCheckedThrowingContinuation { continuation in
      let ready: Result<SocketAddress, any Error>? = address.withLock { address in
        if address.result == nil { address.waiters.append(continuation) }
        return address.result
      }
      if let ready { continuation.resume(with: ready) }
    }
  }

  /// Binds, serves until graceful shutdown, then drains: GOAWAY on every connection, calls in
  /// flight get the grace period, and `run` returns when every connection is closed. Task
  /// cancellation closes everything at once.
  public func run() async throws {
    let channel: any Channel
    do {
      channel = try await bind()
    } catch {
      failAddressWaiters(error)
      throw error
    }
    let keepServing = state.withLock { state in
      guard case .idle = state else { return false }
      state = .serving(channel)
      return true
    }
    guard keepServing else {
      try? await channel.close()
      failAddressWaiters(CancellationError())
      return
    }
    let bound = channel.localAddress!
    logger.info("listening", metadata: ["address": "\(bound)"])
    let waiters = address.withLock { address in
      address.result = .success(bound)
      defer { address.waiters = [] }
      return address.waiters
    }
    for waiter in waiters { waiter.resume(returning: bound) }

    await withTaskCancellationHandler {
      await withGracefulShutdownHandler {
        try? await channel.closeFuture.get()
        await waitForConnections()
      } onGracefulShutdown: {
        self.beginGracefulShutdown()
      }
    } onCancel: {
      self.closeEverything()
    }
    state.withLock { $0 = .stopped }
    logger.info("stopped")
  }

  /// Stops accepting, sets health to NOT_SERVING and drains every connection.
  public func beginGracefulShutdown() {
    let listener: (any Channel)? = state.withLock { state in
      switch state {
      case .serving(let channel):
        state = .draining
        return channel
      case .idle:
        state = .stopped
        return nil
      case .draining, .stopped:
        return nil
      }
    }
    logger.info("draining")
    listener?.close(promise: nil)
    // GOAWAY is queued on every connection's event loop before the health watchers hear of the
    // shutdown: their NOT_SERVING updates and stream ends are queued behind it on the same loop,
    // so every connection sees GOAWAY first.
    for connection in connections.withLock({ Array($0.values) }) {
      connection.eventLoop.execute { connection.value.beginDrain() }
    }
    health.beginShutdown()
  }

  private func closeEverything() {
    let listener: (any Channel)? = state.withLock { state in
      defer { state = .stopped }
      if case .serving(let channel) = state { return channel }
      return nil
    }
    listener?.close(promise: nil)
    for connection in connections.withLock({ Array($0.values) }) {
      connection.eventLoop.execute { connection.value.context?.close(promise: nil) }
    }
  }

  private func failAddressWaiters(_ error: any Error) {
    let waiters = address.withLock { address in
      address.result = .failure(error)
      defer { address.waiters = [] }
      return address.waiters
    }
    for waiter in waiters { waiter.resume(throwing: error) }
  }

  private func waitForConnections() async {
    while true {
      let open = connections.withLock { Array($0.values) }
      if open.isEmpty { return }
      for connection in open {
        try? await connection.eventLoop.flatSubmit {
          connection.value.context?.channel.closeFuture
            ?? connection.eventLoop.makeSucceededVoidFuture()
        }.get()
      }
      // Let the close callbacks that remove connections run before looking again.
      try? await Task.sleep(for: .milliseconds(1))
    }
  }

  private func bind() async throws -> any Channel {
    let registry = self.registry
    let authenticator = self.authenticator
    let configuration = self.configuration
    let logger = self.logger
    let requestBudget = self.requestBudget
    return try await ServerBootstrap(group: group)
      .serverChannelOption(.backlog, value: 256)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
      .childChannelOption(.maxMessagesPerRead, value: 16)
      .childChannelInitializer { [weak self] channel in
        channel.eventLoop.makeCompletedFuture {
          let trust = ConnectionTrust()
          let handler = ServerConnectionHandler(
            registry: registry, authenticator: authenticator, configuration: configuration,
            requestBudget: requestBudget, logger: logger, trust: trust)
          try channel.pipeline.syncOperations.addHandlers([
            // A peer that does not read its answers is not read from either, so its unread
            // answers cannot grow the server's memory.
            BackPressureHandler(),
            ByteToMessageHandler(
              FrameDecoder(
                configuration: configuration.wire, budget: requestBudget,
                frameTimeout: TimeAmount(configuration.frameTimeout), trust: trust)),
            IdleStateHandler(readTimeout: TimeAmount(configuration.idleTimeout)),
            FrameEncoder(configuration: configuration.wire),
            handler,
          ])
          self?.track(channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
        }
      }
      .bind(host: configuration.host, port: configuration.port)
      .get()
  }

  /// Records a new connection. It is recorded before the state is read: a shutdown that starts
  /// in between then either finds it in `connections` or is seen here, never neither.
  private func track(_ channel: any Channel, handler: NIOLoopBound<ServerConnectionHandler>) {
    let key = ObjectIdentifier(channel)
    connections.withLock { $0[key] = handler }
    channel.closeFuture.whenComplete { [weak self] _ in
      _ = self?.connections.withLock { $0.removeValue(forKey: key) }
    }
    switch state.withLock({ $0 }) {
    case .idle, .serving:
      break
    case .draining:
      handler.value.beginDrain()
    case .stopped:
      channel.close(promise: nil)
    }
  }
}
