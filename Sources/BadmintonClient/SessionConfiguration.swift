public import BadmintonRPC
import Foundation

/// What a session takes from the world: time, waiting, randomness and new keys. Tests give
/// their own, so that none waits real time and no timing margin decides a pass.
public struct SessionEnvironment: Sendable {
  /// Waits out a backoff or a server's `retry_after`; throws when the task is cancelled.
  public var sleep: @Sendable (Duration) async throws -> Void
  /// The wall clock, in milliseconds since 1970-01-01 UTC: a stored token past its
  /// `expiresAtUnixMs` is not used.
  public var nowUnixMs: @Sendable () -> Int64
  /// A uniform random number in [0, 1], the jitter of every backoff.
  public var random: @Sendable () -> Double
  /// A new idempotency key: 1 to 128 printable ASCII characters, never reused.
  public var makeKey: @Sendable () -> String

  /// An environment with the real clock, `Task.sleep`, the system's random numbers and UUIDs
  /// for whatever is not given.
  public init(
    sleep: (@Sendable (Duration) async throws -> Void)? = nil,
    nowUnixMs: (@Sendable () -> Int64)? = nil,
    random: (@Sendable () -> Double)? = nil,
    makeKey: (@Sendable () -> String)? = nil
  ) {
    self.sleep = sleep ?? { try await Task.sleep(for: $0) }
    self.nowUnixMs =
      nowUnixMs ?? { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    self.random = random ?? { Double.random(in: 0...1) }
    self.makeKey = makeKey ?? { UUID().uuidString }
  }

  /// The real world.
  public static var live: SessionEnvironment { SessionEnvironment() }
}

/// Where a session connects, where it keeps its files, and its limits.
public struct SessionConfiguration: Sendable {
  /// The server's host.
  public var host: String
  /// The server's port.
  public var port: Int
  /// Keeps the session's token and the last event sequence delivered.
  public var tokenStore: any TokenStore
  /// The file of the durable write queue.
  public var queuePath: String
  /// Writes the queue may hold; one more is refused with `ClientError.queueFull`. Default 1,000.
  public var maximumQueuedWrites: Int
  /// The wait between attempts to reach the server.
  public var backoff: ConnectionBackoff
  /// How long one attempt of a call may take before it counts as lost. Default 30 seconds.
  public var callTimeout: Duration
  /// While connected, the session checks the connection and the token this often
  /// (`Health/CheckSession`), so that a connection that went silent is replaced even when the
  /// app makes no call; nil never checks. Default 30 seconds.
  public var heartbeatInterval: Duration?
  /// Whether the session follows `Events/Subscribe` while signed in. Default true.
  public var subscribesToEvents: Bool
  /// Events received and not yet taken from `events`; at this many the session closes the
  /// stream and follows it again, from the last event received, once the app has taken one.
  /// Default 1,000.
  public var maximumBufferedEvents: Int
  /// TLS under the frames; nil for plain TCP. Default nil.
  public var tls: ClientTLSConfiguration?
  /// The language of the server's messages; nil for the server's default (`en`).
  public var locale: RPCLocale?
  /// Time, waiting and randomness.
  public var environment: SessionEnvironment

  /// A session of the server at `host:port` that keeps its files in `directory` (created when
  /// missing): the token in `session.json` (mode 0600), the queue in `writes.queue`.
  public init(host: String, port: Int, directory: String) {
    self.init(
      host: host, port: port,
      tokenStore: FileTokenStore(path: directory + "/session.json"),
      queuePath: directory + "/writes.queue")
  }

  /// A session of the server at `host:port` with its token in `tokenStore` and its queue in the
  /// file at `queuePath`.
  public init(host: String, port: Int, tokenStore: any TokenStore, queuePath: String) {
    self.host = host
    self.port = port
    self.tokenStore = tokenStore
    self.queuePath = queuePath
    self.maximumQueuedWrites = 1000
    self.backoff = ConnectionBackoff()
    self.callTimeout = .seconds(30)
    self.heartbeatInterval = .seconds(30)
    self.subscribesToEvents = true
    self.maximumBufferedEvents = 1000
    self.tls = nil
    self.locale = nil
    self.environment = .live
  }
}
