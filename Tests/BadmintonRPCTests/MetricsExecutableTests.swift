import BadmintonRPC
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("badminton-server metrics")
struct MetricsExecutableTests {
  /// The `badminton-server` built beside the test bundle.
  private static var executable: URL {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return testBinary.deletingLastPathComponent().appendingPathComponent("badminton-server")
  }

  /// The server started with `arguments` and a data folder of its own, and the lines it printed
  /// first (`lines` of them).
  private static func start(_ arguments: [String], lines: Int) throws -> (
    Process, [String], URL
  ) {
    let dataDir = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-metrics-test-\(UUID().uuidString)")
    let process = Process()
    process.executableURL = executable
    process.arguments =
      ["--port", "0", "--data-dir", dataDir.path, "--log-level", "warning"] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var printed: [String] = []
    for _ in 0..<lines {
      guard let line = firstLine(of: output.fileHandleForReading) else { break }
      printed.append(line)
    }
    return (process, printed, dataDir)
  }

  private static func stop(_ process: Process, _ dataDir: URL) {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: dataDir)
  }

  private static func port(in line: String) throws -> Int {
    try #require(Int(line.split(separator: ":").last ?? ""))
  }

  @Test("--metrics-port serves the server's metrics at /metrics on loopback")
  func metricsPort_servesMetrics() async throws {
    let (process, lines, dataDir) = try Self.start(["--metrics-port", "0"], lines: 2)
    defer { Self.stop(process, dataDir) }
    try #require(lines.count == 2)
    #expect(lines[0].hasPrefix("badminton-server listening on 127.0.0.1:"))
    #expect(lines[1].hasPrefix("badminton-server metrics on 127.0.0.1:"))
    let port = try Self.port(in: lines[0])
    let metricsPort = try Self.port(in: lines[1])
    // Read again until it holds: reading /proc needs a descriptor of the test process, which
    // tests opening hundreds of connections at once can use up for a moment (full runs saw a
    // reading come back empty, and one short).
    #expect(
      await waitUntil {
        Set(Self.listeningPorts(of: process.processIdentifier)) == [port, metricsPort]
      })

    let raw = try await RawConnection.connect(port: port)
    try await raw.send(
      Envelope(
        callID: 1, kind: .request, method: Health.check.path,
        payload: HealthCheckRequest().serializedBytes()))
    #expect(try await raw.readEnvelope()?.status?.code == .ok)
    try await raw.send(Envelope(callID: 2, kind: .request, method: "/nope.v1.Nowhere/Nothing"))
    #expect(try await raw.readEnvelope()?.status?.code == .unimplemented)
    try await raw.send(Envelope(callID: 0, kind: .request, method: Health.check.path))
    let seen = try await raw.readUntilClosed()
    #expect(seen.first?.status?.reason == "CALL_ID_ZERO")

    let answer = try await HTTPExchange.request("/metrics", port: metricsPort)
    #expect(answer.status == 200)
    let scrape = Scrape(answer.body)
    let calls = ServerMetrics.Name.calls
    #expect(scrape.value(calls, ["method": Health.check.path, "code": "OK"]) == 1)
    #expect(scrape.value(calls, ["method": "unknown", "code": "UNIMPLEMENTED"]) == 1)
    #expect(scrape.total(calls) == 2)
    #expect(scrape.value(ServerMetrics.Name.goAways, ["reason": "CALL_ID_ZERO"]) == 1)
    let duration = ServerMetrics.Name.callDuration
    #expect(scrape.value(duration + "_count", ["method": Health.check.path]) == 1)
    #expect(scrape.value(ServerMetrics.Name.openConnections) != nil)
    #expect(scrape.value(ServerMetrics.Name.openStreams) == 0)
    #expect(scrape.value("badminton_store_commit_duration_seconds_count") != nil)
    #expect(scrape.value("badminton_match_board_requests") == 0)
    #expect(scrape.value("badminton_nearby_index_players") == 0)
    // The server process's own figures, read from /proc at the scrape.
    #expect((scrape.value("process_resident_memory_bytes") ?? 0) > 0)
    #expect((scrape.value("process_open_fds") ?? 0) > 0)
    let started = try #require(scrape.value("process_start_time_seconds"))
    #expect(abs(started - Date().timeIntervalSince1970) < 3600)

    #expect(try await HTTPExchange.request("/", port: metricsPort).status == 404)
    #expect(
      try await HTTPExchange.request("/metrics", method: "POST", port: metricsPort).status == 405)
  }

  @Test("without --metrics-port no metrics port is opened")
  func metrics_areOffByDefault() async throws {
    let (process, lines, dataDir) = try Self.start([], lines: 1)
    defer { Self.stop(process, dataDir) }
    let line = try #require(lines.first)
    let port = try Self.port(in: line)
    // As above: read again until a reading succeeds with the one port.
    #expect(await waitUntil { Self.listeningPorts(of: process.processIdentifier) == [port] })
  }

  @Test("refuses a bad --metrics-port with a message")
  func badMetricsPort_isRefused() throws {
    let (status, text) = try ServerExecutableTests.runToExit(["--metrics-port", "70000"])
    #expect(status != 0)
    #expect(text.contains("--metrics-port"))
  }

  /// The TCP ports process `pid` listens on, from /proc: its sockets' inodes, looked up in the
  /// kernel's TCP tables.
  private static func listeningPorts(of pid: Int32) -> [Int] {
    let fdDir = "/proc/\(pid)/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: fdDir)) ?? []
    var inodes: Set<String> = []
    for name in names {
      guard
        let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDir)/\(name)"),
        target.hasPrefix("socket:[")
      else { continue }
      inodes.insert(String(target.dropFirst(8).dropLast()))
    }
    var ports: [Int] = []
    for table in ["tcp", "tcp6"] {
      let text = (try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8)) ?? ""
      for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        // sl, local_address, rem_address, st, ..., inode (the 10th field); 0A is LISTEN.
        guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
          let port = Int(fields[1].split(separator: ":").last ?? "", radix: 16)
        else { continue }
        ports.append(port)
      }
    }
    return ports.sorted()
  }

  private static func firstLine(of handle: FileHandle) -> String? {
    var bytes: [UInt8] = []
    while true {
      let chunk = handle.readData(ofLength: 1)
      guard let byte = chunk.first else { return nil }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
  }
}
