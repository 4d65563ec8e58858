import Synchronization

/// The bytes that request frames take on every connection of a server together: frames still
/// arriving, their decompressed bodies while they are parsed, and the requests held by open calls
/// until their handlers end, so that many large requests at once cannot grow its memory without
/// bound.
public final class RequestMemoryBudget: Sendable {
  private let limit: Int
  private let used = Atomic<Int>(0)
  /// The warning that the budget refused a call, logged at most once a minute for the whole
  /// server.
  private let exhaustedWarning = Mutex(RateLimitedWarning(interval: .seconds(60)))

  /// A budget of `limit` bytes.
  public init(limit: Int) { self.limit = limit }

  /// Takes `bytes` from the budget; false, taking nothing, when that would pass the limit.
  public func reserve(_ bytes: Int) -> Bool {
    var current = used.load(ordering: .relaxed)
    while true {
      guard current + bytes <= limit else { return false }
      let (exchanged, original) = used.compareExchange(
        expected: current, desired: current + bytes, ordering: .relaxed)
      if exchanged { return true }
      current = original
    }
  }

  /// Gives back `bytes` taken by `reserve`.
  public func release(_ bytes: Int) {
    used.subtract(bytes, ordering: .relaxed)
  }

  /// Whether to log now that the budget refused a call, and how many such refusals went
  /// unlogged since the last one logged.
  func shouldWarnExhausted(at now: ContinuousClock.Instant) -> (log: Bool, suppressed: Int) {
    exhaustedWarning.withLock { $0.shouldLog(at: now) }
  }

  /// The bytes taken now.
  public var inUse: Int { used.load(ordering: .relaxed) }
}
