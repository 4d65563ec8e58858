public import BadmintonDomain
@_spi(Benchmarks) public import BadmintonProjections
public import BadmintonStore
import Foundation
import Synchronization

/// The matching figures: searches on the server's own match board (the index FindMatches runs
/// on, behind the same locks), its memory, and searches while availability is posted and
/// cancelled.
public enum MatchingWorkloads {
  /// The UTC midnight the synthetic availability starts from: 2026-11-23.
  public static let startUnixMs: Int64 = 1_795_392_000_000

  /// The page size of the searches: the API's default.
  public static let pageSize = PageRules.defaultSize

  /// The memory a world of `requests` and its board take, with room to spare (the world's
  /// requests and players, the board while its tables grow, the searches' queries), and with
  /// `churn` the availability the writer posts as well: what the benchmark checks is available
  /// before it builds them.
  public static func memoryNeeded(requests: Int, churn: Bool = false) -> Int {
    256 << 20 + requests * (churn ? 550 : 450)
  }

  /// The stored form of `request`, as the board is fed from the store.
  public static func record(_ request: MatchRequest) -> AvailabilityRecord {
    let startMinute = Int((request.slot.startUnixMs % 86_400_000) / 60_000)
    let day = Int(request.slot.startUnixMs / 86_400_000)
    let date = LocalDate(year: 1970, month: 1, day: 1).adding(days: day)
    return AvailabilityRecord(
      id: request.id,
      details: NewAvailability(
        playerID: request.playerID, mode: request.mode, date: date, startMinute: startMinute,
        endMinute: startMinute + Int(request.slot.durationMs / 60_000), timeZone: "UTC",
        slot: request.slot, location: request.location, radiusMiles: request.radiusMiles,
        skillTolerance: request.skillTolerance, postedAtUnixMs: request.postedAtUnixMs,
        source: .posted),
      state: .active)
  }

  /// A board holding every request of `world`, and what it added per request: resident
  /// memory, and the bytes malloc handed out (which counts memory reused after earlier frees).
  public static func board(for world: SyntheticWorld) -> (
    board: MatchBoard, bytesPerRequest: Double, heapBytesPerRequest: Double
  ) {
    let count = Double(max(world.requests.count, 1))
    let before = ResidentMemory.current()
    let heapBefore = HeapInUse.current()
    let board = MatchBoard()
    board.insert(
      contentsOf: world.requests.lazy.map { (record: record($0), displayLevel: $0.displayLevel) })
    let heapAfter = HeapInUse.current()
    let after = ResidentMemory.current()
    return (board, Double(after - before) / count, Double(heapAfter - heapBefore) / count)
  }

  /// The query FindMatches runs for the `n`th search: one of the world's availability, picked
  /// at random, searched as its own player would.
  public static func query(_ n: Int, in world: SyntheticWorld, seed: UInt64 = 99) -> MatchRequest {
    var random = SplitMix64(seed: seed &+ UInt64(n) &* 0x9E37_79B9)
    return world.requests[Int.random(in: 0..<world.requests.count, using: &random)]
  }

  /// The latency of `searches` first-page searches, and the mean page length.
  public static func searchLatencies(
    on board: MatchBoard, world: SyntheticWorld, searches: Int
  ) -> (latencies: [Duration], meanPage: Double) {
    let queries = (0..<searches).map { query($0, in: world) }
    var found = 0
    let latencies = timeEach(searches) { n in
      found +=
        board.search(for: queries[n], excluding: [], limit: pageSize, after: nil)
        .candidates.count
    }
    return (latencies, Double(found) / Double(max(searches, 1)))
  }

  /// Posting and cancelling on `board` from one thread while `searchers` others search without
  /// pause, for `duration`: each update cancels a random availability and posts a new one in its
  /// place, as players do. Each is applied as the store's change feed applies a committed
  /// cancellation and a committed post (`MatchBoard.apply`, one transaction each), by players
  /// the board knows; the store's own write is not part of the figure. The latencies are every
  /// searcher's together.
  ///
  /// Besides the clock's figures, the CPU time each side used: the writer's in all (so updates
  /// per second of the writer's CPU), and each search's own (its latency less the time it
  /// waited for a core or a lock), which tell what the board costs on a machine whose cores
  /// other work shares.
  ///
  /// With a `warmup`, the same updates and searches run that long first and only what follows
  /// is measured; `warmupUpdatesPerSecond` is the rate during the warm-up (0 without one). A
  /// board just built has given back its lists' spare room (`MatchBoard.insert(contentsOf:)`
  /// trims it, as a server's start does), so the first post to each list copies its last
  /// chunk into one with room; the warm-up tells that rate from the rate once lists have room.
  public static func churn(
    on board: MatchBoard, world: SyntheticWorld, duration: Duration, searchers: Int = 1,
    warmup: Duration = .zero
  )
    -> (
      warmupUpdatesPerSecond: Double, updatesPerSecond: Double, searchLatencies: [Duration],
      updatesPerWriterCPUSecond: Double, searchCPUTimes: [Duration]
    )
  {
    let stop = Atomic<Bool>(false)
    let clock = ContinuousClock()
    // The measured span starts once the warm-up is over; the writer and the searchers each
    // count from then.
    let start = clock.now + warmup
    let updates = Atomic<Int>(0)
    let warmupUpdates = Atomic<Int>(0)
    let writerCPU = Mutex<Duration>(.zero)
    // The posts: the availability of another world, by the same players.
    let fresh = SyntheticWorld.generate(
      requests: 100_000, startUnixMs: startUnixMs, seed: 4242)
    let writer = Thread {
      var random = SplitMix64(seed: 5)
      var nextID = Int64(world.requests.count) + 1
      // The post that took each of the world's places, by its id (0 for none): the request is
      // made again from the id, so nothing the size of the world is copied and nothing grows
      // while the clock runs.
      var replacedBy = [Int64](repeating: 0, count: world.requests.count)
      replacedBy.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) }
      func posted(_ id: Int64) -> MatchRequest {
        var request = fresh.requests[Int(id) % fresh.requests.count]
        request.id = id
        request.playerID = (request.playerID - 1) % Int64(world.players.count) + 1
        return request
      }
      var cpuAtStart = threadCPUTime()
      var counting = warmup == .zero
      defer { writerCPU.withLock { $0 = threadCPUTime() - cpuAtStart } }
      while !stop.load(ordering: .relaxed) {
        if !counting, clock.now >= start {
          counting = true
          warmupUpdates.store(updates.load(ordering: .relaxed), ordering: .relaxed)
          updates.store(0, ordering: .relaxed)
          cpuAtStart = threadCPUTime()
        }
        let slot = Int.random(in: 0..<world.requests.count, using: &random)
        var cancelled = record(
          replacedBy[slot] == 0 ? world.requests[slot] : posted(replacedBy[slot]))
        cancelled.state = .cancelled
        board.apply([.availability(id: cancelled.id, cancelled)])
        board.apply([.availability(id: nextID, record(posted(nextID)))])
        replacedBy[slot] = nextID
        nextID += 1
        updates.add(1, ordering: .relaxed)
      }
    }
    writer.start()
    // Searcher k runs queries k, k + searchers, ...; the first searcher is this thread.
    let search: @Sendable (Int) -> (latencies: [Duration], cpu: [Duration]) = { first in
      var latencies: [Duration] = []
      var cpu: [Duration] = []
      var n = first
      while clock.now - start < duration {
        let query = query(n, in: world, seed: 7)
        let began = clock.now
        let cpuBegan = threadCPUTime()
        _ = board.search(for: query, excluding: [], limit: pageSize, after: nil)
        let cpuTime = threadCPUTime() - cpuBegan
        if began >= start {
          cpu.append(cpuTime)
          latencies.append(clock.now - began)
        }
        n += max(searchers, 1)
      }
      return (latencies, cpu)
    }
    let others = Mutex<(latencies: [Duration], cpu: [Duration])>(([], []))
    let finished = Atomic<Int>(0)
    for k in 1..<max(searchers, 1) {
      Thread {
        let mine = search(k)
        others.withLock {
          $0.latencies.append(contentsOf: mine.latencies)
          $0.cpu.append(contentsOf: mine.cpu)
        }
        finished.add(1, ordering: .releasing)
      }.start()
    }
    var (latencies, cpu) = search(0)
    while finished.load(ordering: .acquiring) < max(searchers, 1) - 1 {
      Thread.sleep(forTimeInterval: 0.001)
    }
    others.withLock {
      latencies += $0.latencies
      cpu += $0.cpu
    }
    stop.store(true, ordering: .relaxed)
    let elapsed = clock.now - start
    let count = Double(updates.load(ordering: .relaxed))
    let warmupRate =
      warmup == .zero ? 0 : Double(warmupUpdates.load(ordering: .relaxed)) / warmup.seconds
    // The writer notes its CPU time as it stops.
    var writerSeconds = 0.0
    while writerSeconds == 0 {
      Thread.sleep(forTimeInterval: 0.001)
      writerSeconds = writerCPU.withLock { $0 }.seconds
    }
    return (warmupRate, count / elapsed.seconds, latencies, count / writerSeconds, cpu)
  }
}

extension Duration {
  /// The duration in seconds.
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
