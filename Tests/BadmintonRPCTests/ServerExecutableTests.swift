import BadmintonRPC
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("badminton-server executable")
struct ServerExecutableTests {
  /// The `badminton-server` built beside the test bundle.
  private static var executable: URL {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return testBinary.deletingLastPathComponent().appendingPathComponent("badminton-server")
  }

  @Test("prints its port, creates the data folder, and drains on SIGTERM")
  func sigterm_drainsAndExits() async throws {
    let dataDir = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-server-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dataDir) }
    let process = Process()
    process.executableURL = Self.executable
    process.arguments = [
      "--port", "0", "--data-dir", dataDir.path, "--log-level", "warning",
      "--shutdown-grace-seconds", "5",
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer { if process.isRunning { process.terminate() } }

    let line = try #require(Self.firstLine(of: output.fileHandleForReading))
    #expect(line.hasPrefix("badminton-server listening on 127.0.0.1:"))
    let port = try #require(Int(line.split(separator: ":").last ?? ""))
    #expect(FileManager.default.fileExists(atPath: dataDir.path))

    let raw = try await RawConnection.connect(port: port)
    try await raw.send(
      Envelope(
        callID: 1, kind: .request, method: Health.watch.path,
        payload: HealthCheckRequest().serializedBytes()))
    let first = try #require(try await raw.readEnvelope())
    #expect(first.kind == .streamMessage)
    #expect(try HealthCheckResponse(serializedBytes: first.payload).status == .serving)

    kill(process.processIdentifier, SIGTERM)
    let seen = try await raw.readUntilClosed()
    // GOAWAY comes first, then the NOT_SERVING update and the end of the watch.
    let goAway = try #require(seen.first)
    #expect(goAway.kind == .goaway)
    #expect(seen.filter { $0.kind == .goaway }.count == 1)
    #expect(goAway.status?.reason == "SERVER_SHUTTING_DOWN")
    let updates = seen.filter { $0.kind == .streamMessage }.map {
      try? HealthCheckResponse(serializedBytes: $0.payload).status
    }
    #expect(updates == [.notServing])
    let end = try #require(seen.last)
    #expect(end.kind == .streamEnd)
    #expect(end.status?.code == .unavailable)

    let deadline = ContinuousClock.now + hangBound
    while process.isRunning && ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(!process.isRunning)
    #expect(process.terminationStatus == 0)
  }

  @Test("refuses bad options with a message")
  func badOptions_areRefused() throws {
    let (status, text) = try Self.runToExit(["--port", "70000"])
    #expect(status != 0)
    #expect(text.contains("--port"))
  }

  @Test("--console-port needs an administrator and a port in range, each refused with a message")
  func consoleOptions_areChecked() throws {
    let noAdministrator = try Self.runToExit(["--port", "0", "--console-port", "0"])
    #expect(noAdministrator.status != 0)
    #expect(noAdministrator.errors.contains("--console-port needs an administrator"))
    let badPort = try Self.runToExit(["--port", "0", "--admin-id", "1", "--console-port", "70000"])
    #expect(badPort.status != 0)
    #expect(badPort.errors.contains("--console-port must be 0...65535"))
    let exposed = try Self.runToExit(
      ["--port", "0", "--admin-id", "1", "--console-port", "0", "--console-host", "0.0.0.0"])
    #expect(exposed.status != 0)
    #expect(exposed.errors.contains("--console-host 0.0.0.0 is not a loopback address"))
    let idle = try Self.runToExit(["--port", "0", "--console-idle-minutes", "0"])
    #expect(idle.errors.contains("--console-idle-minutes must be 1...1440"))
    let connections = try Self.runToExit(["--port", "0", "--console-connections", "0"])
    #expect(connections.status != 0)
    #expect(connections.errors.contains("--console-connections must be 1...100000"))
    let share = try Self.runToExit([
      "--port", "0", "--console-connections", "8", "--console-connections-per-address", "9",
    ])
    #expect(share.status != 0)
    #expect(
      share.errors.contains(
        "--console-connections-per-address must be 1...--console-connections"))
  }

  @Test("--database: a bad URL or a database it cannot reach stops the start, naming the problem")
  func badDatabase_stopsTheStart() throws {
    let notURL = try Self.runToExit(["--port", "0", "--database", "badminton.example"])
    #expect(notURL.status == 1)
    #expect(
      notURL.errors.contains(
        "cannot open the database badminton.example: not a PostgreSQL URL"))
    // Nothing listens there: refused at once, with the password kept out of the message.
    let socketFolder = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-no-postgres-\(UUID().uuidString)").path
    let unreachable = try Self.runToExit([
      "--port", "0", "--database",
      "postgresql://badminton:s3cret@localhost:5432/badminton?host=\(socketFolder)",
    ])
    #expect(unreachable.status == 1)
    #expect(
      unreachable.errors.contains(
        "cannot open the database postgresql://badminton:***@localhost:5432/badminton?host="))
    #expect(
      unreachable.errors.contains("cannot connect to the socket \(socketFolder)/.s.PGSQL.5432"))
    #expect(!unreachable.errors.contains("s3cret"))
    let small = try Self.runToExit(["--database-pool-size", "2"])
    #expect(small.status != 0)
    #expect(small.errors.contains("--database-pool-size must be at least 3"))
  }

  /// Runs the server executable with `arguments` until it exits: its status and what it wrote
  /// to standard error.
  static func runToExit(_ arguments: [String]) throws -> (status: Int32, errors: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = Pipe()
    try process.run()
    process.waitUntilExit()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return (process.terminationStatus, text)
  }

  @Test("serves TLS with --tls-certificate-chain and --tls-private-key, and logs that it does")
  func tlsOptions_serveTLS() async throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let (chain, key) = try authority.issueServerCertificate()
    let dataDir = authority.folder.appendingPathComponent("data")
    let process = Process()
    process.executableURL = Self.executable
    process.arguments = [
      "--port", "0", "--data-dir", dataDir.path, "--log-level", "info",
      "--tls-certificate-chain", chain, "--tls-private-key", key,
    ]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    defer { if process.isRunning { process.terminate() } }

    let line = try #require(Self.firstLine(of: output.fileHandleForReading))
    let port = try #require(Int(line.split(separator: ":").last ?? ""))
    let client = RPCClient(
      host: "127.0.0.1", port: port,
      configuration: ClientConfiguration(
        tls: try ClientTLSConfiguration(caFile: authority.certificateFile)))
    #expect(try await client.health.check().status == .serving)
    await client.close()
    let plain = RPCClient(host: "127.0.0.1", port: port)
    let refusal = await rpcError { _ = try await plain.health.check() }
    await plain.close()
    #expect(refusal?.reason == "TLS_REQUIRED")

    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(log.contains("serving TLS"))
    #expect(log.contains("transport=TLS"))
  }

  @Test("a TLS key that does not match the certificate stops the server with a message naming it")
  func mismatchedKey_stopsTheServer() throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let (chain, _) = try authority.issueServerCertificate()
    let (_, otherKey) = try authority.issueServerCertificate(named: "other")
    let process = Process()
    process.executableURL = Self.executable
    process.arguments = [
      "--port", "0", "--data-dir", authority.folder.appendingPathComponent("data").path,
      "--tls-certificate-chain", chain, "--tls-private-key", otherKey,
    ]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = Pipe()
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(text.contains("cannot serve TLS: \(otherKey) does not match"))
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
