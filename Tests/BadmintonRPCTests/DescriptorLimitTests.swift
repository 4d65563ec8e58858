import BadmintonRPC
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("badminton-server out of file descriptors")
struct DescriptorLimitTests {
  private static var executable: URL {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return testBinary.deletingLastPathComponent().appendingPathComponent("badminton-server")
  }

  @Test(
    "with more connections than descriptors it pauses accepting, logs it, and serves again once descriptors free up"
  )
  func descriptorExhaustion_pausesAndRecovers() async throws {
    let dataDir = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-server-fd-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dataDir) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    // Soft and hard limit both 64, so that raising the soft limit gains nothing; the caps are
    // set above it so that accept itself runs out.
    process.arguments = [
      "-c", "ulimit -n 64 && exec \"$0\" \"$@\"", Self.executable.path,
      "--port", "0", "--data-dir", dataDir.path, "--log-level", "info",
      "--max-connections", "1000", "--max-connections-per-address", "1000",
      "--shutdown-grace-seconds", "1",
    ]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let log = LogLines()
    errors.fileHandleForReading.readabilityHandler = { handle in
      log.append(handle.availableData)
    }
    try process.run()
    defer { if process.isRunning { process.terminate() } }

    let line = try #require(Self.firstLine(of: output.fileHandleForReading))
    let port = try #require(Int(line.split(separator: ":").last ?? ""))
    // The limit is logged before the port is printed; standard error is read on its own.
    #expect(await waitUntil(limit: hangBound) { log.text.contains("open-files limit") })
    #expect(log.text.contains("soft=64"))
    #expect(log.text.contains("hard=64"))
    #expect(log.text.contains("--max-connections is more than the open-files limit"))

    var held: [RawConnection] = []
    for _ in 0..<80 { held.append(try await RawConnection.connect(port: port)) }
    #expect(
      await waitUntil(limit: hangBound) { log.text.contains("accept failed; pausing accepts") })

    for raw in held { await raw.close() }
    let fresh = try await RawConnection.connect(port: port)
    try await fresh.send(
      Envelope(
        callID: 1, kind: .request, method: Health.check.path,
        payload: HealthCheckRequest().serializedBytes()))
    let answer = try #require(try await fresh.readEnvelope())
    #expect(answer.status?.code == .ok)
    #expect(try HealthCheckResponse(serializedBytes: answer.payload).status == .serving)
    await fresh.close()

    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
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

/// What a child process wrote to its standard error so far.
private final class LogLines: Sendable {
  private let bytes = Mutex<[UInt8]>([])

  func append(_ data: Data) { bytes.withLock { $0.append(contentsOf: data) } }

  var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}

/// Polls `condition` until it holds or `limit` has passed.
private func waitUntil(limit: Duration, _ condition: () -> Bool) async -> Bool {
  let end = ContinuousClock.now + limit
  while ContinuousClock.now < end {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return condition()
}
