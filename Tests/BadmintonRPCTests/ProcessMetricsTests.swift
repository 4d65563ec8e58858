import PropertyBased
import Testing

@testable import BadmintonMetrics

/// A /proc/[pid]/stat line made from chosen fields, and those fields.
private struct StatSample: Sendable, CustomStringConvertible {
  let command: String
  /// Fields 3 to 52; `fields[n - 3]` is field n.
  let fields: [String]

  var line: String { "4242 (\(command)) " + fields.joined(separator: " ") + "\n" }
  var description: String { line }

  func field(_ number: Int) -> Int { Int(fields[number - 3])! }
}

@Suite("Process metrics")
struct ProcessMetricsTests {
  /// A line of the server's /proc/self/stat, as Linux 6 writes it.
  private static let stat =
    "31337 (badminton-serv) S 1 31337 31337 0 -1 4194560 48213 0 12 0 1234 567 0 0 20 0 9 0 "
    + "2216890 1387692032 16384 18446744073709551615 94023459340288 94023459360169 "
    + "140729049093488 0 0 0 0 4096 17990 0 0 0 17 1 0 0 0 0 0 94023459376176 94023459377792 "
    + "94024428998656 140729049094851 140729049094871 140729049094871 140729049096171 0\n"

  /// The start of /proc/stat.
  private static let systemStat = """
    cpu  1064 0 1311 1062468 85 0 21 0 0 0
    cpu0 532 0 655 531234 42 0 10 0 0 0
    intr 123456 0 9 0 0 0 0 0 0 0 0 0 0 0 0
    ctxt 987654
    btime 1795814960
    processes 18432
    procs_running 1

    """

  /// Command names as the kernel may write them: up to 15 bytes, spaces and parentheses
  /// included.
  private static let samples = Generator { rng in
    let alphabet = Array("abc-_ ()0)9(")
    let command = String(
      (0..<Int.random(in: 0...15, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    var fields = ["R"] + (4...52).map { _ in "\(Int.random(in: 0...Int(Int32.max), using: &rng))" }
    // Some fields are signed (priority, nice); the ones read are not.
    fields[18 - 3] = "-\(Int.random(in: 1...100, using: &rng))"
    return StatSample(command: command, fields: fields)
  }

  @Test("a stat line's fields are read whatever the command name holds")
  func statFields_areReadAfterTheCommand() async {
    await propertyCheck(count: 300, input: Self.samples) { sample in
      let stat = ProcessStat(parsing: sample.line)
      #expect(
        stat
          == ProcessStat(
            userTicks: sample.field(14), systemTicks: sample.field(15),
            startTicks: sample.field(22), virtualMemoryBytes: sample.field(23),
            residentPages: sample.field(24)))
    }
  }

  @Test("the figures follow the formulas of Prometheus's client libraries")
  func figures_followFormulas() async {
    await propertyCheck(
      count: 300, input: Gen.int(in: 0...1_000_000), Gen.int(in: 0...1_000_000),
      Gen.int(in: 0...100_000_000), Gen.int(in: 1...1000)
    ) { user, system, start, ticksPerSecond in
      let stat = ProcessStat(
        userTicks: user, systemTicks: system, startTicks: start, virtualMemoryBytes: 7 << 30,
        residentPages: 3000)
      let metrics = ProcessMetrics(
        stat: stat, bootTime: 1_700_000_000, ticksPerSecond: ticksPerSecond, pageSize: 4096,
        openFileDescriptors: 12, maximumFileDescriptors: 1024)
      let ticks = Double(ticksPerSecond)
      #expect(abs(metrics.cpuSeconds - (Double(user) / ticks + Double(system) / ticks)) < 1e-6)
      #expect(abs(metrics.startTimeSeconds - (1_700_000_000 + Double(start) / ticks)) < 1e-6)
      #expect(metrics.residentMemoryBytes == 3000 * 4096)
      #expect(metrics.virtualMemoryBytes == 7 << 30)
    }
  }

  @Test("a sample of /proc/self/stat and /proc/stat gives the expected figures")
  func sample_givesFigures() throws {
    let stat = try #require(ProcessStat(parsing: Self.stat))
    #expect(
      stat
        == ProcessStat(
          userTicks: 1234, systemTicks: 567, startTicks: 2_216_890,
          virtualMemoryBytes: 1_387_692_032, residentPages: 16384))
    let bootTime = try #require(ProcessMetrics.bootTime(parsing: Self.systemStat))
    #expect(bootTime == 1_795_814_960)
    let metrics = ProcessMetrics(
      stat: stat, bootTime: bootTime, ticksPerSecond: 100, pageSize: 4096,
      openFileDescriptors: 23, maximumFileDescriptors: 1_048_576)
    #expect(metrics.cpuSeconds == 18.01)
    #expect(abs(metrics.startTimeSeconds - 1_795_837_128.9) < 1e-3)
    #expect(metrics.residentMemoryBytes == 67_108_864)
  }

  @Test("text that is not a stat line, or lacks a boot time, gives nothing")
  func malformedText_givesNothing() {
    #expect(ProcessStat(parsing: "") == nil)
    #expect(ProcessStat(parsing: "4242 (short) S 1 2 3") == nil)
    #expect(ProcessStat(parsing: Self.stat.replacing(" 1234 567 ", with: " x 567 ")) == nil)
    #expect(ProcessMetrics.bootTime(parsing: "cpu 1 2 3\nctxt 5\n") == nil)
    #expect(ProcessMetrics.bootTime(parsing: "btime soon\n") == nil)
  }

  @Test("the text output has each metric with the Go client's HELP and TYPE lines")
  func emit_writesHelpAndType() {
    let metrics = ProcessMetrics(
      stat: ProcessStat(
        userTicks: 150, systemTicks: 50, startTicks: 500, virtualMemoryBytes: 1 << 30,
        residentPages: 256),
      bootTime: 1_700_000_000, ticksPerSecond: 100, pageSize: 4096, openFileDescriptors: 9,
      maximumFileDescriptors: .infinity)
    var buffer: [UInt8] = []
    metrics.emit(into: &buffer)
    #expect(
      String(decoding: buffer, as: UTF8.self) == """
        # HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
        # TYPE process_cpu_seconds_total counter
        process_cpu_seconds_total 2
        # HELP process_max_fds Maximum number of open file descriptors.
        # TYPE process_max_fds gauge
        process_max_fds +Inf
        # HELP process_open_fds Number of open file descriptors.
        # TYPE process_open_fds gauge
        process_open_fds 9
        # HELP process_resident_memory_bytes Resident memory size in bytes.
        # TYPE process_resident_memory_bytes gauge
        process_resident_memory_bytes 1048576
        # HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
        # TYPE process_start_time_seconds gauge
        process_start_time_seconds 1700000005
        # HELP process_virtual_memory_bytes Virtual memory size in bytes.
        # TYPE process_virtual_memory_bytes gauge
        process_virtual_memory_bytes 1073741824

        """)
  }

  @Test("this process's figures can be read from /proc")
  func read_givesThisProcess() throws {
    let metrics = try #require(ProcessMetrics.read())
    #expect(metrics.residentMemoryBytes > 0)
    #expect(metrics.openFileDescriptors > 0)
    #expect(metrics.maximumFileDescriptors >= Double(metrics.openFileDescriptors))
  }
}
