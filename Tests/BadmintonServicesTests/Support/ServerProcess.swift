import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A `badminton-server` process, the one built beside the test bundle, on a free port.
///
/// It starts with quick test settings (errors only in the log, the cheapest scrypt cost, no
/// registration limit per address) and then `arguments`, which override them. Its standard
/// error goes to a file, read with `errors`.
struct ServerProcess {
  /// The running process.
  let process: Process
  /// The port it listens on, read from its first line of output.
  let port: Int
  /// Where its standard error goes.
  let errorFile: URL
  /// The port of its operator console, read from its output, when `--console-port` was given.
  var consolePort: Int?

  /// The server did not print its port: it stopped at start. `errors` is what it said.
  struct DidNotStart: Error, CustomStringConvertible {
    var status: Int32
    var errors: String
    var description: String { "badminton-server exited with \(status): \(errors)" }
  }

  /// The executable.
  static var executable: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("badminton-server")
  }

  /// Starts the server with `arguments` after the test settings and waits for its port.
  static func start(_ arguments: [String]) throws -> ServerProcess {
    let errorFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-server-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
    let process = Process()
    process.executableURL = executable
    process.arguments =
      [
        "--port", "0", "--log-level", "error", "--scrypt-log-n", "10",
        "--registrations-per-address-per-hour", "0",
      ] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = try FileHandle(forWritingTo: errorFile)
    try process.run()
    func nextLine() -> String {
      var line: [UInt8] = []
      while let byte = output.fileHandleForReading.readData(ofLength: 1).first, byte != 0x0A {
        line.append(byte)
      }
      return String(decoding: line, as: UTF8.self)
    }
    let text = nextLine()
    guard let port = Int(text.split(separator: ":").last ?? "") else {
      process.waitUntilExit()
      let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
      try? FileManager.default.removeItem(at: errorFile)
      throw DidNotStart(status: process.terminationStatus, errors: errors)
    }
    var server = ServerProcess(process: process, port: port, errorFile: errorFile)
    if arguments.contains("--console-port") {
      // After the RPC line (and the metrics line, when metrics are on).
      for _ in 0..<2 {
        let line = nextLine()
        if line.hasPrefix("badminton-server console on ") {
          server.consolePort = Int(line.split(separator: ":").last ?? "")
          break
        }
      }
    }
    return server
  }

  /// What the server wrote to standard error so far.
  var errors: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

  /// Kills the process at once, as a crash would: no drain, no cleanup.
  func kill() {
    if process.isRunning {
      Glibc.kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    try? FileManager.default.removeItem(at: errorFile)
  }

  /// Asks the process to drain and stop (SIGTERM) and waits for it; its exit status.
  @discardableResult
  func stop() -> Int32 {
    if process.isRunning {
      Glibc.kill(process.processIdentifier, SIGTERM)
    }
    process.waitUntilExit()
    return process.terminationStatus
  }
}
