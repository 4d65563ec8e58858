import Foundation

/// How long a session waits before it tries to reach the server again: gRPC's connection-backoff
/// parameters (base 1 s, multiplier 1.6, at most 120 s, connect timeout at least 20 s) with full
/// jitter, so that many apps cut off together do not come back together.
public struct ConnectionBackoff: Sendable, Hashable {
  /// The ceiling after the first failure. Default 1 second.
  public var base: Duration
  /// Each further failure multiplies the ceiling by this. Default 1.6.
  public var multiplier: Double
  /// The ceiling never exceeds this. Default 120 seconds.
  public var maximum: Duration
  /// How long one connection attempt may take. Default 20 seconds.
  public var minimumConnectTimeout: Duration

  /// A backoff with gRPC's parameters for whatever is not given.
  public init(
    base: Duration = .seconds(1), multiplier: Double = 1.6, maximum: Duration = .seconds(120),
    minimumConnectTimeout: Duration = .seconds(20)
  ) {
    self.base = base
    self.multiplier = multiplier
    self.maximum = maximum
    self.minimumConnectTimeout = minimumConnectTimeout
  }

  /// The longest wait after `failures` failures in a row (0 for the first retry):
  /// `min(maximum, base * multiplier^failures)`.
  public func ceiling(afterFailures failures: Int) -> Duration {
    let maximumSeconds = Self.seconds(maximum)
    let seconds = Self.seconds(base) * pow(multiplier, Double(max(failures, 0)))
    guard seconds.isFinite, seconds < maximumSeconds else { return maximum }
    return .seconds(max(seconds, 0))
  }

  /// The wait after `failures` failures in a row, full jitter: `random` (uniform in [0, 1],
  /// clamped to it) times the ceiling, so uniform in [0, ceiling].
  public func delay(afterFailures failures: Int, random: Double) -> Duration {
    let share = random.isNaN ? 0 : min(max(random, 0), 1)
    let ceiling = ceiling(afterFailures: failures)
    return .seconds(Self.seconds(ceiling) * share)
  }

  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
