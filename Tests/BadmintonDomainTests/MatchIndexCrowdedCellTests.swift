import BadmintonDomain
import PropertyBased
import Testing

/// A crowded cell: thousands of requests in one grid cell of one day, so that its lists run to
/// many chunks, in either form (split by level or not), with level changes and removals on the
/// way, and the lists trimmed half way.
@Suite("The match index with a crowded cell")
struct MatchIndexCrowdedCellTests {
  /// One run: how crowded cells are split, and the seed of the changes.
  struct Run: Sendable {
    var splitCellsAbove: Int
    var seed: UInt64
  }

  static let runs = Generator { rng in
    Run(
      splitCellsAbove: [0, 128, 1_000_000].randomElement(using: &rng)!,
      seed: UInt64.random(in: 0...UInt64.max, using: &rng))
  }

  @Test(
    "thousands of requests in one cell, split by level or not: every snapshot taken on the way answers searches and page walks as a plain scan, before and after the lists are trimmed"
  )
  func crowdedCell() async {
    await propertyCheck(count: 6, input: Self.runs) { run in
      var rng = Xoshiro(seed: (run.seed, ~run.seed, 0x9E37_79B9_7F4A_7C15, 1))
      var index = MatchIndex(cellDegrees: 1, splitCellsAbove: run.splitCellsAbove)
      var live: [Int64: MatchRequest] = [:]
      var levels: [Int64: Int] = [:]
      let base: Int64 = 20_000 * 86_400_000
      func current(_ request: MatchRequest) -> MatchRequest {
        var request = request
        request.displayLevel = levels[request.playerID]!
        return request
      }
      var snapshots: [(MatchIndex.Snapshot, [MatchRequest])] = []
      for step in 0..<4_000 {
        let operation = Int.random(in: 0..<100, using: &rng)
        if operation < 70 || live.count < 50 {
          let id = Int64(step + 1)
          let player = Int64.random(in: 1...900, using: &rng)
          let start = base + Int64.random(in: 0..<8, using: &rng) * 900_000
          let request = MatchRequest(
            id: id, playerID: player, mode: .singles,
            slot: TimeSlot(startUnixMs: start, endUnixMs: start + 2 * 3_600_000),
            location: Coordinate(
              latitude: 31.2 + Double.random(in: 0..<0.5, using: &rng),
              longitude: 121.1 + Double.random(in: 0..<0.5, using: &rng)),
            radiusMiles: [5, 25, 50].randomElement(using: &rng)!,
            skillTolerance: Int.random(in: 0...8, using: &rng),
            displayLevel: Int.random(in: 1...9, using: &rng),
            postedAtUnixMs: base - Int64.random(in: 0...3, using: &rng))
          index.insert(request)
          live[id] = request
          levels[player] = request.displayLevel
        } else if operation < 90 {
          let id = live.keys.randomElement(using: &rng)!
          #expect(index.remove(id) == current(live[id]!))
          live[id] = nil
        } else {
          let player = Int64.random(in: 1...900, using: &rng)
          let level = Int.random(in: 1...9, using: &rng)
          index.updateLevel(playerID: player, level: level)
          if levels[player] != nil { levels[player] = level }
        }
        if step == 2_000 { index.trim() }
        if step % 1_000 == 0 { snapshots.append((index.snapshot, live.values.map(current))) }
      }
      snapshots.append((index.snapshot, live.values.map(current)))
      #expect(index.count == live.count)
      for (snapshot, requests) in snapshots {
        #expect(Set(snapshot.requests) == Set(requests))
        for number in 0..<4 {
          let query = requests[number * 37 % requests.count]
          let isBusy: (Int64, TimeSlot) -> Bool = { player, _ in player % 5 == 0 }
          let expected = requests.compactMap { MatchRules.candidate($0, for: query) }
            .filter { !isBusy($0.playerID, $0.overlap) }.sorted(by: MatchCandidate.precedes)
          #expect(
            snapshot.search(for: query, isBusy: isBusy, limit: 100_000).candidates == expected)
          // Page by page, each cursor through its page token as a client hands it back.
          var walked: [MatchCandidate] = []
          var cursor: MatchCursor?
          for _ in 0...expected.count {
            let page = snapshot.search(for: query, isBusy: isBusy, limit: 7, after: cursor)
            walked += page.candidates
            cursor = page.nextCursor.flatMap { try? MatchCursor(token: $0.token) }
            if page.nextCursor == nil { break }
          }
          #expect(walked == expected)
        }
      }
    }
  }

  @Test(
    "indexes over one table of places reuse the chunks their copies replaced only once no snapshot holds them: every snapshot kept while others were let go keeps what it held"
  )
  func reusedChunks() async {
    await propertyCheck(count: 4, input: Self.runs) { run in
      var rng = Xoshiro(seed: (run.seed, ~run.seed, 0x9E37_79B9_7F4A_7C15, 2))
      let places = MatchIndex.Places()
      // Two indexes over one table, as a board's parts are: one crowded cell in each.
      var indexes = [
        MatchIndex(cellDegrees: 1, splitCellsAbove: run.splitCellsAbove, places: places),
        MatchIndex(cellDegrees: 1, splitCellsAbove: run.splitCellsAbove, places: places),
      ]
      var live: [[Int64: MatchRequest]] = [[:], [:]]
      let base: Int64 = 20_000 * 86_400_000
      // The last few snapshots, as searches still reading recent versions hold them, and the
      // ones kept to the end with what they held.
      var recent: [MatchIndex.Snapshot] = []
      var kept: [(MatchIndex.Snapshot, Set<MatchRequest>)] = []
      for step in 0..<3_000 {
        let part = Int.random(in: 0...1, using: &rng)
        if Int.random(in: 0..<100, using: &rng) < 60 || live[part].count < 50 {
          let id = Int64(step + 1)
          let start = base + Int64.random(in: 0..<8, using: &rng) * 900_000
          // A player per request, so that no level change reaches another part's requests.
          let request = MatchRequest(
            id: id, playerID: id, mode: .singles,
            slot: TimeSlot(startUnixMs: start, endUnixMs: start + 2 * 3_600_000),
            location: Coordinate(
              latitude: 31.2 + Double(part) * 2 + Double.random(in: 0..<0.5, using: &rng),
              longitude: 121.1 + Double.random(in: 0..<0.5, using: &rng)),
            radiusMiles: 25, skillTolerance: Int.random(in: 0...8, using: &rng),
            displayLevel: Int.random(in: 1...9, using: &rng), postedAtUnixMs: base)
          indexes[part].insert(request)
          live[part][id] = request
        } else {
          let id = live[part].keys.randomElement(using: &rng)!
          #expect(indexes[part].remove(id) == live[part][id])
          live[part][id] = nil
        }
        recent.append(indexes[part].snapshot)
        if recent.count > Int.random(in: 1...4, using: &rng) { recent.removeFirst() }
        if step % 200 == 0 { kept.append((indexes[part].snapshot, Set(live[part].values))) }
      }
      for part in 0...1 {
        #expect(Set(indexes[part].snapshot.requests) == Set(live[part].values))
      }
      for (snapshot, requests) in kept {
        #expect(Set(snapshot.requests) == requests)
      }
    }
  }
}
