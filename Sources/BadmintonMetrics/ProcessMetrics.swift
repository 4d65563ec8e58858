import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The standard `process_*` metrics of Prometheus's client libraries, named and described as the
/// Go client writes them, read on Linux from /proc at each scrape.
struct ProcessMetrics: Sendable, Equatable {
  /// `process_resident_memory_bytes`: resident set size.
  var residentMemoryBytes: Int
  /// `process_virtual_memory_bytes`: size of the address space.
  var virtualMemoryBytes: Int
  /// `process_cpu_seconds_total`: user and system CPU time.
  var cpuSeconds: Double
  /// `process_open_fds`: entries of /proc/self/fd.
  var openFileDescriptors: Int
  /// `process_max_fds`: the soft `RLIMIT_NOFILE` (+Inf when unlimited).
  var maximumFileDescriptors: Double
  /// `process_start_time_seconds`: when the process started, in seconds since the Unix epoch.
  var startTimeSeconds: Double

  /// The figures from a parsed /proc/self/stat, the boot time (`btime` of /proc/stat), the clock
  /// ticks per second and the page size.
  init(
    stat: ProcessStat, bootTime: Int, ticksPerSecond: Int, pageSize: Int,
    openFileDescriptors: Int, maximumFileDescriptors: Double
  ) {
    let ticks = Double(ticksPerSecond)
    residentMemoryBytes = stat.residentPages * pageSize
    virtualMemoryBytes = stat.virtualMemoryBytes
    cpuSeconds = Double(stat.userTicks + stat.systemTicks) / ticks
    self.openFileDescriptors = openFileDescriptors
    self.maximumFileDescriptors = maximumFileDescriptors
    startTimeSeconds = Double(bootTime) + Double(stat.startTicks) / ticks
  }

  /// The `btime` line of /proc/stat: when the system booted, in seconds since the Unix epoch.
  static func bootTime(parsing systemStat: some StringProtocol) -> Int? {
    for line in systemStat.split(separator: "\n") where line.hasPrefix("btime ") {
      return Int(line.dropFirst("btime ".count).trimmingSpaces)
    }
    return nil
  }

  /// Appends the six metrics in Prometheus's text format, each with its `# HELP` and `# TYPE`.
  func emit(into buffer: inout [UInt8]) {
    func add(_ name: String, _ type: String, _ help: String, _ value: String) {
      buffer.append(contentsOf: "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n".utf8)
      buffer.append(contentsOf: "\(name) \(value)\n".utf8)
    }
    add(
      "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
      Self.format(cpuSeconds))
    add(
      "process_max_fds", "gauge", "Maximum number of open file descriptors.",
      Self.format(maximumFileDescriptors))
    add(
      "process_open_fds", "gauge", "Number of open file descriptors.", "\(openFileDescriptors)")
    add(
      "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
      "\(residentMemoryBytes)")
    add(
      "process_start_time_seconds", "gauge",
      "Start time of the process since unix epoch in seconds.", Self.format(startTimeSeconds))
    add(
      "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
      "\(virtualMemoryBytes)")
  }

  /// A sample value as the text format writes it (`+Inf` for infinity).
  private static func format(_ value: Double) -> String {
    if value == .infinity { return "+Inf" }
    if value.rounded() == value, abs(value) < 1e15 { return "\(Int(value))" }
    return "\(value)"
  }
}

/// The fields of /proc/[pid]/stat (proc(5)) the process metrics are made from.
struct ProcessStat: Sendable, Equatable {
  /// `utime` (field 14): CPU time in user mode, in clock ticks.
  var userTicks: Int
  /// `stime` (field 15): CPU time in kernel mode, in clock ticks.
  var systemTicks: Int
  /// `starttime` (field 22): when the process started, in clock ticks after boot.
  var startTicks: Int
  /// `vsize` (field 23): virtual memory size, in bytes.
  var virtualMemoryBytes: Int
  /// `rss` (field 24): resident set size, in pages.
  var residentPages: Int

  /// The fields of `text`, one line of /proc/[pid]/stat; nil when it is not in that format. The
  /// command name (field 2) is in parentheses and may itself hold spaces and parentheses, so the
  /// fields are counted from the last `)`.
  init?(parsing text: some StringProtocol) {
    guard let close = text.lastIndex(of: ")") else { return nil }
    // Field 3 (state) onwards.
    let fields = text[text.index(after: close)...].split(separator: " ")
    func field(_ number: Int) -> Int? {
      let index = number - 3
      return fields.indices.contains(index) ? Int(fields[index].trimmingSpaces) : nil
    }
    guard let user = field(14), let system = field(15), let start = field(22),
      let virtual = field(23), let resident = field(24)
    else { return nil }
    userTicks = user
    systemTicks = system
    startTicks = start
    virtualMemoryBytes = virtual
    residentPages = resident
  }

  init(
    userTicks: Int, systemTicks: Int, startTicks: Int, virtualMemoryBytes: Int, residentPages: Int
  ) {
    self.userTicks = userTicks
    self.systemTicks = systemTicks
    self.startTicks = startTicks
    self.virtualMemoryBytes = virtualMemoryBytes
    self.residentPages = residentPages
  }
}

extension StringProtocol {
  /// Without the spaces and line ends around it.
  fileprivate var trimmingSpaces: SubSequence {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" }
    guard let first = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
    let last = lastIndex(where: { !isSpace($0) })!
    return self[first...last]
  }
}

#if os(Linux)
  extension ProcessMetrics {
    /// The boot time, read once: it is fixed for the life of the process, and /proc/stat grows
    /// with the number of CPUs and interrupts.
    private static let knownBootTime = Mutex<Int?>(nil)

    /// The figures of this process now; nil when /proc cannot be read.
    static func read() -> ProcessMetrics? {
      guard let text = readFile("/proc/self/stat", limit: 4096),
        let stat = ProcessStat(parsing: text),
        let bootTime = cachedBootTime(),
        let openFileDescriptors = countOpenFileDescriptors()
      else { return nil }
      let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
      let pageSize = sysconf(Int32(_SC_PAGESIZE))
      guard ticksPerSecond > 0, pageSize > 0 else { return nil }
      var limit = rlimit()
      guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
      let maximum = limit.rlim_cur == rlim_t.max ? Double.infinity : Double(limit.rlim_cur)
      return ProcessMetrics(
        stat: stat, bootTime: bootTime, ticksPerSecond: ticksPerSecond, pageSize: pageSize,
        openFileDescriptors: openFileDescriptors, maximumFileDescriptors: maximum)
    }

    private static func cachedBootTime() -> Int? {
      if let known = knownBootTime.withLock({ $0 }) { return known }
      guard let text = readFile("/proc/stat", limit: 1 << 20),
        let read = Self.bootTime(parsing: text)
      else { return nil }
      knownBootTime.withLock { $0 = read }
      return read
    }

    /// The entries of /proc/self/fd (the one this reading opens among them, as Prometheus's Go
    /// client counts).
    private static func countOpenFileDescriptors() -> Int? {
      guard let directory = opendir("/proc/self/fd") else { return nil }
      defer { closedir(directory) }
      var count = 0
      while let entry = readdir(directory) {
        let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
        if !isDot { count += 1 }
      }
      return count
    }

    /// The text of a file under /proc (whose size is not known before it is read); nil when it
    /// cannot be read or is longer than `limit` bytes.
    private static func readFile(_ path: String, limit: Int) -> String? {
      let descriptor = open(path, O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { return nil }
      defer { close(descriptor) }
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = chunk.withUnsafeMutableBytes {
          Glibc.read(descriptor, $0.baseAddress, $0.count)
        }
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { return nil }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[..<count])
        guard bytes.count <= limit else { return nil }
      }
      return String(decoding: bytes, as: UTF8.self)
    }
  }
#else
  extension ProcessMetrics {
    /// /proc is Linux's: elsewhere there are no process metrics.
    static func read() -> ProcessMetrics? { nil }
  }
#endif
