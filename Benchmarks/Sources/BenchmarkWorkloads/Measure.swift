import CHeapInfo
import Foundation

#if canImport(Glibc)
  import Glibc

  /// glibc's `malloc_trim` (from malloc.h, which the Glibc module does not export).
  @_silgen_name("malloc_trim")
  private func mallocTrim(_ pad: Int) -> Int32
#endif

/// Resident memory, read from `/proc`.
public enum ResidentMemory {
  /// This process's resident memory in bytes, after glibc has handed freed pages back, so that
  /// two readings differ by what is really held in between.
  public static func current() -> Int {
    releaseFreedMemory()
    return of(pid: getpid()) ?? 0
  }

  /// Hands the pages glibc holds free back to the kernel (`malloc_trim`).
  public static func releaseFreedMemory() {
    #if canImport(Glibc)
      _ = mallocTrim(0)
    #endif
  }

  /// The resident memory of process `pid` in bytes (`VmRSS` of `/proc/PID/status`).
  public static func of(pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
      return kilobytes * 1024
    }
    return nil
  }
}

/// The bytes malloc has handed out and not taken back: unlike resident memory, it does not hide
/// an allocation that reuses memory freed earlier.
public enum HeapInUse {
  /// The bytes now in use.
  public static func current() -> Int { Int(badminton_heap_in_use()) }
}

/// Percentiles of a set of latencies.
public struct LatencySummary: Sendable, CustomStringConvertible {
  /// How many samples.
  public var count: Int
  /// The median.
  public var p50: Duration
  /// The 90th percentile.
  public var p90: Duration
  /// The 99th percentile.
  public var p99: Duration
  /// The slowest.
  public var max: Duration

  /// The percentiles of `samples` (nearest rank); all zero when there are none.
  public init(_ samples: [Duration]) {
    let sorted = samples.sorted()
    count = sorted.count
    func rank(_ p: Double) -> Duration {
      guard !sorted.isEmpty else { return .zero }
      let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
      return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
    }
    p50 = rank(0.50)
    p90 = rank(0.90)
    p99 = rank(0.99)
    max = sorted.last ?? .zero
  }

  public var description: String {
    "p50 \(p50.formatted) · p90 \(p90.formatted) · p99 \(p99.formatted) · max \(max.formatted)"
      + " (\(count) samples)"
  }
}

extension Duration {
  /// Microseconds, as a number.
  public var microseconds: Double {
    Double(components.seconds) * 1e6 + Double(components.attoseconds) / 1e12
  }

  /// The duration in µs below 10 ms, else in ms.
  public var formatted: String {
    let us = microseconds
    return us < 10_000 ? String(format: "%.1f µs", us) : String(format: "%.2f ms", us / 1000)
  }
}

/// Times each run of `body`.
public func timeEach(_ runs: Int, _ body: (Int) -> Void) -> [Duration] {
  let clock = ContinuousClock()
  var samples: [Duration] = []
  samples.reserveCapacity(runs)
  for run in 0..<runs {
    let start = clock.now
    body(run)
    samples.append(clock.now - start)
  }
  return samples
}

/// The CPU time the calling thread has used so far.
public func threadCPUTime() -> Duration {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

/// A megabyte figure; in GB from 1 GB (GiB) up.
public func megabytes(_ bytes: Int) -> String {
  bytes >= 1_073_741_824
    ? String(format: "%.2f GB", Double(bytes) / 1_073_741_824)
    : String(format: "%.1f MB", Double(bytes) / 1_048_576)
}
