import BadmintonDomain
import BadmintonProjections
@preconcurrency import Benchmark
import BenchmarkWorkloads
import Synchronization

// FindMatches and NearbyPlayers on the server's own indexes, with thresholds that
// `swift package benchmark thresholds check` holds them to (stored in Thresholds/).

/// Which query an iteration runs next.
final class Turn: Sendable {
  private let next = Atomic<Int>(0)
  func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
}

let benchmarks: @Sendable () -> Void = {
  // Allocations may differ by 2 from the stored thresholds, and latency may double: the p90 of
  // the same build differs by up to 65% between runs on a shared 2-core virtual machine without
  // instruction counters, so only a regression of 2x or more fails the check on latency.
  let tolerances: [BenchmarkMetric: BenchmarkThresholds] = [
    .wallClock: BenchmarkThresholds(relative: [.p50: 100, .p90: 100, .p99: 100]),
    .mallocCountTotal: BenchmarkThresholds(absolute: [.p50: 2, .p90: 2, .p99: 2]),
  ]
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .microseconds, warmupIterations: 100, maxDuration: .seconds(3),
    maxIterations: 20_000, thresholds: tolerances)

  for size in [10_000, 100_000, 1_000_000] {
    Benchmark("FindMatches-\(size)-active") {
      (benchmark: Benchmark, state: (MatchBoard, SyntheticWorld, Turn)) in
      let (board, world, turn) = state
      for _ in benchmark.scaledIterations {
        let query = MatchingWorkloads.query(turn.take(), in: world)
        blackHole(
          board.search(
            for: query, excluding: [], limit: MatchingWorkloads.pageSize, after: nil))
      }
    } setup: {
      let world = SyntheticWorld.generate(
        requests: size, startUnixMs: MatchingWorkloads.startUnixMs)
      return (MatchingWorkloads.board(for: world).board, world, Turn())
    }
  }

  Benchmark("NearbyPlayers-1000000-located") {
    (benchmark: Benchmark, state: (NearbyIndex, [SyntheticPlayer], Turn)) in
    let (index, players, turn) = state
    for _ in benchmark.scaledIterations {
      let caller = players[(turn.take() &* 7919) % players.count]
      blackHole(
        index.nearest(
          to: caller.home, radiusMiles: NearbyWorkloads.radiusMiles, after: nil,
          limit: PageRules.defaultSize + 1, excluding: [caller.id]))
    }
  } setup: {
    let players = SyntheticWorld.locatedPlayers(1_000_000)
    return (NearbyWorkloads.index(players).index, players, Turn())
  }
}
