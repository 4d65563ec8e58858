/// How a client connects and retries.
public struct ClientConfiguration: Sendable {
  /// Frame limits and compression. The client's default body limit is the protocol's 4 MiB,
  /// the limit badminton-server runs with; requests over it, or over their method's own
  /// limit, are refused before they are sent.
  public var wire: WireConfiguration
  /// How long a connection attempt may take, the TLS handshake included. Default 5 seconds.
  public var connectTimeout: Duration
  /// While calls are open and nothing was sent for this long, the client sends PING so that the
  /// server's idle timeout does not close the connection. Default 60 seconds.
  public var keepaliveInterval: Duration
  /// Retries of idempotent calls.
  public var retry: RetryPolicy
  /// Waits out the pause before a retry; default `Task.sleep(for:)`. Tests give one that
  /// records the pause and returns at once.
  public var retrySleep: @Sendable (Duration) async throws -> Void
  /// The `locale` sent when a call names none; nil sends none (the server then uses `en`).
  public var defaultLocale: RPCLocale?
  /// TLS under the frames, verifying the server's certificate and name; nil connects over plain
  /// TCP. Default nil.
  public var tls: ClientTLSConfiguration?

  /// A configuration with the defaults for whatever is not given.
  public init(
    wire: WireConfiguration = WireConfiguration(),
    connectTimeout: Duration = .seconds(5),
    keepaliveInterval: Duration = .seconds(60),
    retry: RetryPolicy = RetryPolicy(),
    retrySleep: @escaping @Sendable (Duration) async throws -> Void = {
      try await Task.sleep(for: $0)
    },
    defaultLocale: RPCLocale? = nil,
    tls: ClientTLSConfiguration? = nil
  ) {
    self.wire = wire
    self.connectTimeout = connectTimeout
    self.keepaliveInterval = keepaliveInterval
    self.retry = retry
    self.retrySleep = retrySleep
    self.defaultLocale = defaultLocale
    self.tls = tls
  }
}

/// Exponential backoff with jitter for idempotent calls that fail with UNAVAILABLE or a lost
/// connection, never shorter than the wait the server's status asks for (`retry_after_ms`).
public struct RetryPolicy: Sendable, Hashable {
  /// Retries after the first attempt. Default 3.
  public var maximumRetries: Int
  /// The backoff before the first retry. Default 100 ms.
  public var initialBackoff: Duration
  /// The backoff never exceeds this. Default 2 seconds.
  public var maximumBackoff: Duration
  /// Each retry's backoff is this times the previous one. Default 2.
  public var multiplier: Double

  /// A policy with the defaults for whatever is not given.
  public init(
    maximumRetries: Int = 3, initialBackoff: Duration = .milliseconds(100),
    maximumBackoff: Duration = .seconds(2), multiplier: Double = 2
  ) {
    self.maximumRetries = maximumRetries
    self.initialBackoff = initialBackoff
    self.maximumBackoff = maximumBackoff
    self.multiplier = multiplier
  }

  /// No retries.
  public static let none = RetryPolicy(maximumRetries: 0)

  /// The backoff before retry `retry` (1-based): the exponential step, capped, then a uniform
  /// random share between half of it and all of it.
  public func backoff(beforeRetry retry: Int) -> Duration {
    var step = initialBackoff
    for _ in 1..<max(retry, 1) {
      step = min(step * multiplier, maximumBackoff)
    }
    step = min(step, maximumBackoff)
    return step * Double.random(in: 0.5...1.0)
  }

  /// The pause before retry `retry` (1-based) of a call that failed with `error`: the backoff,
  /// or the error's retry hint when that is longer (the hint is not capped).
  public func pause(beforeRetry retry: Int, after error: RPCError) -> Duration {
    max(backoff(beforeRetry: retry), error.retryAfter ?? .zero)
  }
}
