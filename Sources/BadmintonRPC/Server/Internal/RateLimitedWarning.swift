/// A warning that is logged at most once per interval; the times it was held back in between
/// are counted into the next one.
struct RateLimitedWarning: Sendable {
  let interval: Duration
  private var lastLogged: ContinuousClock.Instant?
  private var suppressed = 0

  init(interval: Duration) { self.interval = interval }

  /// Whether to log now, and how many were held back since the last one logged.
  mutating func shouldLog(at now: ContinuousClock.Instant) -> (log: Bool, suppressed: Int) {
    if let lastLogged, now < lastLogged + interval {
      suppressed += 1
      return (false, 0)
    }
    lastLogged = now
    defer { suppressed = 0 }
    return (true, suppressed)
  }
}
