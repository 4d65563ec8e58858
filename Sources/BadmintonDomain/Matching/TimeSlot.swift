/// A stretch of time between two instants: the start included, the end excluded.
public struct TimeSlot: Hashable, Sendable {
  /// The start, in milliseconds since 1970-01-01 UTC.
  public var startUnixMs: Int64
  /// The end, in milliseconds since 1970-01-01 UTC; later than the start.
  public var endUnixMs: Int64

  /// The slot from `startUnixMs` to `endUnixMs`.
  public init(startUnixMs: Int64, endUnixMs: Int64) {
    self.startUnixMs = startUnixMs
    self.endUnixMs = endUnixMs
  }

  /// The shortest common time two slots need to match: 30 minutes.
  public static let minimumOverlapMs: Int64 = 30 * 60 * 1000

  /// The slot's length in milliseconds.
  public var durationMs: Int64 { endUnixMs - startUnixMs }

  /// The time both slots cover, if it lasts at least 30 minutes.
  public func overlap(with other: TimeSlot) -> TimeSlot? {
    let start = max(startUnixMs, other.startUnixMs)
    let end = min(endUnixMs, other.endUnixMs)
    guard end > start, end - start >= Self.minimumOverlapMs else { return nil }
    return TimeSlot(startUnixMs: start, endUnixMs: end)
  }
}
