import ArgumentParser
import BadmintonAPI
import BadmintonDomain
import BadmintonProjections
import BenchmarkWorkloads
import Foundation
import GRPCPeer

/// Runs the benchmarks and prints every figure beside its budget.
@main
struct BadmintonBench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "badminton-bench",
    abstract: "Measures matching, wire, RPC, events and server memory against the budgets.")

  @Flag(help: "Smaller sizes and shorter runs, for a smoke run.")
  var quick = false

  @Option(
    help:
      "Sections to run, comma separated: matching, churn, nearby, wire, rpc, client, events, memory."
  )
  var only: String = "matching,churn,nearby,wire,rpc,client,events,memory"

  @Option(help: "The badminton-server executable, for the server memory figures.")
  var server: String = "../.build/release/badminton-server"

  @Option(
    name: .customLong("c-client"),
    help: "The C load generator (Benchmarks/load/load.c, built); built with gcc when not given.")
  var cClientPath: String?

  @Option(
    help:
      "The client section's clients, comma separated: c, global (the Swift client on the global executor), loop (on its event loop)."
  )
  var clientExecutors: String = "c,global,loop"

  @Option(help: "Also write the table of figures, in Markdown, to this file.")
  var markdown: String?

  @Option(help: "Also write the churn section's figures, as JSON, to this file.")
  var churnJSON: String?

  func run() async throws {
    let report = Report()
    let sections = Set(only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    print(
      "badminton-bench\(quick ? " --quick" : ""), \(ProcessInfo.processInfo.activeProcessorCount) cores"
    )
    if sections.contains("matching") { matching(report) }
    if sections.contains("churn") { try churn(report) }
    if sections.contains("nearby") { nearby(report) }
    if sections.contains("wire") { try Wire.run(report, quick: quick) }
    if sections.contains("rpc") { try await rpc(report) }
    if sections.contains("client") { try await client(report) }
    if sections.contains("events") { try await events(report) }
    if sections.contains("memory") { try await memory(report) }
    print("\n" + report.markdown)
    if let markdown {
      try report.markdown.write(toFile: markdown, atomically: true, encoding: .utf8)
    }
    print(report.missed == 0 ? "every budget met" : "\(report.missed) budget(s) missed")
  }

  // MARK: Matching

  func matching(_ report: Report) {
    let sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]
    let searches = quick ? 3_000 : 20_000
    var largest: (MatchBoard, SyntheticWorld)?
    for size in sizes {
      report.section("FindMatches on the match board, \(size) active availability")
      let world = SyntheticWorld.generate(
        requests: size, startUnixMs: MatchingWorkloads.startUnixMs)
      let (board, bytes, heapBytes) = MatchingWorkloads.board(for: world)
      let (latencies, meanPage) = MatchingWorkloads.searchLatencies(
        on: board, world: world, searches: searches)
      let summary = LatencySummary(latencies)
      let atBudgetSize = size == 1_000_000
      report.add("FindMatches latency, \(size) active", summary.description)
      report.add(
        "FindMatches p99, \(size) active", summary.p99.formatted,
        budget: "<= 1 ms", met: summary.p99 <= .milliseconds(1), atBudgetSize: atBudgetSize)
      report.add("candidates per first page, \(size) active", String(format: "%.1f", meanPage))
      report.add(
        "match board memory, \(size) active",
        String(format: "%.0f bytes per request resident, %.0f allocated", bytes, heapBytes),
        budget: "<= 200 bytes", met: max(bytes, heapBytes) <= 200, atBudgetSize: atBudgetSize)
      largest = (board, world)
    }
    if let (board, world) = largest {
      report.section("Posting and cancelling while searching, \(world.requests.count) active")
      let (rate, latencies, _, _) = MatchingWorkloads.churn(
        on: board, world: world, duration: .seconds(quick ? 2 : 5))
      report.add("updates per second (cancel + post) while searching", String(format: "%.0f", rate))
      report.add("FindMatches latency during the updates", LatencySummary(latencies).description)
    }
  }

  // MARK: Churn

  /// Cancel + post updates on a board of 1 million (100 thousand with --quick) while two
  /// threads search without pause: the updates per second and the searches' latency.
  func churn(_ report: Report) throws {
    let size = quick ? 100_000 : 1_000_000
    report.section("Cancel + post while 2 threads search, \(size) active availability")
    let world = SyntheticWorld.generate(requests: size, startUnixMs: MatchingWorkloads.startUnixMs)
    let board = MatchingWorkloads.board(for: world).board
    let load =
      (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
      .split(separator: " ").first.map(String.init) ?? "?"
    let (rate, latencies, ratePerCPU, searchCPU) = MatchingWorkloads.churn(
      on: board, world: world, duration: .seconds(quick ? 2 : 5), searchers: 2)
    let summary = LatencySummary(latencies)
    let cpuSummary = LatencySummary(searchCPU)
    report.add(
      "updates per second (cancel + post) while 2 threads search, \(size) active",
      String(format: "%.0f", rate), budget: ">= 100,000", met: rate >= 100_000,
      atBudgetSize: size == 1_000_000)
    report.add(
      "FindMatches p99 during the updates, 2 searching threads, \(size) active",
      summary.description, budget: "<= 1 ms", met: summary.p99 <= .milliseconds(1),
      atBudgetSize: size == 1_000_000)
    report.add(
      "updates per second of the writer's CPU time, \(size) active (load \(load) before)",
      String(format: "%.0f", ratePerCPU))
    report.add(
      "FindMatches CPU time per search during the updates (its latency less waits for a core)",
      cpuSummary.description)
    if let churnJSON {
      let figures: [String: Double] = [
        "churn.active": Double(size), "churn.updates_per_s": rate,
        "churn.updates_per_writer_cpu_s": ratePerCPU,
        "churn.search.cpu_p50_us": cpuSummary.p50.microseconds,
        "churn.search.cpu_p99_us": cpuSummary.p99.microseconds,
        "churn.search.p50_us": summary.p50.microseconds,
        "churn.search.p90_us": summary.p90.microseconds,
        "churn.search.p99_us": summary.p99.microseconds,
        "churn.search.samples": Double(summary.count),
      ]
      let data = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
      try data.write(to: URL(fileURLWithPath: churnJSON))
    }
  }

  // MARK: Nearby

  func nearby(_ report: Report) {
    let count = quick ? 100_000 : 1_000_000
    report.section("NearbyPlayers on the nearby index, \(count) located players")
    let players = SyntheticWorld.locatedPlayers(count)
    let (index, bytes, heapBytes) = NearbyWorkloads.index(players)
    let (latencies, found) = NearbyWorkloads.searchLatencies(
      on: index, players: players, searches: quick ? 2_000 : 10_000)
    let summary = LatencySummary(latencies)
    report.add("NearbyPlayers latency, \(count) located", summary.description)
    report.add(
      "NearbyPlayers p99, \(count) located", summary.p99.formatted,
      budget: "<= 1 ms", met: summary.p99 <= .milliseconds(1), atBudgetSize: count == 1_000_000)
    report.add(
      "players found per search (first page and one more), mean", String(format: "%.1f", found))
    report.add(
      "nearby index memory",
      String(format: "%.0f bytes per player resident, %.0f allocated", bytes, heapBytes))
  }

  // MARK: RPC

  func rpc(_ report: Report) async throws {
    let fixture = FindMatchesFixture(requests: 10_000, pageSize: PageRules.defaultSize)
    let page = fixture.page()
    let calls = quick ? 3_000 : 20_000
    let window: Duration = .seconds(quick ? 2 : 5)
    report.section(
      "Unary FindMatches over loopback TCP (\(page.candidates.count) candidates, "
        + "\(fixture.response(page).serializedBytes().count) bytes)")

    let ours = try await OurRPC.withServer(fixture) { port in
      let latencies = try await OurRPC.latencies(
        port: port, request: fixture.request, calls: calls, warmup: 1_000)
      let load = try await OurRPC.load(
        port: port, request: fixture.request, inFlight: 64, duration: window, warmup: .seconds(1))
      let onLoop = try await OurRPC.load(
        port: port, request: fixture.request, inFlight: 64, duration: window, warmup: .seconds(1),
        onEventLoop: true)
      return (LatencySummary(latencies), load, onLoop)
    }
    let peerServer = try await PeerServer.start { request in
      guard request.availabilityID == fixture.query.id else { throw PeerError.unknownAvailability }
      return fixture.peerResponse(fixture.page())
    }
    let peerLatencies = LatencySummary(
      try await PeerClient.latencies(
        port: peerServer.port, request: fixture.peerRequest, calls: calls, warmup: 1_000))
    let peerLoad = try await PeerClient.load(
      port: peerServer.port, request: fixture.peerRequest, inFlight: 64, duration: window,
      warmup: .seconds(1))
    await peerServer.stop()

    let ourRate = Double(ours.1.calls) / ours.1.elapsed.seconds
    let peerRate = Double(peerLoad.calls) / peerLoad.elapsed.seconds
    report.add("ours, 1 in flight", ours.0.description)
    report.add(
      "ours, round trip p50, 1 in flight", ours.0.p50.formatted, budget: "<= 40 µs",
      met: ours.0.p50 <= .microseconds(40))
    report.add(
      "ours, calls per second, 64 in flight", String(format: "%.0f", ourRate),
      budget: ">= 150000", met: ourRate >= 150_000)
    report.add("ours, latency with 64 in flight", LatencySummary(ours.1.latencies).description)
    let onLoopRate = Double(ours.2.calls) / ours.2.elapsed.seconds
    report.add(
      "ours, calls per second, 64 in flight, callers on the client's event loop",
      String(format: "%.0f", onLoopRate), budget: ">= 150000", met: onLoopRate >= 150_000)
    report.add("grpc-swift 2, 1 in flight", peerLatencies.description)
    report.add("grpc-swift 2, calls per second, 64 in flight", String(format: "%.0f", peerRate))
    report.add(
      "grpc-swift 2, latency with 64 in flight", LatencySummary(peerLoad.latencies).description)
    report.add(
      "round trip p50, grpc-swift 2 / ours",
      String(format: "%.2fx", peerLatencies.p50.seconds / ours.0.p50.seconds))
    report.add(
      "calls per second, ours / grpc-swift 2", String(format: "%.2fx", ourRate / peerRate),
      budget: ">= 10x", met: ourRate >= 10 * peerRate)
    report.add(
      "calls per second, ours on the client's event loop / grpc-swift 2",
      String(format: "%.2fx", onLoopRate / peerRate), budget: ">= 10x",
      met: onLoopRate >= 10 * peerRate)
  }

  // MARK: Events

  func events(_ report: Report) async throws {
    let subscribers = quick ? 100 : 1_000
    report.section("Event delivery from SendMessage to \(subscribers) subscribed players")
    let result = try await EventsWorkload.run(
      subscribers: subscribers, deliveries: quick ? 100 : 500)
    let afterReturn = LatencySummary(result.afterReturn)
    report.add("from the call returning to the subscriber", afterReturn.description)
    report.add(
      "event delivery p99, \(subscribers) subscribers", afterReturn.p99.formatted,
      budget: "<= 5 ms", met: afterReturn.p99 <= .milliseconds(5),
      atBudgetSize: subscribers == 1_000)
    report.add(
      "from the call's start to the subscriber", LatencySummary(result.afterCall).description)
  }

  // MARK: Server memory

  func memory(_ report: Report) async throws {
    report.section("badminton-server resident memory")
    guard FileManager.default.isExecutableFile(atPath: server) else {
      report.add("server memory", "not measured: no executable at \(server) (see --server)")
      return
    }
    let base = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-bench-memory-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: base) }
    let idle = try ServerMemory.residentMemory(server: server, directory: base + "/empty")
    report.add(
      "idle server", megabytes(idle), budget: "<= 30 MB", met: idle <= 30 * 1_048_576)
    let count = quick ? 100_000 : 1_000_000
    try await ServerMemory.seed(directory: base + "/loaded", requests: count)
    let loaded = try ServerMemory.residentMemory(server: server, directory: base + "/loaded")
    report.add("server with \(count) active availability loaded", megabytes(loaded))
    report.add(
      "server memory per active availability",
      String(format: "%.0f bytes", Double(loaded - idle) / Double(count)))
  }
}

enum PeerError: Error { case unknownAvailability }

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
