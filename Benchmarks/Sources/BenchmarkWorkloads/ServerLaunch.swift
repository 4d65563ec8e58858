import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A `badminton-server` process started for a benchmark: launched, waited for until its port
/// accepts connections (never longer than a limit), and stopped.
public final class LaunchedServer: @unchecked Sendable {
  /// The process.
  public let process: Process
  /// The port it listens on, on 127.0.0.1.
  public let port: Int
  /// From the launch to the port accepting a connection.
  public let startTime: Duration
  /// Its resident memory as soon as the port accepted a connection.
  public let residentAtListening: Int
  private let errorFile: String

  /// The process id.
  public var pid: Int32 { process.processIdentifier }

  /// Launches `executable` with `--host 127.0.0.1 --port 0` and `arguments`, and waits until
  /// it prints the line `badminton-server listening on HOST:PORT` and PORT accepts a
  /// connection. Throws at once when the process exits or closes its output first, and when
  /// `limit` passes (the process is then killed); the error names the server's last words.
  public init(executable: String, arguments: [String], within limit: Duration) throws {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchmarkShortfall(
        "no badminton-server executable at \(executable) (build it, or name it with --server)")
    }
    let errorFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-bench-server-\(UUID().uuidString).log").path
    _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["--host", "127.0.0.1", "--port", "0"] + arguments
    let output = Pipe()
    process.standardOutput = output
    let errors = FileHandle(forWritingAtPath: errorFile)
    process.standardError = errors
    let clock = ContinuousClock()
    let launched = clock.now
    let deadline = launched + limit
    try process.run()
    try? errors?.close()
    var started = false
    defer {
      if !started {
        Self.stop(process)
        try? FileManager.default.removeItem(atPath: errorFile)
      }
    }

    // The one line the server prints once it listens, after loading everything.
    let descriptor = output.fileHandleForReading.fileDescriptor
    var line: [UInt8] = []
    reading: while true {
      let remaining = deadline - clock.now
      guard remaining > .zero else {
        throw BenchmarkShortfall(
          "badminton-server did not listen within \(limit) (\(executable))\(Self.lastWords(errorFile))"
        )
      }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let waitMs = Int32(min(Double(remaining.components.seconds) * 1000 + 1, 200))
      guard poll(&poller, 1, waitMs) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = read(descriptor, &buffer, buffer.count)
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        // End of its output, or a read that failed: a server still running is stopped (by
        // the caller's `defer`) rather than waited for.
        guard count == 0, !process.isRunning || Self.exits(process, within: .seconds(5)) else {
          throw BenchmarkShortfall(
            "badminton-server closed or broke its output (read returned \(count)) before it listened"
              + Self.lastWords(errorFile))
        }
        throw BenchmarkShortfall(
          "badminton-server exited (status \(process.terminationStatus)) before it listened"
            + Self.lastWords(errorFile))
      }
      for byte in buffer[..<count] {
        if byte == UInt8(ascii: "\n") { break reading }
        line.append(byte)
      }
    }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("badminton-server listening on "),
      let port = text.split(separator: ":").last.flatMap({ Int($0) })
    else {
      throw BenchmarkShortfall("badminton-server printed \"\(text)\" instead of its address")
    }
    // Then the port itself, as a client meets it.
    while !Self.accepts(port: port) {
      guard clock.now < deadline, process.isRunning else {
        throw BenchmarkShortfall(
          "badminton-server printed its address but port \(port) accepted no connection"
            + Self.lastWords(errorFile))
      }
      Thread.sleep(forTimeInterval: 0.001)
    }
    startTime = clock.now - launched
    residentAtListening = ResidentMemory.of(pid: process.processIdentifier) ?? 0
    self.port = port
    self.process = process
    self.errorFile = errorFile
    started = true
  }

  /// Stops the server: SIGTERM, then SIGKILL if it has not exited within 10 s.
  public func stop() {
    Self.stop(process)
    try? FileManager.default.removeItem(atPath: errorFile)
  }

  private static func stop(_ process: Process) {
    guard process.isRunning else { return }
    process.terminate()
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
  /// Whether `process` ends within `limit`, looking every few milliseconds.
  private static func exits(_ process: Process, within limit: Duration) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while process.isRunning {
      guard clock.now < deadline else { return false }
      Thread.sleep(forTimeInterval: 0.005)
    }
    return true
  }

  private static func accepts(port: Int) -> Bool {
    #if canImport(Glibc)
      let socketKind = Int32(SOCK_STREAM.rawValue)
    #else
      let socketKind = SOCK_STREAM
    #endif
    let descriptor = socket(AF_INET, socketKind, 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    return result == 0
  }

  /// The end of what the server wrote to standard error, for an error message.
  private static func lastWords(_ path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return "" }
    let text = String(decoding: data.suffix(2_000), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    return "; its standard error ends:\n\(text)"
  }
}
