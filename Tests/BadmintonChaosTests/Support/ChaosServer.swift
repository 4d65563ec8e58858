import ChaosSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The `badminton-server` built beside the test bundle, serving SQLite from one data folder on
/// one port across kills and restarts.
final class ChaosServer: @unchecked Sendable {
  // Only the chaos test's driver task starts, kills and stops it, one step at a time; the lock
  // keeps the process handle consistent for `isRunning` readers.
  private let lock = NSLock()
  private var process: Process?
  /// The data folder (`--data-dir`).
  let dataDirectory: URL
  /// Where the server's standard error goes, every run appended.
  let logFile: URL
  /// The port it listens on: picked by the first start, kept by every restart.
  private(set) var port: Int = 0
  /// Starts so far.
  private(set) var starts = 0

  /// The server did not print its port: it stopped at start.
  struct DidNotStart: Error, CustomStringConvertible {
    var status: Int32
    var log: String
    var description: String { "badminton-server exited with \(status): \(log)" }
  }

  /// The PostgreSQL database (`--database`) it serves from instead of SQLite, when set.
  let database: String?

  init(dataDirectory: URL, database: String? = nil) {
    self.dataDirectory = dataDirectory
    self.database = database
    self.logFile = dataDirectory.deletingLastPathComponent().appendingPathComponent("server.log")
  }

  /// The executable.
  static var executable: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("badminton-server")
  }

  /// The SQLite file the server writes.
  var databasePath: String { dataDirectory.appendingPathComponent("badminton.sqlite").path }

  /// Starts the server (on a free port the first time, on the same port after) and waits for
  /// its "listening on" line. A restart whose port is still held by the killed process's
  /// connections is tried again, at most 50 times.
  ///
  /// The first start picks a port below the system's ephemeral range, so that while the server
  /// is down no outgoing connection can take its port as a local port; another one when it is
  /// taken.
  func start() throws {
    let first = port == 0
    var attempt = 0
    while true {
      let port = first ? ChaosProxy.portOutsideEphemeralRange() : self.port
      do {
        try startOnce(port: port)
        return
      } catch let error as DidNotStart where attempt < 50 {
        attempt += 1
        _ = error
        if !first { usleep(100_000) }
      }
    }
  }

  private func startOnce(port: Int) throws {
    if !FileManager.default.fileExists(atPath: logFile.path) {
      _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
    }
    let log = try FileHandle(forWritingTo: logFile)
    log.seekToEndOfFile()
    let process = Process()
    process.executableURL = Self.executable
    process.arguments =
      [
        "--port", String(port), "--data-dir", dataDirectory.path, "--log-level", "error",
        "--scrypt-log-n", "10", "--registrations-per-address-per-hour", "0",
        "--shutdown-grace-seconds", "5",
      ] + (database.map { ["--database", $0] } ?? [])
    let output = Pipe()
    process.standardOutput = output
    process.standardError = log
    try process.run()
    var line: [UInt8] = []
    while let byte = output.fileHandleForReading.readData(ofLength: 1).first, byte != 0x0A {
      line.append(byte)
    }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("badminton-server listening on"),
      let port = Int(text.split(separator: ":").last ?? "")
    else {
      process.waitUntilExit()
      throw DidNotStart(
        status: process.terminationStatus,
        log: (try? String(contentsOf: logFile, encoding: .utf8)) ?? "")
    }
    lock.withLock {
      self.process = process
      self.port = port
      starts += 1
    }
  }

  /// Kills the process at once, as a crash would (SIGKILL), and waits for it.
  func kill() {
    guard let process = lock.withLock({ self.process }) else { return }
    if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    lock.withLock { self.process = nil }
  }

  /// Asks the process to drain and stop (SIGTERM) and waits for it; its exit status.
  @discardableResult
  func stop() -> Int32 {
    guard let process = lock.withLock({ self.process }) else { return 0 }
    if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
    lock.withLock { self.process = nil }
    return process.terminationStatus
  }
}
