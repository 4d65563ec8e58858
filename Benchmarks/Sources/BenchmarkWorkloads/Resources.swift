import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a benchmark could not get (memory, open files, ports, disk, a server that listens, an
/// event that arrives): the section stops at once with this message instead of waiting.
public struct BenchmarkShortfall: Error, CustomStringConvertible {
  /// What was missing, and where it was needed.
  public var description: String

  public init(_ description: String) { self.description = description }
}

/// The machine's resources a section needs, checked before it starts to use them.
public enum SystemResources {
  /// The memory the kernel can give without swapping (`MemAvailable` of `/proc/meminfo`), in
  /// bytes, after glibc has handed back what this process freed; nil where unknown.
  public static func availableMemory() -> Int? {
    ResidentMemory.releaseFreedMemory()
    guard let info = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else {
      return nil
    }
    for line in info.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
      return kilobytes * 1024
    }
    return nil
  }

  /// Throws unless about `bytes` of memory are available for `purpose`.
  public static func requireMemory(_ bytes: Int, for purpose: String) throws {
    guard let available = availableMemory() else { return }
    guard available >= bytes else {
      throw BenchmarkShortfall(
        "\(purpose) needs about \(gigabytes(bytes)) of memory, and only \(gigabytes(available)) "
          + "is available (MemAvailable in /proc/meminfo)")
    }
  }

  /// Throws unless about `bytes` are free on the file system that holds `path`, for `purpose`.
  public static func requireDisk(_ bytes: Int, at path: String, for purpose: String) throws {
    var stats = statvfs()
    guard statvfs(path, &stats) == 0 else { return }
    let free = Int(stats.f_bavail) * Int(stats.f_frsize)
    guard free >= bytes else {
      throw BenchmarkShortfall(
        "\(purpose) needs about \(gigabytes(bytes)) of disk under \(path), and only "
          + "\(gigabytes(free)) is free")
    }
  }

  /// Raises this process's soft limit on open files (`RLIMIT_NOFILE`) to its hard limit when it
  /// is below `needed`, and throws when even the hard limit is below it; returns the soft limit
  /// in force.
  @discardableResult
  public static func requireOpenFiles(_ needed: Int, for purpose: String) throws -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return needed }
    func count(_ value: rlim_t) -> Int { value > rlim_t(Int.max) ? Int.max : Int(value) }
    if count(limit.rlim_cur) < needed, limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
      _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    let soft = count(limit.rlim_cur)
    guard soft >= needed else {
      throw BenchmarkShortfall(
        "\(purpose) needs about \(needed) open files, and this process may open only \(soft) "
          + "(RLIMIT_NOFILE: soft \(soft), hard \(count(limit.rlim_max)); raise the hard "
          + "limit, e.g. `ulimit -Hn \(needed)` as root, or ask for less)")
    }
    return soft
  }

  /// Throws unless the kernel's range of local ports for outgoing connections
  /// (`/proc/sys/net/ipv4/ip_local_port_range`) holds at least `needed`, for `purpose`.
  public static func requireLocalPorts(_ needed: Int, for purpose: String) throws {
    guard
      let text = try? String(
        contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
    else { return }
    let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
      .compactMap { Int($0) }
    guard bounds.count == 2 else { return }
    let ports = bounds[1] - bounds[0] + 1
    guard ports >= needed else {
      throw BenchmarkShortfall(
        "\(purpose) needs about \(needed) local ports, and the kernel's range "
          + "(net.ipv4.ip_local_port_range, \(bounds[0])-\(bounds[1])) holds \(ports)")
    }
  }

  /// `bytes` in GB (GiB) with two decimals.
  public static func gigabytes(_ bytes: Int) -> String {
    String(format: "%.2f GB", Double(bytes) / 1_073_741_824)
  }
}

/// A count written with thousands separators: 10,000,000.
public func grouped(_ count: Int) -> String {
  var digits = Array(String(count.magnitude))
  var text = ""
  while digits.count > 3 {
    text = "," + String(digits.suffix(3)) + text
    digits.removeLast(3)
  }
  return (count < 0 ? "-" : "") + String(digits) + text
}
