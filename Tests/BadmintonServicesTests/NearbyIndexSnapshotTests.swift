import BadmintonDomain
import BadmintonStore
import Dispatch
import Foundation
import PropertyBased
import Synchronization
import Testing

@testable import BadmintonProjections

@Suite("The nearby index: searches read snapshots")
struct NearbyIndexSnapshotTests {
  private static let centre = Coordinate(latitude: 31.235, longitude: 121.4737)

  /// Player `id`'s record, located at `location` or not located.
  static func player(_ id: Int64, at location: Coordinate?) -> PlayerRecord {
    PlayerRecord(
      id: id, phone: "+86138\(String(format: "%08d", id))", nickname: "P",
      password: PasswordDigest(hash: [1], salt: [2], parameters: "x"), selfLevel: 4,
      verifiedMaxLevel: 7, locale: "en", joinedAtUnixMs: 0, location: location,
      locationUpdatedAtUnixMs: location == nil ? nil : 1, totalGames: 0, wins: 0,
      peerRatingSum: 0, peerRatingCount: 0, reputation: .empty)
  }

  /// A search as NearbyPlayers asks it: where from, how far, after which hit, how many.
  struct Query: Sendable {
    var from: Coordinate
    var radiusMiles: Double
    var after: NearbyHit?
    var limit: Int
  }

  /// Players left out of every search.
  static func isExcluded(_ id: Int64) -> Bool { id % 9 == 4 }
  static let excluded = Set((Int64(0)...1000).filter(isExcluded))

  /// An index built afresh from `shown`, players' shown positions.
  static func oracle(_ shown: [Int64: Coordinate]) -> GeoIndex.Snapshot {
    var index = GeoIndex()
    for (id, position) in shown.sorted(by: { $0.key < $1.key }) {
      index.update(id, to: position)
    }
    return index.snapshot
  }

  /// What `snapshot` answers to `query`, searched as `NearbyIndex.nearest` searches.
  static func answer(_ snapshot: GeoIndex.Snapshot, _ query: Query) -> [NearbyHit] {
    snapshot.nearest(
      to: LocationPrivacy.shownPosition(of: query.from), radiusMiles: query.radiusMiles,
      after: query.after, limit: query.limit, shownDistance: LocationPrivacy.banded,
      excluding: isExcluded)
  }

  static func answer(_ index: NearbyIndex, _ query: Query) -> [NearbyHit] {
    index.nearest(
      to: query.from, radiusMiles: query.radiusMiles, after: query.after, limit: query.limit,
      excluding: excluded)
  }

  /// A location near the centre: most in the one or two cells right by it (so that each holds
  /// hundreds of players), the rest up to a few miles away.
  static func location(using random: inout some RandomNumberGenerator) -> Coordinate {
    let spread = Int.random(in: 0..<5, using: &random) < 3 ? 0.002 : 0.08
    return Coordinate(
      latitude: centre.latitude + Double.random(in: -spread...spread, using: &random),
      longitude: centre.longitude + Double.random(in: -spread...spread, using: &random))
  }

  /// What a linear scan of `shown` (players' shown positions) answers to `query`: every player
  /// whose shown distance is within the radius (both in whole bands), after the cursor and not
  /// left out, nearest first, at most `limit` of them.
  static func scan(_ shown: [Int64: Coordinate], _ query: Query) -> [NearbyHit] {
    let origin = LocationPrivacy.shownPosition(of: query.from)
    let radius = LocationPrivacy.banded(query.radiusMiles)
    var hits: [NearbyHit] = []
    for (id, position) in shown where !isExcluded(id) {
      let hit = NearbyHit(
        playerID: id, distanceMiles: LocationPrivacy.banded(Geo.distanceMiles(origin, position)))
      if hit.distanceMiles <= radius, query.after.map({ $0 < hit }) ?? true { hits.append(hit) }
    }
    return Array(hits.sorted().prefix(query.limit))
  }

  @Test(
    "searches beside a writer of moves and removals each give what a linear scan gave after some number of whole transactions within their span"
  )
  func concurrentSearches_areLinearisable() async throws {
    let ids = Int64(1)...400
    var random = SplitMix(seed: 28)
    var locations: [Int64: Coordinate] = [:]
    for id in ids where Int.random(in: 0..<4, using: &random) > 0 {
      locations[id] = Self.location(using: &random)
    }
    let initial = locations
    // Transactions of one to three changes: a move, a removal or a player located anew.
    let rounds = 3000
    var transactions: [[StoreChange]] = []
    for _ in 0..<rounds {
      var changes: [StoreChange] = []
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        let id = Int64.random(in: ids, using: &random)
        let location =
          Int.random(in: 0..<4, using: &random) == 0 ? nil : Self.location(using: &random)
        changes.append(.player(Self.player(id, at: location)))
      }
      transactions.append(changes)
    }
    // Each a page of players whom most changes touch: the first of the nearest, a page further
    // on, and everyone within two miles.
    let queries = [
      Query(from: Self.centre, radiusMiles: 5, after: nil, limit: 21),
      Query(
        from: Self.centre, radiusMiles: 5, after: NearbyHit(playerID: 150, distanceMiles: 0.5),
        limit: 40),
      Query(from: Self.centre, radiusMiles: 2, after: nil, limit: 1000),
    ]

    let index = NearbyIndex()
    index.apply(initial.map { .player(Self.player($0.key, at: $0.value)) })
    let progress = Progress()
    let planned = transactions
    // Three threads of their own, so that all three run at once whatever the task pool's
    // width; the writer begins once both searchers search.
    let searchers = 2
    let done = DispatchGroup()
    let writer = Thread {
      while progress.searching.load(ordering: .sequentiallyConsistent) < searchers {}
      for (number, changes) in planned.enumerated() {
        progress.started.store(number + 1, ordering: .sequentiallyConsistent)
        index.apply(changes)
        progress.completed.store(number + 1, ordering: .sequentiallyConsistent)
      }
      done.leave()
    }
    for searcher in 0..<searchers {
      done.enter()
      Thread {
        progress.searching.add(1, ordering: .sequentiallyConsistent)
        var asked = searcher
        while progress.completed.load(ordering: .sequentiallyConsistent) < rounds {
          asked = (asked + 1) % queries.count
          let from = progress.completed.load(ordering: .sequentiallyConsistent)
          let page = Self.answer(index, queries[asked])
          let to = progress.started.load(ordering: .sequentiallyConsistent)
          progress.seen.withLock { $0.append((from, to, asked, page)) }
        }
        done.leave()
      }.start()
    }
    done.enter()
    writer.start()
    await withCheckedContinuation { continuation in
      done.notify(queue: .global()) { continuation.resume() }
    }

    // The oracle: a linear scan of the shown positions after each number of transactions, and
    // now and then an index built afresh from them, which must answer alike.
    var shown = initial.mapValues(LocationPrivacy.shownPosition(of:))
    var pages = [queries.map { Self.scan(shown, $0) }]
    for (number, changes) in transactions.enumerated() {
      for case .player(let player) in changes {
        shown[player.id] = player.location.map(LocationPrivacy.shownPosition(of:))
      }
      pages.append(queries.map { Self.scan(shown, $0) })
      if number % 300 == 0 {
        let afresh = Self.oracle(shown)
        #expect(queries.map { Self.answer(afresh, $0) } == pages.last!)
      }
    }
    for (asked, query) in queries.enumerated() {
      #expect(Self.answer(index, query) == pages[rounds][asked])
    }
    #expect(index.snapshot == shown)
    #expect(index.count == shown.count)
    let observed = progress.seen.withLock { $0 }
    // Searches overlapped the writer many times over.
    #expect(observed.count(where: { $0.from < rounds }) >= 10)
    for (from, to, asked, page) in observed {
      #expect(
        (from...to).contains { pages[$0][asked] == page }, "seen between \(from) and \(to)")
    }
  }

  /// How far a writer has gone, and what searches saw meanwhile: the searchers under way, and
  /// the transactions begun and finished when each search started and ended.
  final class Progress: Sendable {
    let searching = Atomic<Int>(0)
    let started = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let seen = Mutex<[(from: Int, to: Int, query: Int, page: [NearbyHit])]>([])
  }

  /// A seeded generator, so that every run makes the same transactions.
  struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  /// Located players, then batches of changes, with searches from near the centre.
  private static let histories = Generator { rng in
    let ids = Int64(1)...Int64.random(in: 1...500, using: &rng)
    let players = ids.compactMap { id -> (Int64, Coordinate)? in
      Bool.random(using: &rng) ? (id, location(using: &rng)) : nil
    }
    let batches = (0..<Int.random(in: 1...20, using: &rng)).map { _ in
      (0..<Int.random(in: 1...20, using: &rng)).map { _ in
        (
          Int64.random(in: ids, using: &rng),
          Int.random(in: 0..<4, using: &rng) == 0 ? nil : location(using: &rng)
        )
      }
    }
    let queries = (0..<3).map { _ in
      Query(
        from: location(using: &rng), radiusMiles: Double.random(in: 0...8, using: &rng),
        after: Bool.random(using: &rng)
          ? NearbyHit(
            playerID: Int64.random(in: ids, using: &rng),
            distanceMiles: Double(Int.random(in: 1...6, using: &rng)) / 2) : nil,
        limit: Int.random(in: 1...60, using: &rng))
    }
    return (players, batches, queries)
  }

  @Test(
    "a snapshot taken before changes answers as the index did then; after them the index answers as one built afresh"
  )
  func snapshots_persistAcrossChanges() async {
    await propertyCheck(count: 150, input: Self.histories) { history in
      let (players, batches, queries) = history
      let index = NearbyIndex()
      var locations: [Int64: Coordinate] = [:]
      for (id, location) in players {
        index.place(id, at: location)
        locations[id] = location
      }
      var kept: [(GeoIndex.Snapshot, [[NearbyHit]], [Int64: Coordinate])] = []
      for batch in batches {
        let snapshot = index.current
        let then = queries.map { Self.answer(index, $0) }
        #expect(queries.map { Self.answer(snapshot, $0) } == then)
        kept.append((snapshot, then, locations))
        index.apply(batch.map { .player(Self.player($0.0, at: $0.1)) })
        for (id, location) in batch { locations[id] = location }
      }
      for (snapshot, then, locationsThen) in kept {
        #expect(queries.map { Self.answer(snapshot, $0) } == then)
        let shownThen = locationsThen.mapValues(LocationPrivacy.shownPosition(of:))
        #expect(then == queries.map { Self.scan(shownThen, $0) })
        #expect(snapshot.count == locationsThen.count)
      }
      let shown = locations.mapValues(LocationPrivacy.shownPosition(of:))
      let afresh = Self.oracle(shown)
      #expect(queries.map { Self.answer(index, $0) } == queries.map { Self.scan(shown, $0) })
      #expect(queries.map { Self.answer(afresh, $0) } == queries.map { Self.scan(shown, $0) })
      #expect(index.snapshot == locations.mapValues(LocationPrivacy.shownPosition(of:)))
      #expect(index.count == locations.count)
      for id in Int64(0)...500 {
        #expect(index.location(of: id) == locations[id].map(LocationPrivacy.shownPosition(of:)))
      }
    }
  }
}
