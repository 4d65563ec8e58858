/// How long to wait between attempts to reach the database again: gRPC's connection backoff
/// (an initial wait, each next one `multiplier` times longer up to `maximum`, each but the first
/// moved at random by up to `jitter` of itself, so instances that lost the database together do
/// not all come back at the same instant).
///
/// `maximum` bounds how long an instance may take to notice that the database is back: the
/// change tail's schedule (`changeTail`) tries again within `longestWait` of its last failed
/// attempt, however long the database was away.
struct ReconnectBackoff: Sendable {
  /// The wait after the first failed attempt (not jittered).
  var initial: Duration
  /// The longest wait before jitter.
  var maximum: Duration
  /// How much longer each wait is than the one before.
  var multiplier: Double
  /// The fraction of a wait by which it is moved at random, either way.
  var jitter: Double
  /// How long one attempt may take before it counts as failed.
  var attemptTimeout: Duration

  /// The change tail's schedule: 100 ms, then 1.6 times longer each time up to 5 s, ±20%; an
  /// attempt gives up after 3 s.
  static let changeTail = ReconnectBackoff(
    initial: .milliseconds(100), maximum: .seconds(5), multiplier: 1.6, jitter: 0.2,
    attemptTimeout: .seconds(3))

  /// The longest wait the schedule ever gives: `maximum` plus its jitter.
  var longestWait: Duration { maximum * (1 + jitter) }

  /// The waits, from the first.
  func makeIterator() -> Iterator { Iterator(self) }

  /// The waits of one run of failed attempts; a new run starts with a new iterator.
  struct Iterator {
    private let backoff: ReconnectBackoff
    private var isInitial = true
    private var current: Double

    init(_ backoff: ReconnectBackoff) {
      self.backoff = backoff
      current = Self.seconds(backoff.initial)
    }

    /// The next wait, its jitter drawn from the system's random numbers.
    mutating func next() -> Duration {
      var random = SystemRandomNumberGenerator()
      return next(using: &random)
    }

    /// The next wait, its jitter drawn from `random`.
    mutating func next(using random: inout some RandomNumberGenerator) -> Duration {
      if isInitial {
        isInitial = false
        return .nanoseconds(Int64(current * 1e9))
      }
      current = min(current * backoff.multiplier, Self.seconds(backoff.maximum))
      let spread = backoff.jitter * current
      let jittered = current + Double.random(in: -spread...spread, using: &random)
      return .nanoseconds(Int64(jittered * 1e9))
    }

    private static func seconds(_ duration: Duration) -> Double {
      Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
  }
}
