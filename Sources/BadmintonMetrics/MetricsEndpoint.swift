public import Logging
public import NIOCore
import NIOHTTP1
public import NIOPosix
public import Prometheus
public import ServiceLifecycle
import Synchronization

/// How the metrics endpoint listens, and the limits that keep it cheap for whoever reaches it.
public struct MetricsEndpointConfiguration: Sendable {
  /// Address to bind. Default `127.0.0.1`: the figures are for the operator's scraper only.
  public var host: String
  /// Port to bind; 0 = any free port.
  public var port: Int
  /// Scrape connections open at once; more are closed as soon as they are accepted. Default 8.
  public var maximumConnections: Int
  /// Bytes a connection may send (its one request: line and headers); more close it. Default
  /// 8 KiB.
  public var maximumRequestBytes: Int
  /// How long a connection may stay open in all, however it trickles; then it is closed.
  /// Default 10 seconds.
  public var connectionTimeout: Duration

  /// A configuration with the defaults for whatever is not given.
  public init(
    host: String = "127.0.0.1", port: Int, maximumConnections: Int = 8,
    maximumRequestBytes: Int = 8 * 1024, connectionTimeout: Duration = .seconds(10)
  ) {
    self.host = host
    self.port = port
    self.maximumConnections = maximumConnections
    self.maximumRequestBytes = maximumRequestBytes
    self.connectionTimeout = connectionTimeout
  }
}

/// Serves `GET /metrics`: the Prometheus text format of a collector registry, over HTTP/1.1.
/// Anything else gets 404 (another path) or 405 (another method); every connection carries one
/// request, is closed after its answer, and is held to `MetricsEndpointConfiguration`'s limits.
/// Runs as a `Service`: it stops listening on graceful shutdown.
public final class MetricsEndpoint: Service, Sendable {
  /// The path served.
  public static let path = "/metrics"
  /// The content type of Prometheus's text exposition format.
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// How the endpoint listens.
  public let configuration: MetricsEndpointConfiguration
  private let registry: PrometheusCollectorRegistry
  private let beforeScrape: @Sendable () -> Void
  private let group: any EventLoopGroup
  private let logger: Logger
  private let openConnections = Mutex(0)
  private let listener = Mutex<(any Channel)?>(nil)
  private let address = Mutex<
    (
      result: Result<SocketAddress, any Error>?,
      waiters: [CheckedContinuation<SocketAddress, any Error>]
    )
  >((nil, []))

  /// An endpoint serving `registry`; `beforeScrape` runs before each scrape is written (to set
  /// gauges that are read rather than kept up to date).
  public init(
    configuration: MetricsEndpointConfiguration,
    registry: PrometheusCollectorRegistry,
    beforeScrape: @escaping @Sendable () -> Void = {},
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "badminton.metrics")
  ) {
    self.configuration = configuration
    self.registry = registry
    self.beforeScrape = beforeScrape
    self.group = eventLoopGroup
    self.logger = logger
  }

  /// The address the endpoint is bound to, once it is; throws the error that kept it from
  /// binding.
  public func localAddress() async throws -> SocketAddress {
    try await withCheckedThrowingContinuation { continuation in
      let ready: Result<SocketAddress, any Error>? = address.withLock { address in
        if address.result == nil { address.waiters.append(continuation) }
        return address.result
      }
      if let ready { continuation.resume(with: ready) }
    }
  }

  /// Binds and serves until graceful shutdown or cancellation.
  public func run() async throws {
    let channel: any Channel
    do {
      channel = try await bind()
    } catch {
      settleAddress(.failure(error))
      throw error
    }
    listener.withLock { $0 = channel }
    let bound = channel.localAddress!
    logger.info("metrics listening", metadata: ["address": "\(bound)"])
    settleAddress(.success(bound))
    await withTaskCancellationHandler {
      await withGracefulShutdownHandler {
        try? await channel.closeFuture.get()
      } onGracefulShutdown: {
        channel.close(promise: nil)
      }
    } onCancel: {
      channel.close(promise: nil)
    }
  }

  private func settleAddress(_ result: Result<SocketAddress, any Error>) {
    let waiters = address.withLock { address in
      address.result = result
      defer { address.waiters = [] }
      return address.waiters
    }
    for waiter in waiters { waiter.resume(with: result) }
  }

  private func bind() async throws -> any Channel {
    let configuration = self.configuration
    return try await ServerBootstrap(group: group)
      .serverChannelOption(.backlog, value: 16)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.maxMessagesPerRead, value: 1)
      .childChannelInitializer { [weak self] channel in
        channel.eventLoop.makeCompletedFuture {
          guard let self, self.admit(channel) else {
            channel.close(promise: nil)
            return
          }
          try channel.pipeline.syncOperations.addHandler(
            ScrapeConnectionGuard(
              maximumBytes: configuration.maximumRequestBytes,
              timeout: TimeAmount(configuration.connectionTimeout)))
          try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: true)
          try channel.pipeline.syncOperations.addHandler(
            ScrapeHandler(registry: self.registry, beforeScrape: self.beforeScrape))
        }
      }
      .bind(host: configuration.host, port: configuration.port)
      .get()
  }

  /// Counts a new connection when the cap allows it, and uncounts it when it closes.
  private func admit(_ channel: any Channel) -> Bool {
    let admitted = openConnections.withLock { open in
      guard open < configuration.maximumConnections else { return false }
      open += 1
      return true
    }
    guard admitted else { return false }
    channel.closeFuture.whenComplete { [weak self] _ in
      self?.openConnections.withLock { $0 -= 1 }
    }
    return true
  }
}

/// Closes a scrape connection that sends more than `maximumBytes`, or that is still open after
/// `timeout`.
final class ScrapeConnectionGuard: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private let maximumBytes: Int
  private let timeout: TimeAmount
  private var received = 0
  private var timer: Scheduled<Void>?

  init(maximumBytes: Int, timeout: TimeAmount) {
    self.maximumBytes = maximumBytes
    self.timeout = timeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let channel = context.channel
    timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    received += unwrapInboundIn(data).readableBytes
    guard received <= maximumBytes else {
      context.close(promise: nil)
      return
    }
    context.fireChannelRead(data)
  }
}

/// Answers the connection's one request: the metrics for `GET /metrics`, 404 or 405 otherwise;
/// then closes.
private final class ScrapeHandler: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let registry: PrometheusCollectorRegistry
  private let beforeScrape: @Sendable () -> Void
  private var head: HTTPRequestHead?
  private var answered = false

  init(registry: PrometheusCollectorRegistry, beforeScrape: @escaping @Sendable () -> Void) {
    self.registry = registry
    self.beforeScrape = beforeScrape
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !answered else { return }
    switch unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
    case .body:
      break
    case .end:
      guard let head else { return }
      answered = true
      answer(head, context: context)
    }
  }

  /// A request that is not HTTP has had its 400 (from NIO's protocol error handler); the
  /// connection ends.
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  private func answer(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
    let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
    var headers = HTTPHeaders([("Connection", "close")])
    let status: HTTPResponseStatus
    var body: [UInt8]
    if path != MetricsEndpoint.path {
      status = .notFound
      body = Array("Not found: only GET \(MetricsEndpoint.path) is served.\n".utf8)
      headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
    } else if request.method != .GET {
      status = .methodNotAllowed
      body = Array("Method not allowed: only GET \(MetricsEndpoint.path) is served.\n".utf8)
      headers.add(name: "Allow", value: "GET")
      headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
    } else {
      status = .ok
      beforeScrape()
      body = []
      body.reserveCapacity(16 * 1024)
      registry.emit(into: &body)
      headers.add(name: "Content-Type", value: MetricsEndpoint.contentType)
    }
    headers.add(name: "Content-Length", value: "\(body.count)")
    let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      channel.close(promise: nil)
    }
  }
}
