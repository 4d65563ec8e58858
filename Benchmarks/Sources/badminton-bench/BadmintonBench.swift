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
    abstract: "Measures matching, wire, RPC, events and server memory against the budgets.",
    discussion: """
      Sizes are comma-separated counts; k and M stand for thousand and million (10k, 1M, 10M). \
      Without --quick: matching at 10k,100k,1M,10M; churn at 1M,10M; nearby at 1M,10M; events \
      with 1,000 subscribers; server memory idle and on 10M players and availability. With \
      --quick: matching at 10k,100k; churn, nearby and server memory at 100k; 100 subscribers. \
      Each size is built after the one before has been freed, once /proc/meminfo shows the \
      memory it needs available. A section that cannot get what it needs (memory, disk, open \
      files, ports, a server that listens, an event that arrives) stops at once with a message; \
      the other sections still run, and the run then exits with status 1.
      """)

  @Flag(help: "Smaller sizes and shorter runs, for a smoke run.")
  var quick = false

  @Option(
    help:
      "Sections to run, comma separated: matching, churn, nearby, wire, rpc, client, events, memory."
  )
  var only: String = BadmintonBench.sectionNames.joined(separator: ",")

  @Option(
    name: .customLong("matching-sizes"),
    help: ArgumentHelp(
      "Match board sizes of the matching section, in active availability (default 10k,100k,1M,10M; 10k,100k with --quick).",
      valueName: "sizes"))
  var matchingSizes: String?

  @Option(
    name: .customLong("churn-sizes"),
    help: ArgumentHelp(
      "Board sizes of the churn section, cancel + post while 2 threads search (default 1M,10M; 100k with --quick).",
      valueName: "sizes"))
  var churnSizes: String?

  @Option(
    name: .customLong("nearby-sizes"),
    help: ArgumentHelp(
      "Located players of the nearby section (default 1M,10M; 100k with --quick).",
      valueName: "sizes"))
  var nearbySizes: String?

  @Option(
    name: .customLong("memory-sizes"),
    help: ArgumentHelp(
      "Players, each with one active availability, stored for the server memory section; the idle server is always measured too (default 10M; 100k with --quick).",
      valueName: "sizes"))
  var memorySizes: String?

  @Option(
    name: .customLong("memory-store"),
    help: ArgumentHelp(
      "A folder the server memory section keeps its seeded stores in (one per size, seeded once): a later run naming it starts the server on them without seeding again. Without it, each store is seeded in a temporary folder and removed.",
      valueName: "folder"))
  var memoryStore: String?

  @Option(help: "Subscribed players of the events section (default 1,000; 100 with --quick).")
  var subscribers: Int?

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

  @Option(
    help:
      "Also write the churn section's figures, as JSON, to this file (churn.N.* for each size N, churn.* for the last)."
  )
  var churnJSON: String?

  static let sectionNames = [
    "matching", "churn", "nearby", "wire", "rpc", "client", "events", "memory",
  ]

  func validate() throws {
    for name in sections where !Self.sectionNames.contains(name) {
      throw ValidationError(
        "unknown section \(name) in --only (sections: \(Self.sectionNames.joined(separator: ", ")))"
      )
    }
    for (option, text) in [
      ("--matching-sizes", matchingSizes), ("--churn-sizes", churnSizes),
      ("--nearby-sizes", nearbySizes), ("--memory-sizes", memorySizes),
    ] {
      if let text { _ = try Self.sizes(text, option: option) }
    }
    if let subscribers, subscribers < 1 {
      throw ValidationError("--subscribers must be at least 1")
    }
  }

  var sections: [String] {
    only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }

  func run() async throws {
    let report = Report()
    let chosen = Set(sections)
    print(
      "badminton-bench\(quick ? " --quick" : ""), \(ProcessInfo.processInfo.activeProcessorCount) cores"
    )
    var stopped: [(section: String, reason: String)] = []
    for name in Self.sectionNames where chosen.contains(name) {
      do {
        switch name {
        case "matching": try matching(report)
        case "churn": try churn(report)
        case "nearby": try nearby(report)
        case "wire": try Wire.run(report, quick: quick)
        case "rpc": try await rpc(report)
        case "client": try await client(report)
        case "events": try await events(report)
        default: try await memory(report)
        }
      } catch {
        let reason = "\(error)"
        report.add(
          "the \(name) section", "stopped: \(reason)", budget: "runs to the end", met: false)
        stopped.append((name, reason))
      }
    }
    print("\n" + report.markdown)
    if let markdown {
      try report.markdown.write(toFile: markdown, atomically: true, encoding: .utf8)
    }
    print(report.missed == 0 ? "every budget met" : "\(report.missed) budget(s) missed")
    if !stopped.isEmpty {
      print(
        "\(stopped.count) section(s) stopped: \(stopped.map(\.section).joined(separator: ", "))")
      throw ExitCode.failure
    }
  }

  // MARK: Sizes

  /// The counts of a comma-separated list: digits (`_` allowed), with `k` or `M` for thousand
  /// and million.
  static func sizes(_ text: String, option: String) throws -> [Int] {
    let sizes = try text.split(separator: ",").map { part -> Int in
      var digits = part.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")
      var scale = 1
      if let last = digits.last, "kKmM".contains(last) {
        scale = last == "k" || last == "K" ? 1_000 : 1_000_000
        digits.removeLast()
      }
      guard let value = Int(digits), value > 0 else {
        throw ValidationError("\(option): \"\(part)\" is not a count (e.g. 100000, 100k, 10M)")
      }
      return value * scale
    }
    guard !sizes.isEmpty else { throw ValidationError("\(option): no size given") }
    return sizes
  }

  func sizes(_ text: String?, option: String, full: [Int], quick quickSizes: [Int]) throws
    -> [Int]
  {
    if let text { return try Self.sizes(text, option: option) }
    return quick ? quickSizes : full
  }

  // MARK: Matching

  // Budgets that hold at some sizes only, by size: a figure at another size has none.

  /// FindMatches p99, in process, 1 in flight.
  static let findMatchesBudgets: [Int: (text: String, limit: Duration)] = [
    1_000_000: ("<= 1 ms", .milliseconds(1)), 10_000_000: ("<= 250 µs", .microseconds(250)),
  ]
  /// Match board bytes per active request, resident and allocated.
  static let boardMemoryBudgets: [Int: (text: String, limit: Double)] = [
    1_000_000: ("<= 200 bytes", 200), 10_000_000: ("<= 120 bytes", 120),
  ]

  func matching(_ report: Report) throws {
    let sizes = try sizes(
      matchingSizes, option: "--matching-sizes",
      full: [10_000, 100_000, 1_000_000, 10_000_000], quick: [10_000, 100_000])
    let searches = quick ? 3_000 : 20_000
    var largest: (MatchBoard, SyntheticWorld)?
    for (position, size) in sizes.enumerated() {
      let last = position == sizes.count - 1
      report.section("FindMatches on the match board, \(grouped(size)) active availability")
      // The size before is freed by now; this one is built only if it fits.
      try SystemResources.requireMemory(
        MatchingWorkloads.memoryNeeded(requests: size, churn: last),
        for: "the match board at \(grouped(size)) active availability")
      let world = SyntheticWorld.generate(
        requests: size, startUnixMs: MatchingWorkloads.startUnixMs)
      let (board, bytes, heapBytes) = MatchingWorkloads.board(for: world)
      let (latencies, meanPage) = MatchingWorkloads.searchLatencies(
        on: board, world: world, searches: searches)
      let summary = LatencySummary(latencies)
      report.add("FindMatches latency, \(grouped(size)) active", summary.description)
      let latencyBudget = Self.findMatchesBudgets[size]
      report.add(
        "FindMatches p99, \(grouped(size)) active", summary.p99.formatted,
        budget: latencyBudget?.text ?? "", met: latencyBudget.map { summary.p99 <= $0.limit })
      report.add(
        "candidates per first page, \(grouped(size)) active", String(format: "%.1f", meanPage))
      let memoryBudget = Self.boardMemoryBudgets[size]
      report.add(
        "match board memory, \(grouped(size)) active",
        String(format: "%.0f bytes per request resident, %.0f allocated", bytes, heapBytes),
        budget: memoryBudget?.text ?? "",
        met: memoryBudget.map { max(bytes, heapBytes) <= $0.limit })
      if last { largest = (board, world) }
    }
    if let (board, world) = largest {
      report.section(
        "Posting and cancelling while searching, \(grouped(world.requests.count)) active")
      let (_, rate, latencies, _, _) = MatchingWorkloads.churn(
        on: board, world: world, duration: .seconds(quick ? 2 : 5))
      report.add("updates per second (cancel + post) while searching", String(format: "%.0f", rate))
      report.add("FindMatches latency during the updates", LatencySummary(latencies).description)
    }
  }

  // MARK: Churn

  /// How long the churn section's updates and searches run before what follows is measured:
  /// the time a board just built takes to give its lists room again (`MatchingWorkloads.churn`).
  static func churnWarmup(quick: Bool) -> Duration { .seconds(quick ? 1 : 10) }

  /// Sizes at which cancel + post has its budget.
  static let churnBudgetSizes: Set<Int> = [1_000_000, 10_000_000]

  /// Cancel + post updates on a board of 1 million and of 10 million (100 thousand with
  /// --quick) while two threads search without pause: the updates per second and the
  /// searches' latency.
  func churn(_ report: Report) throws {
    let sizes = try sizes(
      churnSizes, option: "--churn-sizes", full: [1_000_000, 10_000_000], quick: [100_000])
    var figures: [String: Double] = [:]
    for size in sizes {
      try churn(report, size: size, figures: &figures)
      if let churnJSON {
        let data = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: churnJSON))
      }
    }
  }

  private func churn(_ report: Report, size: Int, figures: inout [String: Double]) throws {
    report.section("Cancel + post while 2 threads search, \(grouped(size)) active availability")
    try SystemResources.requireMemory(
      MatchingWorkloads.memoryNeeded(requests: size, churn: true),
      for: "the churn section at \(grouped(size)) active availability")
    let world = SyntheticWorld.generate(requests: size, startUnixMs: MatchingWorkloads.startUnixMs)
    let board = MatchingWorkloads.board(for: world).board
    let load =
      (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
      .split(separator: " ").first.map(String.init) ?? "?"
    let warmup = Self.churnWarmup(quick: quick)
    let (warmupRate, rate, latencies, ratePerCPU, searchCPU) = MatchingWorkloads.churn(
      on: board, world: world, duration: .seconds(quick ? 2 : 5), searchers: 2, warmup: warmup)
    let summary = LatencySummary(latencies)
    let cpuSummary = LatencySummary(searchCPU)
    let atBudgetSize = Self.churnBudgetSizes.contains(size)
    report.add(
      "updates per second in the first \(warmup.components.seconds) s after the board is built "
        + "(each list's first post copies its trimmed last chunk), \(grouped(size)) active",
      String(format: "%.0f", warmupRate))
    report.add(
      "updates per second (cancel + post) while 2 threads search, after that warm-up, "
        + "\(grouped(size)) active",
      String(format: "%.0f", rate), budget: ">= 100,000", met: rate >= 100_000,
      atBudgetSize: atBudgetSize)
    report.add(
      "FindMatches p99 during the updates, 2 searching threads, \(grouped(size)) active",
      summary.description, budget: "<= 1 ms", met: summary.p99 <= .milliseconds(1),
      atBudgetSize: atBudgetSize)
    report.add(
      "updates per second of the writer's CPU time, \(grouped(size)) active (load \(load) before)",
      String(format: "%.0f", ratePerCPU))
    report.add(
      "FindMatches CPU time per search during the updates (its latency less waits for a core)",
      cpuSummary.description)
    let sized: [String: Double] = [
      "active": Double(size), "updates_per_s": rate, "warmup_updates_per_s": warmupRate,
      "updates_per_writer_cpu_s": ratePerCPU,
      "search.cpu_p50_us": cpuSummary.p50.microseconds,
      "search.cpu_p99_us": cpuSummary.p99.microseconds,
      "search.p50_us": summary.p50.microseconds,
      "search.p90_us": summary.p90.microseconds,
      "search.p99_us": summary.p99.microseconds,
      "search.samples": Double(summary.count),
    ]
    for (key, value) in sized {
      figures["churn.\(size).\(key)"] = value
      figures["churn.\(key)"] = value
    }
  }

  // MARK: Nearby

  /// NearbyPlayers p99.
  static let nearbyBudgets: [Int: (text: String, limit: Duration)] = [
    1_000_000: ("<= 1 ms", .milliseconds(1)), 10_000_000: ("<= 100 µs", .microseconds(100)),
  ]
  /// Nearby index bytes per located player, resident and allocated.
  static let nearbyMemoryBudgets: [Int: (text: String, limit: Double)] = [
    10_000_000: ("<= 80 bytes", 80)
  ]

  func nearby(_ report: Report) throws {
    let sizes = try sizes(
      nearbySizes, option: "--nearby-sizes", full: [1_000_000, 10_000_000], quick: [100_000])
    for count in sizes {
      report.section("NearbyPlayers on the nearby index, \(grouped(count)) located players")
      try SystemResources.requireMemory(
        NearbyWorkloads.memoryNeeded(players: count),
        for: "the nearby index at \(grouped(count)) located players")
      let players = SyntheticWorld.locatedPlayers(count)
      let (index, bytes, heapBytes) = NearbyWorkloads.index(players)
      let (latencies, found) = NearbyWorkloads.searchLatencies(
        on: index, players: players, searches: quick ? 2_000 : 10_000)
      let summary = LatencySummary(latencies)
      report.add("NearbyPlayers latency, \(grouped(count)) located", summary.description)
      let latencyBudget = Self.nearbyBudgets[count]
      report.add(
        "NearbyPlayers p99, \(grouped(count)) located", summary.p99.formatted,
        budget: latencyBudget?.text ?? "", met: latencyBudget.map { summary.p99 <= $0.limit })
      report.add(
        "players found per search (first page and one more), mean", String(format: "%.1f", found))
      let memoryBudget = Self.nearbyMemoryBudgets[count]
      report.add(
        "nearby index memory, \(grouped(count)) located",
        String(format: "%.0f bytes per player resident, %.0f allocated", bytes, heapBytes),
        budget: memoryBudget?.text ?? "",
        met: memoryBudget.map { max(bytes, heapBytes) <= $0.limit })
    }
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
    let subscribers = self.subscribers ?? (quick ? 100 : 1_000)
    report.section("Event delivery from SendMessage to \(grouped(subscribers)) subscribed players")
    let result = try await EventsWorkload.run(
      subscribers: subscribers, deliveries: quick ? 100 : 500)
    let afterCall = LatencySummary(result.afterCall)
    report.add("from the call's start to the subscriber", afterCall.description)
    report.add(
      "event delivery p99 from the call's start, \(grouped(subscribers)) subscribers",
      afterCall.p99.formatted, budget: "<= 5 ms", met: afterCall.p99 <= .milliseconds(5),
      atBudgetSize: subscribers == 1_000)
    report.add(
      "from the call returning to the subscriber", LatencySummary(result.afterReturn).description)
  }

  // MARK: Server memory

  /// How long a server may take to listen before the section gives up on it (the budget is
  /// far below; this only keeps a broken start from holding up the run).
  static let serverStartLimit: Duration = .seconds(600)
  /// The size at which the loaded server has its budgets.
  static let serverBudgetSize = 10_000_000

  func memory(_ report: Report) async throws {
    let sizes = try sizes(
      memorySizes, option: "--memory-sizes", full: [10_000_000], quick: [100_000])
    report.section("badminton-server: start time and resident memory")
    guard FileManager.default.isExecutableFile(atPath: server) else {
      throw BenchmarkShortfall(
        "the memory section needs the release badminton-server: no executable at \(server) "
          + "(build it with `swift build -c release --product badminton-server "
          + "--static-swift-stdlib`, or name it with --server)")
    }
    let base = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-bench-memory-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let idle = try ServerMemory.start(
      server: server, directory: base + "/empty", within: Self.serverStartLimit)
    report.add(
      "idle server", megabytes(idle.residentSettled), budget: "<= 30 MB",
      met: idle.residentSettled <= 30 * 1_048_576)
    report.add("idle server, start to listening", String(format: "%.2f s", idle.time.seconds))
    for size in sizes {
      let stored = "\(grouped(size)) players and \(grouped(size)) active availability stored"
      let purpose = "the server with \(stored)"
      try SystemResources.requireMemory(ServerMemory.memoryNeeded(players: size), for: purpose)
      let directory = (memoryStore ?? base) + "/loaded-\(size)"
      // A kept store is seeded once; a file `seeded` in its folder says seeding finished.
      let seeded = directory + "/seeded"
      if memoryStore != nil, FileManager.default.fileExists(atPath: seeded) {
        report.add("seeding the store, \(stored)", "kept from an earlier run in \(directory)")
      } else {
        try? FileManager.default.removeItem(atPath: directory)
        try SystemResources.requireDisk(
          64 << 20 + size * ServerMemory.diskBytesPerPlayer,
          at: memoryStore ?? base, for: purpose)
        let seeding = try await ServerMemory.seed(directory: directory, players: size)
        report.add("seeding the store, \(stored)", String(format: "%.1f s", seeding.seconds))
        if memoryStore != nil {
          FileManager.default.createFile(atPath: seeded, contents: Data())
        }
      }
      defer { if memoryStore == nil { try? FileManager.default.removeItem(atPath: directory) } }
      let loaded = try ServerMemory.start(
        server: server, directory: directory, within: Self.serverStartLimit)
      let atBudgetSize = size == Self.serverBudgetSize
      report.add(
        "server start to listening (launch to the port accepting), \(stored)",
        String(format: "%.2f s", loaded.time.seconds), budget: "<= 60 s",
        met: loaded.time <= .seconds(60), atBudgetSize: atBudgetSize)
      let resident = max(loaded.residentAtListening, loaded.residentSettled)
      report.add(
        "server resident memory, \(stored)",
        "\(megabytes(loaded.residentAtListening)) once listening, "
          + "\(megabytes(loaded.residentSettled)) 2 s later",
        budget: "<= 3 GB", met: resident <= 3 << 30, atBudgetSize: atBudgetSize)
      report.add(
        "server memory per player with an availability, above the idle server",
        String(format: "%.0f bytes", Double(resident - idle.residentSettled) / Double(size)))
    }
  }
}

enum PeerError: Error { case unknownAvailability }

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
