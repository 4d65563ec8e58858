import NIOCore

/// How a server listens and the limits it holds every connection to.
public struct ServerConfiguration: Sendable {
  /// Address to bind. Default `127.0.0.1`.
  public var host: String
  /// Port to bind; 0 = any free port. Default 7420.
  public var port: Int
  /// Frame limits and compression.
  public var wire: WireConfiguration
  /// Calls one connection may have open at once; more get RESOURCE_EXHAUSTED. Default 128.
  public var maximumConcurrentCallsPerConnection: Int
  /// A connection that sends no frame for this long gets GOAWAY and is closed. Default 5 minutes.
  public var idleTimeout: Duration
  /// On graceful shutdown, how long calls in flight may take to finish. Default 10 seconds.
  public var shutdownGracePeriod: Duration
  /// Bytes of request frames that the calls open on all connections together may hold; a call
  /// that would pass it gets RESOURCE_EXHAUSTED (`SERVER_BUSY`). Default 256 MiB.
  public var maximumRequestBytesInFlight: Int
  /// A frame whose first byte has arrived must arrive whole within this long, else the
  /// connection gets GOAWAY (`FRAME_TIMEOUT`) and is closed. Default 60 seconds.
  public var frameTimeout: Duration
  /// Connections the server keeps open at once; more get GOAWAY (`TOO_MANY_CONNECTIONS`) and are
  /// closed. Default 10,000.
  public var maximumConnections: Int
  /// Connections one client IP address may keep open at once; more get GOAWAY
  /// (`TOO_MANY_CONNECTIONS_FROM_ADDRESS`) and are closed. Default 128.
  public var maximumConnectionsPerAddress: Int
  /// Request frames with bodies over 16 KiB that all connections together may hold at once,
  /// each from its header until its call's handler has finished; a connection whose next such
  /// frame finds none free is not read until one is (its frame waits in the kernel's socket
  /// buffers). One client address holds at most half of them (at least 1). Default one per
  /// core, at least 2. At least 1.
  public var maximumLargeRequestFrames: Int
  /// TLS under the frames, with its certificate chain, key and handshake timeout; nil serves
  /// plain TCP (for loopback and development). Default nil.
  public var tls: ServerTLSConfiguration?

  /// The default of `maximumLargeRequestFrames`: one per core, at least 2. The store writes one
  /// piece at a time and handlers run on the cores, so more slots add memory, not speed.
  public static var defaultMaximumLargeRequestFrames: Int {
    max(2, System.coreCount)
  }

  /// A configuration with the defaults for whatever is not given.
  public init(
    host: String = "127.0.0.1",
    port: Int = 7420,
    wire: WireConfiguration = WireConfiguration(),
    maximumConcurrentCallsPerConnection: Int = 128,
    idleTimeout: Duration = .seconds(300),
    shutdownGracePeriod: Duration = .seconds(10),
    maximumRequestBytesInFlight: Int = 256 << 20,
    maximumConnections: Int = 10_000,
    maximumConnectionsPerAddress: Int = 128,
    frameTimeout: Duration = .seconds(60),
    maximumLargeRequestFrames: Int = ServerConfiguration.defaultMaximumLargeRequestFrames,
    tls: ServerTLSConfiguration? = nil
  ) {
    self.host = host
    self.port = port
    self.wire = wire
    self.maximumConcurrentCallsPerConnection = maximumConcurrentCallsPerConnection
    self.idleTimeout = idleTimeout
    self.shutdownGracePeriod = shutdownGracePeriod
    self.maximumRequestBytesInFlight = maximumRequestBytesInFlight
    self.maximumConnections = maximumConnections
    self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    self.frameTimeout = frameTimeout
    self.maximumLargeRequestFrames = maximumLargeRequestFrames
    self.tls = tls
  }
}
