import HTTPTypes
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOCore
public import NIOSSL
public import ServiceLifecycle

/// Where and how the console listens, and how long its sessions last.
public struct ConsoleConfiguration: Sendable {
  /// The address to listen on; 127.0.0.1 keeps the console to this machine.
  public var host: String
  /// The port to listen on; 0 picks a free one (see `ConsoleServer`'s `onServerRunning`).
  public var port: Int
  /// TLS for the console's port; nil serves plain HTTP.
  public var tls: TLSConfiguration?
  /// Whether cookies carry `Secure`; true when `tls` is set unless said otherwise.
  public var secureCookies: Bool
  /// How long a session lasts without a request, in milliseconds (30 minutes by default).
  public var sessionIdleTimeoutMs: Int64
  /// How long a session lasts at most after sign-in, in milliseconds (12 hours by default).
  public var sessionLifetimeMs: Int64
  /// How many sessions are kept at most; past it the least recently used ends.
  public var maximumSessions: Int
  /// How long the sign-in form stays valid, in milliseconds (10 minutes by default).
  public var signInFormLifetimeMs: Int64
  /// How long a connection may stay idle (no bytes read or written) while a request is read
  /// before it is closed (30 seconds by default); between requests `requestHeadTimeout` applies.
  public var connectionIdleTimeout: Duration
  /// The largest request body accepted, in bytes; larger ones get 413.
  public var maximumBodyBytes: Int
  /// Connections held at once (512 by default). The console never stops accepting: once it
  /// holds this many, a new connection from an address holding at least two fewer than the
  /// busiest address takes one of that address's places (`ConnectionBook`), and any other is
  /// closed at once.
  public var maximumConnections: Int
  /// Connections held at once from one client address, as `clientAddressKey` keys it (16 by
  /// default); a connection past it is closed at once.
  public var maximumConnectionsPerAddress: Int
  /// The key a client's address is counted under for `maximumConnectionsPerAddress`. The server
  /// passes the RPC port's own (an IPv6 /64 as one address, an IPv4-mapped address as IPv4);
  /// the default counts each address as it is written.
  public var clientAddressKey: @Sendable (String) -> String
  /// How long a new connection may take to send its first byte (5 seconds by default).
  public var firstByteTimeout: Duration
  /// How long a request's head may take from its first byte to its end, the TLS handshake of a
  /// new connection included, and on a kept-alive connection from the end of an answer to the
  /// end of the next head (10 seconds by default).
  public var requestHeadTimeout: Duration
  /// How long a connection is kept from its accept (2 minutes by default): then it closes once
  /// the answer it is writing has gone, and a few seconds later whatever it is doing.
  public var connectionLifetime: Duration

  /// A configuration with these values.
  public init(
    host: String = "127.0.0.1",
    port: Int = 0,
    tls: TLSConfiguration? = nil,
    secureCookies: Bool? = nil,
    sessionIdleTimeoutMs: Int64 = 30 * 60_000,
    sessionLifetimeMs: Int64 = 12 * 3_600_000,
    maximumSessions: Int = 1024,
    signInFormLifetimeMs: Int64 = 10 * 60_000,
    connectionIdleTimeout: Duration = .seconds(30),
    maximumBodyBytes: Int = 16 * 1024,
    maximumConnections: Int = 512,
    maximumConnectionsPerAddress: Int = 16,
    clientAddressKey: @escaping @Sendable (String) -> String = { $0 },
    firstByteTimeout: Duration = .seconds(5),
    requestHeadTimeout: Duration = .seconds(10),
    connectionLifetime: Duration = .seconds(120)
  ) {
    self.maximumConnections = max(1, maximumConnections)
    self.maximumConnectionsPerAddress = max(1, maximumConnectionsPerAddress)
    self.clientAddressKey = clientAddressKey
    self.firstByteTimeout = firstByteTimeout
    self.requestHeadTimeout = requestHeadTimeout
    self.connectionLifetime = connectionLifetime
    self.host = host
    self.port = port
    self.tls = tls
    self.secureCookies = secureCookies ?? (tls != nil)
    self.sessionIdleTimeoutMs = sessionIdleTimeoutMs
    self.sessionLifetimeMs = max(1, sessionLifetimeMs)
    self.maximumSessions = maximumSessions
    self.signInFormLifetimeMs = signInFormLifetimeMs
    self.connectionIdleTimeout = connectionIdleTimeout
    self.maximumBodyBytes = maximumBodyBytes
  }
}

/// The operator console: administrators sign in and work with players and the audit log in a
/// browser. Runs as a `Service` until graceful shutdown.
public struct ConsoleServer: Service {
  /// The most header bytes one request may send.
  static let maximumHeaderBytes = 16 * 1024

  let core: ConsoleCore
  let configuration: ConsoleConfiguration
  /// The connections held now, shared by every connection's guard.
  let connections: ConnectionTable
  let onServerRunning: @Sendable (_ port: Int) async -> Void

  /// A console over `backend`. `onServerRunning` is called with the bound port once the console
  /// listens (useful when `configuration.port` is 0). Loads the templates and stylesheet from
  /// the resource folder beside the executable; throws, naming where it looked, when they are
  /// missing or broken.
  public init(
    backend: any ConsoleBackend,
    configuration: ConsoleConfiguration = ConsoleConfiguration(),
    logger: Logger = Logger(label: "badminton.console"),
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
  ) async throws {
    self.core = ConsoleCore(
      backend: backend,
      sessions: SessionTable(
        idleTimeoutMs: configuration.sessionIdleTimeoutMs,
        lifetimeMs: configuration.sessionLifetimeMs, capacity: configuration.maximumSessions),
      signInGuard: SignInGuard(lifetimeMs: configuration.signInFormLifetimeMs),
      renderer: try await PageRenderer.load(logger: logger),
      secureCookies: configuration.secureCookies,
      maximumBodyBytes: configuration.maximumBodyBytes,
      logger: logger)
    self.configuration = configuration
    self.connections = ConnectionTable(
      maximumConnections: configuration.maximumConnections,
      maximumPerAddress: configuration.maximumConnectionsPerAddress,
      addressKey: configuration.clientAddressKey)
    self.onServerRunning = onServerRunning
  }

  /// Serves the console until graceful shutdown.
  public func run() async throws {
    try await application().run()
  }

  /// The console as a Hummingbird application, for running it in tests without a socket.
  public func application() throws -> some ApplicationProtocol {
    let configuration = self.configuration
    let secureCookies = core.secureCookies
    let limits = ConnectionGuard.Limits(
      firstByte: TimeAmount(configuration.firstByteTimeout),
      requestHead: TimeAmount(configuration.requestHeadTimeout),
      lifetime: TimeAmount(configuration.connectionLifetime))
    let table = connections
    let http1Configuration = HTTP1Channel.Configuration(
      additionalChannelHandlers: [RequestHeadWatcher(), BareAnswerHeaders(tls: secureCookies)],
      idleTimeout: TimeAmount(configuration.connectionIdleTimeout),
      httpDecoderConfiguration: .init(
        maxHeaderFieldSize: Self.maximumHeaderBytes,
        maxHeaderListSize: Self.maximumHeaderBytes,
        maxHeaderFieldCount: 100))
    let tls = configuration.tls
    // The guard comes first in every connection's pipeline, before TLS, so that the handshake
    // counts in the head's deadline and a connection is admitted before any work is done for it.
    let server = HTTPServerBuilder { responder in
      let http1 = HTTP1Channel(responder: responder, configuration: http1Configuration)
      if let tls {
        return GuardedChannel(
          base: try TLSChannel(http1, tlsConfiguration: tls), table: table, limits: limits)
      }
      return GuardedChannel(base: http1, table: table, limits: limits)
    }
    let onServerRunning = self.onServerRunning
    return Application(
      router: core.router(),
      server: server,
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port),
        serverName: nil, backlog: 256),
      onServerRunning: { channel in
        await onServerRunning(channel.localAddress?.port ?? 0)
      },
      logger: core.logger)
  }
}

/// What every part of the console shares.
struct ConsoleCore: Sendable {
  let backend: any ConsoleBackend
  let sessions: SessionTable
  let signInGuard: SignInGuard
  let renderer: PageRenderer
  let secureCookies: Bool
  let maximumBodyBytes: Int
  let logger: Logger

  /// The console's router: the middleware every request passes, then each page's routes.
  func router() -> Router<ConsoleRequestContext> {
    let router = Router(context: ConsoleRequestContext.self, options: .autoGenerateHeadEndpoints)
    // Middleware first: Hummingbird wraps each route in the middleware added before it.
    router.add(
      middleware: ResponseHeadersMiddleware(renderer: renderer, logger: logger, tls: secureCookies))
    router.add(middleware: SignInGateMiddleware(core: self))
    router.add(middleware: ErrorPageMiddleware(core: self))
    router.add(middleware: FormBodyMiddleware(core: self))
    router.add(middleware: CSRFMiddleware(core: self))
    router.add(middleware: CanonicalPathMiddleware())
    router.get("/console.css") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/css; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: renderer.stylesheet)))
    }
    router.get("/") { _, _ in Response.seeOther(to: "/players") }
    SignInPages(core: self).addRoutes(to: router)
    PlayerPages(core: self).addRoutes(to: router)
    VerificationPages(core: self).addRoutes(to: router)
    LivePages(core: self).addRoutes(to: router)
    AuditPages(core: self).addRoutes(to: router)
    return router
  }
}

extension Response {
  /// A 303 to `location`: after a form, the browser loads the page with GET.
  static func seeOther(to location: String, headers: HTTPFields = [:]) -> Response {
    var headers = headers
    headers[.location] = location
    return Response(status: .seeOther, headers: headers)
  }
}
