import BadmintonRPC
import BenchmarkWorkloads
import Foundation
import GRPCPeer

/// The Swift client beside the C load generator (`load/load.c`) on Health/Check against one
/// release `badminton-server`, and beside grpc-swift 2 on the same call, in one run, against the
/// client budgets of docs/benchmarks.md.
extension BadmintonBench {
  func client(_ report: Report) async throws {
    let calls = quick ? 5_000 : 20_000
    let window: Duration = .seconds(quick ? 1 : 3)
    report.section("The Swift client beside the C client: Health/Check on one release server")
    let tool = try cClient()
    let data = FileManager.default.temporaryDirectory.appendingPathComponent(
      "badminton-bench-client-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: data) }
    let server = try ServerProcess(executable: self.server, dataDirectory: data.path)
    defer { server.stop() }

    // The C client first, then the Swift client, on the same server process.
    let c = clientExecutors.contains("c") ? try runC(tool, port: server.port, pid: server.pid) : [:]
    let cP50 = Duration.microseconds(c["health.1x1.p50_us"] ?? 0)
    let cSleepingP50 = Duration.microseconds(c["health.1x1_sleeping.p50_us"] ?? 0)
    let cRate = c["health.1x64.calls_per_s"] ?? 0

    var swift:
      [(
        name: String, latency: LatencySummary, rate: Double, clientMicros: Double,
        serverMicros: Double
      )] = []
    for onLoop in [false, true] where clientExecutors.contains(onLoop ? "loop" : "global") {
      let latencies = try await OurRPC.latencies(
        port: server.port, method: Health.check, request: HealthCheckRequest(), calls: calls,
        warmup: 2_000, onEventLoop: onLoop)
      let serverBefore = ProcessCPU.seconds(pid: server.pid)
      let clientBefore = ProcessCPU.seconds(pid: getpid())
      let load = try await OurRPC.load(
        port: server.port, method: Health.check, request: HealthCheckRequest(), inFlight: 64,
        duration: window, warmup: .milliseconds(500), onEventLoop: onLoop)
      // CPU over the whole load run, warm-up included, per call of the measured window's rate.
      let serverCPU = ProcessCPU.seconds(pid: server.pid) - serverBefore
      let clientCPU = ProcessCPU.seconds(pid: getpid()) - clientBefore
      let rate = Double(load.calls) / load.elapsed.seconds
      let runSeconds = load.elapsed.seconds + 0.5
      swift.append(
        (
          onLoop ? "on the connection's event loop" : "on the global executor",
          LatencySummary(latencies), rate,
          clientCPU / (rate * runSeconds) * 1e6, serverCPU / (rate * runSeconds) * 1e6
        ))
    }

    // grpc-swift 2 on the same call: its server (Health/Check answers SERVING) and its client in
    // this process, over HTTP/2 on loopback, one connection; ours above is a server process and
    // this process's client, so each side has the same 2 cores.
    let peer = try await PeerServer.start { _ in throw PeerError.unknownAvailability }
    let peerLatencies = LatencySummary(
      try await PeerClient.latencies(
        port: peer.port, call: .healthCheck, calls: calls, warmup: 2_000))
    let peerLoad = try await PeerClient.load(
      port: peer.port, call: .healthCheck, inFlight: 64, duration: window,
      warmup: .milliseconds(500))
    await peer.stop()
    let peerRate = Double(peerLoad.calls) / peerLoad.elapsed.seconds

    report.add("C client, 1 in flight, busy-polling", "p50 \(cP50.formatted)")
    report.add("C client, 1 in flight, asleep in recv", "p50 \(cSleepingP50.formatted)")
    report.add(
      "C client, calls per second, 64 in flight, 1 connection", String(format: "%.0f", cRate))
    report.add(
      "grpc-swift 2 client and server, Health/Check, 1 in flight", peerLatencies.description)
    report.add(
      "grpc-swift 2 client and server, calls per second, 64 in flight, 1 connection",
      String(format: "%.0f", peerRate))
    for figures in swift {
      report.add("Swift client \(figures.name), 1 in flight", figures.latency.description)
      report.add(
        "Swift client \(figures.name), p50 / the C client's",
        String(
          format: "%.2fx (%.2fx of the C client asleep in recv)",
          figures.latency.p50.seconds / cP50.seconds,
          figures.latency.p50.seconds / cSleepingP50.seconds),
        budget: "<= 1.25x", met: figures.latency.p50.seconds <= 1.25 * cP50.seconds)
      report.add(
        "Swift client \(figures.name), calls per second, 64 in flight, 1 connection",
        String(format: "%.0f (%.2fx the C client's)", figures.rate, figures.rate / cRate),
        budget: ">= 150000", met: figures.rate >= 150_000)
      report.add(
        "Swift client \(figures.name), calls per second / grpc-swift 2's, 64 in flight",
        String(format: "%.2fx", figures.rate / peerRate), budget: ">= 10x",
        met: figures.rate >= 10 * peerRate)
      report.add(
        "Swift client \(figures.name), CPU per call at 64 in flight",
        String(
          format:
            "client %.1f µs, server %.1f µs (the C client's run: server %.1f µs, client %.1f µs)",
          figures.clientMicros, figures.serverMicros, c["health.1x64.server_cpu_us_per_call"] ?? 0,
          c["health.1x64.client_cpu_us_per_call"] ?? 0))
    }
  }

  /// The C load generator: `--c-client`, or built from `load/load.c` with gcc as
  /// `load/run.sh` builds it.
  private func cClient() throws -> String {
    if let cClientPath { return cClientPath }
    // The protocol's C code and the product's, as protoc-c generated them.
    let targets = [
      ("../Sources/CBadmintonRPCProto", "badminton/rpc/v1"),
      ("../Sources/CBadmintonProto", "badminton/v1"),
    ]
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "badminton-bench-load-\(ProcessInfo.processInfo.processIdentifier)"
    ).path
    let sources = try targets.flatMap { target, folder in
      let generated = "\(target)/generated/\(folder)"
      return try FileManager.default.contentsOfDirectory(atPath: generated)
        .filter { $0.hasSuffix(".pb-c.c") }.map { "\(generated)/\($0)" }
    }
    let gcc = Process()
    gcc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    gcc.arguments =
      [
        "gcc", "-O2", "-std=gnu11", "-I", "../Sources/CBadmintonRPCProto/include", "-I",
        "../Sources/CBadmintonProto/include", "-o", output, "load/load.c",
      ] + sources + ["-lprotobuf-c", "-lzstd", "-lm"]
    try gcc.run()
    gcc.waitUntilExit()
    guard gcc.terminationStatus == 0 else { throw BenchError.cClientBuildFailed }
    return output
  }

  /// Runs the C client's `health` command; its figures by key.
  private func runC(_ tool: String, port: Int, pid: Int32) throws -> [String: Double] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments =
      ["--port", "\(port)", "--pid", "\(pid)"] + (quick ? ["--quick"] : []) + ["health"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    var figures: [String: Double] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: "\t")
      if parts.count == 3, parts[0] == "R", let value = Double(parts[2]) {
        figures[String(parts[1])] = value
      }
    }
    return figures
  }
}

/// A release `badminton-server` on a port of its own and a fresh data folder.
struct ServerProcess {
  let server: LaunchedServer
  var port: Int { server.port }
  var pid: Int32 { server.pid }

  init(executable: String, dataDirectory: String) throws {
    server = try LaunchedServer(
      executable: executable,
      arguments: [
        "--data-dir", dataDirectory, "--log-level", "error", "--shutdown-grace-seconds", "0",
      ],
      within: .seconds(120))
  }

  func stop() { server.stop() }
}

enum BenchError: Error {
  case cClientBuildFailed
}

/// CPU time of a process, from /proc.
enum ProcessCPU {
  /// User and system CPU seconds of process `pid` so far (`utime + stime`).
  static func seconds(pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return 0 }
    // After the command in parentheses: state is field 3, utime 14, stime 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
      return 0
    }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }
}
