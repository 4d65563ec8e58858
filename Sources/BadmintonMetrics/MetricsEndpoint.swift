import HTTPTypes
import Hummingbird
import HummingbirdCore
public import Logging
public import NIOCore
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

/// Serves `GET /metrics`: the Prometheus text format of a collector registry and of the
/// process's `process_*` figures, over HTTP/1.1 on Hummingbird. Anything else gets 404 (another
/// path) or 405 (another method); every connection carries one request, is closed after its
/// answer, and is held to `MetricsEndpointConfiguration`'s limits (`ScrapeChannel`).
/// Runs as a `Service`: it stops listening on graceful shutdown.
public final class MetricsEndpoint: Service, Sendable {
  /// The path served.
  public static let path = "/metrics"
  /// The content type of Prometheus's text exposition format.
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
  /// Connections waiting to be accepted, in the kernel's queue.
  static let backlog = 16

  /// How the endpoint listens.
  public let configuration: MetricsEndpointConfiguration
  private let registry: PrometheusCollectorRegistry
  private let beforeScrape: @Sendable () -> Void
  private let group: any EventLoopGroup
  private let logger: Logger
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
    let application = Application(
      responder: ScrapeResponder(registry: registry, beforeScrape: beforeScrape),
      server: ScrapeChannel.server(configuration),
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port),
        serverName: nil, backlog: Self.backlog, reuseAddress: true),
      onServerRunning: { [self] channel in
        guard let bound = channel.localAddress else {
          settleAddress(.failure(ChannelError.ioOnClosedChannel))
          return
        }
        logger.info("metrics listening", metadata: ["address": "\(bound)"])
        settleAddress(.success(bound))
      },
      eventLoopGroupProvider: .shared(group),
      logger: logger)
    do {
      try await application.run()
    } catch {
      settleAddress(.failure(error))
      throw error
    }
    // Stopped before it was bound (a shutdown that came first): nobody waits forever.
    settleAddress(.failure(CancellationError()))
  }

  /// Gives the bound address, or the error that kept it from binding, to those waiting for it;
  /// the first result stays.
  private func settleAddress(_ result: Result<SocketAddress, any Error>) {
    let waiters = address.withLock { address -> [CheckedContinuation<SocketAddress, any Error>] in
      guard address.result == nil else { return [] }
      address.result = result
      defer { address.waiters = [] }
      return address.waiters
    }
    for waiter in waiters { waiter.resume(with: result) }
  }
}

/// Answers a request: the metrics for `GET /metrics` (a query string is ignored), 404 for
/// another path, 405 for another method; every answer carries `Connection: close`.
struct ScrapeResponder: HTTPResponder {
  typealias Context = BasicRequestContext

  let registry: PrometheusCollectorRegistry
  let beforeScrape: @Sendable () -> Void

  func respond(to request: Request, context: Context) async throws -> Response {
    var headers: HTTPFields = [.connection: "close"]
    guard request.uri.path == MetricsEndpoint.path else {
      headers[.contentType] = "text/plain; charset=utf-8"
      return Response(
        status: .notFound, headers: headers,
        body: Self.text("Not found: only GET \(MetricsEndpoint.path) is served.\n"))
    }
    guard request.method == .get else {
      headers[.allow] = "GET"
      headers[.contentType] = "text/plain; charset=utf-8"
      return Response(
        status: .methodNotAllowed, headers: headers,
        body: Self.text("Method not allowed: only GET \(MetricsEndpoint.path) is served.\n"))
    }
    beforeScrape()
    var body: [UInt8] = []
    body.reserveCapacity(16 * 1024)
    registry.emit(into: &body)
    ProcessMetrics.read()?.emit(into: &body)
    headers[.contentType] = MetricsEndpoint.contentType
    return Response(
      status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
  }

  private static func text(_ text: String) -> ResponseBody {
    ResponseBody(byteBuffer: ByteBuffer(string: text))
  }
}
