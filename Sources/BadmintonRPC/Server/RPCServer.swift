public import CoreMetrics
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
  /// The open connections and what admits new ones.
  private struct Connections {
    /// Every admitted connection that is not yet closed, by channel.
    var open: [ObjectIdentifier: NIOLoopBound<ServerConnectionHandler>] = [:]
    var admission: ConnectionAdmission
    /// Waiting for `open` to become empty.
    var emptyWaiters: [CheckedContinuation<Void, Never>] = []
    var refused = 0
    var refusalWarning = RateLimitedWarning(interval: .seconds(10))
    var backoffWarning = RateLimitedWarning(interval: .seconds(10))
  }
  private let connections: Mutex<Connections>
  /// Records the objects made per connection, for tests; nil when serving.
  let census: ObjectCensus?
  private let address = Mutex<
    (
      result: Result<SocketAddress, any Error>?,
      waiters: [CheckedContinuation<SocketAddress, any Error>]
    )
  >((nil, []))
  private let requestBudget: RequestMemoryBudget
  /// The slots that large request frames of every connection share.
  let largeFrameSlots: LargeFrameSlots
  /// What the server records: calls, connections, streams, GOAWAYs and refusals.
  let metrics: ServerMetrics

  /// A server for `services`, plus the built-in health and reflection services. Methods that
  /// need authentication are checked with `authenticator`; without one they are all refused.
  /// Its metrics (`ServerMetrics`) are made by `metricsFactory`, by default swift-metrics'
  /// bootstrapped factory (a no-op one unless the process bootstrapped another).
  public convenience init(
    configuration: ServerConfiguration = ServerConfiguration(),
    services: [any RPCService],
    authenticator: (any Authenticator)? = nil,
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "badminton.rpc.server"),
    metricsFactory: (any MetricsFactory)? = nil
  ) {
    self.init(
      configuration: configuration, services: services, authenticator: authenticator,
      eventLoopGroup: eventLoopGroup, logger: logger, census: nil, metricsFactory: metricsFactory)
  }

  /// A server that records its per-connection objects in `census`.
  init(
    configuration: ServerConfiguration, services: [any RPCService],
    authenticator: (any Authenticator)?, eventLoopGroup: any EventLoopGroup, logger: Logger,
    census: ObjectCensus?, metricsFactory: (any MetricsFactory)? = nil
  ) {
    self.census = census
    self.connections = Mutex(
      Connections(
        admission: ConnectionAdmission(
          maximumConnections: configuration.maximumConnections,
          maximumConnectionsPerAddress: configuration.maximumConnectionsPerAddress)))
    self.configuration = configuration
    self.authenticator = authenticator
    self.group = eventLoopGroup
    self.logger = logger
    self.requestBudget = RequestMemoryBudget(limit: configuration.maximumRequestBytesInFlight)
    self.largeFrameSlots = LargeFrameSlots(count: configuration.maximumLargeRequestFrames)
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
    self.metrics = ServerMetrics(
      factory: metricsFactory ?? MetricsSystem.factory, methods: registry.allMethods.map(\.path))
  }

  private static func serviceName(of path: String) -> String {
    String(path.dropFirst().prefix { $0 != "/" })
  }

  /// Connections refused so far for passing `maximumConnections` or
  /// `maximumConnectionsPerAddress`.
  public var refusedConnections: Int { connections.withLock { $0.refused } }

  /// The listening channel while serving.
  var listener: (any Channel)? {
    if case .serving(let channel) = state.withLock({ $0 }) { return channel }
    return nil
  }

  /// Connections open now.
  public var openConnections: Int { connections.withLock { $0.open.count } }

  /// Every method the server serves, sorted by path.
  public var methods: [MethodInfo] { registry.allMethods }

  /// The largest incoming frame body the server accepts, compressed or decompressed: the
  /// largest request any of its methods takes, in its envelope, and never more than
  /// `configuration.wire.maximumBodySize`. A frame announcing more gets GOAWAY
  /// (`FRAME_TOO_LARGE`) from its header, before its body is buffered. Outgoing frames may
  /// reach `configuration.wire.maximumBodySize`.
  public var maximumRequestBodySize: Int {
    registry.maximumRequestBodySize(within: configuration.wire.maximumBodySize)
  }

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
    logger.info(
      "listening",
      metadata: [
        "address": "\(bound)",
        "transport": "\(configuration.tls == nil ? "plain TCP" : "TLS")",
        "max-connections": "\(configuration.maximumConnections)",
        "max-connections-per-address": "\(configuration.maximumConnectionsPerAddress)",
      ])
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
    let open = connections.withLock { Array($0.open.values) }
    for connection in open {
      connection.eventLoop.execute { connection.value.beginDrain() }
    }
    health.beginShutdown()
    // Then every open stream is ended with SERVER_SHUTTING_DOWN: streams have no natural end
    // to wait for, so the grace period is for unary calls. The health watchers were told first,
    // so their last update is sent before their end.
    for connection in open {
      connection.eventLoop.execute { connection.value.endStreams() }
    }
  }

  private func closeEverything() {
    let listener: (any Channel)? = state.withLock { state in
      defer { state = .stopped }
      if case .serving(let channel) = state { return channel }
      return nil
    }
    listener?.close(promise: nil)
    for connection in connections.withLock({ Array($0.open.values) }) {
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

  /// Returns once every connection is closed; the close of the last one wakes it.
  private func waitForConnections() async {
    await withCheckedContinuation { continuation in
      let empty = connections.withLock { connections in
        if connections.open.isEmpty { return true }
        connections.emptyWaiters.append(continuation)
        return false
      }
      if empty { continuation.resume() }
    }
  }

  /// The handlers of one admitted connection in pipeline order, and its connection handler
  /// among them. `bind` installs them on every connection; tests install them on an
  /// `EmbeddedChannel`, whose clock they move themselves, to check the idle timeout, deadlines
  /// and the drain without waiting for real time.
  func connectionHandlers() -> (all: [any ChannelHandler], connection: ServerConnectionHandler) {
    // Incoming frames are held to what some method may take; answers keep the wire's limit.
    var inboundWire = configuration.wire
    inboundWire.maximumBodySize = maximumRequestBodySize
    let trust = ConnectionTrust()
    let gate = LargeFrameGate(slots: largeFrameSlots)
    let handler = ServerConnectionHandler(
      registry: registry, authenticator: authenticator, configuration: configuration,
      requestBudget: requestBudget, logger: logger, trust: trust, gate: gate, metrics: metrics)
    let handlers: [any ChannelHandler] = [
      // A peer that does not read its answers is not read from either, so its unread
      // answers cannot grow the server's memory.
      BackPressureHandler(),
      // Nor is a connection whose next large frame waits for a server-wide slot.
      LargeFrameReadGate(gate: gate),
      ByteToMessageHandler(
        FrameDecoder(
          configuration: inboundWire, budget: requestBudget,
          frameTimeout: TimeAmount(configuration.frameTimeout), trust: trust, gate: gate)),
      IdleEventHandler(readTimeout: TimeAmount(configuration.idleTimeout)),
      FrameEncoder(configuration: configuration.wire),
      handler,
    ]
    return (handlers, handler)
  }

  /// How a connection's incoming bytes are read: into buffers of at most 8 KiB, grown from
  /// 2 KiB only while reads fill them. NIO keeps a connection's receive buffers (one per read of
  /// an event-loop cycle) for the connection's life, so with `readsPerCycle` this bounds what an
  /// open connection keeps to 8 KiB; and it bounds what a connection has read past a frame
  /// header that must wait for a large-frame slot to one buffer, so that the rest of the frame
  /// waits in the kernel's socket buffers. (16 KiB cost about 30 KB more resident per uploading
  /// connection, and were no faster.)
  static let receiveAllocator = AdaptiveRecvByteBufferAllocator(
    minimum: 64, initial: 2048, maximum: 8 * 1024)
  /// Reads per event-loop cycle on one connection: one, so that the pipeline sees every buffer
  /// (and a waiting large frame stops the reading) before the next is read. The socket is
  /// watched level-triggered, so what is left is read on the next cycle.
  static let readsPerCycle: UInt = 1

  private func bind() async throws -> any Channel {
    let configuration = self.configuration
    let census = self.census
    return try await ServerBootstrap(group: group)
      .serverChannelOption(.backlog, value: 256)
      .serverChannelInitializer { [weak self] channel in
        // Without it a listener out of descriptors retries accept in a busy loop.
        channel.eventLoop.makeCompletedFuture { [weak self] in
          try channel.pipeline.syncOperations.addHandler(
            AcceptPauseHandler { [weak self] error in self?.acceptPaused(error) })
        }
      }
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
      .childChannelOption(.maxMessagesPerRead, value: Self.readsPerCycle)
      .childChannelOption(.recvAllocator, value: Self.receiveAllocator)
      .childChannelInitializer { [weak self] channel in
        channel.eventLoop.makeCompletedFuture {
          guard let self else { return }
          let address = Self.clientAddress(of: channel)
          // TLS, when configured, sits under everything else, refused connections included.
          if let tls = configuration.tls {
            try channel.pipeline.syncOperations.addHandlers(tls.makeHandlers(logger: self.logger))
          }
          if let refusal = self.admit(channel, from: address) {
            try channel.pipeline.syncOperations.addHandlers([
              FrameEncoder(configuration: configuration.wire),
              ConnectionRefusalHandler(error: refusal.error),
            ])
            return
          }
          let (handlers, handler) = self.connectionHandlers()
          try channel.pipeline.syncOperations.addHandlers(handlers)
          census?.record(handler)
          census?.record(channel)
          self.track(
            channel, from: address, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
        }
      }
      .bind(host: configuration.host, port: configuration.port)
      .get()
  }

  /// Records a new connection. It is recorded before the state is read: a shutdown that starts
  /// in between then either finds it in `connections` or is seen here, never neither.
  private func track(
    _ channel: any Channel, from address: String, handler: NIOLoopBound<ServerConnectionHandler>
  ) {
    let key = ObjectIdentifier(channel)
    connections.withLock { $0.open[key] = handler }
    let metrics = self.metrics
    metrics.connectionOpened()
    channel.closeFuture.whenComplete { [weak self] _ in
      metrics.connectionClosed()
      let waiters: [CheckedContinuation<Void, Never>] =
        self?.connections.withLock { connections in
          connections.open.removeValue(forKey: key)
          connections.admission.release(address)
          guard connections.open.isEmpty else { return [] }
          defer { connections.emptyWaiters = [] }
          return connections.emptyWaiters
        } ?? []
      for waiter in waiters { waiter.resume() }
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

  /// The address a connection's caps count it under: its IP address without the port, keyed as
  /// the services' per-address limits key it (`clientAddressKey`: IPv6 by its /64).
  static func clientAddress(of channel: any Channel) -> String {
    guard let remote = channel.remoteAddress else { return "unknown" }
    return clientAddressKey(remote.ipAddress ?? remote.description)
  }

  /// Counts a new connection, or returns why it is refused; refusals are counted and logged at
  /// most once per interval.
  private func admit(_ channel: any Channel, from address: String) -> ConnectionAdmission.Refusal? {
    let (refusal, log, suppressed, total) = connections.withLock {
      connections -> (ConnectionAdmission.Refusal?, Bool, Int, Int) in
      guard let refusal = connections.admission.admit(address) else { return (nil, false, 0, 0) }
      connections.refused += 1
      let (log, suppressed) = connections.refusalWarning.shouldLog(at: .now)
      return (refusal, log, suppressed, connections.refused)
    }
    if let refusal { metrics.connectionRefused(refusal.error) }
    if let refusal, log {
      logger.warning(
        "connection refused",
        metadata: [
          "peer": "\(address)", "reason": "\(refusal.error.reason)",
          "refused-since-last-log": "\(suppressed)", "refused-total": "\(total)",
        ])
    }
    return refusal
  }

  /// Logs that accepting paused, at most once per interval.
  private func acceptPaused(_ error: IOError) {
    let (log, suppressed) = connections.withLock { $0.backoffWarning.shouldLog(at: .now) }
    guard log else { return }
    logger.error(
      "accept failed; pausing accepts",
      metadata: [
        "error": "\(error)", "pause": "\(AcceptPauseHandler.pause)",
        "pauses-since-last-log": "\(suppressed)",
        "open-connections": "\(openConnections)",
      ])
  }
}
