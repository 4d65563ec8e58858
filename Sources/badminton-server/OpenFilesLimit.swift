#if canImport(Glibc)
  import Glibc
#endif

/// The process's limit on open files (and so on connections): read, and raised from the soft to
/// the hard limit at start.
struct OpenFilesLimit {
  /// The limit in force: a file opened beyond it fails with EMFILE.
  var soft: Int
  /// The most the soft limit may be raised to without privileges.
  var hard: Int

  /// Descriptors kept for the database, its journal, logs and the event loops: not given to
  /// connections.
  static let reserved = 256

  /// The limit now.
  static func current() -> OpenFilesLimit? {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
    return OpenFilesLimit(soft: Self.count(limit.rlim_cur), hard: Self.count(limit.rlim_max))
  }

  /// Raises the soft limit to the hard one; returns the limit before and after (the same when
  /// it could not be raised).
  static func raise() -> (before: OpenFilesLimit, after: OpenFilesLimit)? {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
    let before = OpenFilesLimit(soft: count(limit.rlim_cur), hard: count(limit.rlim_max))
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
    }
    return (before, current() ?? before)
  }

  /// The connections that fit under the soft limit beside the reserved descriptors.
  var connectionCapacity: Int { max(1, soft - Self.reserved) }

  private static func count(_ value: rlim_t) -> Int {
    value > rlim_t(Int.max) ? Int.max : Int(value)
  }
}
