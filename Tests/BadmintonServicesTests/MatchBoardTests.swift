import BadmintonDomain
import BadmintonServices
import BadmintonStore
import Foundation
import StoreTestSupport
import Synchronization
import Testing

@testable import BadmintonProjections

@Suite("Match board")
struct MatchBoardTests {
  @Test(
    "the match index is rebuilt from the store at start: active availability only",
    arguments: StoreKind.allCases)
  func board_rebuiltAtStart(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let now = clock.nowUnixMs()
      var expected: Set<Int64> = []
      var all: [Int64] = []
      for index in 0..<6 {
        let player = try await store.createPlayer(
          NewPlayer(
            phone: PlayerWorld.newPhone(), nickname: "P\(index)",
            password: PasswordDigest(hash: [1], salt: [2], parameters: "scrypt:16:1:1"),
            selfLevel: 4, locale: "en", joinedAtUnixMs: now))
        // Index 0 ended half an hour ago; all others are under way or ahead, and index 1 is
        // cancelled.
        let start = now + Int64(index) * 3_600_000 + 1_800_000 - 3_600_000
        let record = try await store.createAvailability(
          NewAvailability(
            playerID: player.id, mode: .singles, date: .init(year: 2027, month: 1, day: 15),
            startMinute: 0, endMinute: 60, timeZone: "UTC",
            slot: .init(startUnixMs: start - 3_600_000, endUnixMs: start),
            location: .init(latitude: 1, longitude: 2), radiusMiles: 10, skillTolerance: 2,
            postedAtUnixMs: now, source: .posted),
          activeLimit: 10, now: 0
        ) { _ in [] }
        if index == 1 { _ = try await store.cancelAvailability(id: record.id, playerID: player.id) }
        if index >= 2 { expected.insert(record.id) }
        all.append(record.id)
      }
      let services = try await PlayerServices.start(
        store: store, configuration: PlayerServicesConfiguration(passwordCost: .testing),
        clock: clock)
      #expect(services.board.count == expected.count)
      for id in all { #expect(services.board.contains(id) == expected.contains(id)) }
    }
  }

  // MARK: Applying changes

  static let base: Int64 = 1_800_000_000_000 + 86_400_000
  static let hour: Int64 = 3_600_000

  /// New players at the levels given, numbered from 1 as a fresh store numbers them: the board
  /// is given records, so these tests need no store.
  static func players(_ levels: [Int]) -> [PlayerRecord] {
    levels.enumerated().map { index, level in
      PlayerRecord(
        id: Int64(index + 1), phone: PlayerWorld.newPhone(), nickname: "P",
        password: PasswordDigest(hash: [1], salt: [2], parameters: "x"), selfLevel: level,
        verifiedMaxLevel: 7, locale: "en", joinedAtUnixMs: 0, location: nil,
        locationUpdatedAtUnixMs: nil, totalGames: 0, wins: 0, peerRatingSum: 0,
        peerRatingCount: 0, reputation: .empty)
    }
  }

  /// Singles availability `id` of `playerID` in central Shanghai, two hours from `base`.
  static func availability(
    _ id: Int64, of playerID: Int64, _ state: AvailabilityState = .active, tolerance: Int = 8
  ) -> AvailabilityRecord {
    AvailabilityRecord(
      id: id,
      details: NewAvailability(
        playerID: playerID, mode: .singles, date: LocalDate(year: 2027, month: 1, day: 16),
        startMinute: 600, endMinute: 720, timeZone: "UTC",
        slot: TimeSlot(startUnixMs: base, endUnixMs: base + 2 * hour),
        location: Coordinate(latitude: 31.23, longitude: 121.47), radiusMiles: 10,
        skillTolerance: tolerance, postedAtUnixMs: 0, source: .posted),
      state: state)
  }

  static func match(
    _ id: Int64, _ players: [Int64], _ state: StoredMatchState, endingAt end: Int64 = base + hour
  ) -> MatchRecord {
    MatchRecord(
      id: id, mode: .singles, slot: TimeSlot(startUnixMs: end - hour, endUnixMs: end),
      participants: players.enumerated().map {
        MatchParticipantRecord(playerID: $1, availabilityID: 0, team: $0 + 1)
      }, state: state, proposalID: 0, confirmedAtUnixMs: 0)
  }

  @Test("active availability is on the board and any other state or a deletion takes it off")
  func availability_followsItsState() async throws {
    let players = Self.players([4, 6])
    let board = MatchBoard()
    board.apply(players.map { .player($0) })
    let id: Int64 = 7
    board.apply([.availability(id: id, Self.availability(id, of: players[0].id))])
    #expect(board.request(id)?.displayLevel == 4)
    for state in [AvailabilityState.cancelled, .matched] {
      board.apply([.availability(id: id, Self.availability(id, of: players[0].id))])
      board.apply([.availability(id: id, Self.availability(id, of: players[0].id, state))])
      #expect(!board.contains(id))
    }
    board.apply([.availability(id: id, Self.availability(id, of: players[0].id))])
    board.apply([.availability(id: id, nil)])
    #expect(board.count == 0)
  }

  @Test("an availability indexed before its player's level is known waits for it")
  func availability_waitsForItsLevel() async throws {
    let players = Self.players([4])
    let board = MatchBoard()
    board.apply([.availability(id: 1, Self.availability(1, of: players[0].id))])
    #expect(!board.contains(1))
    board.apply([.player(players[0])])
    #expect(board.request(1)?.displayLevel == 4)
  }

  @Test("a display level change re-levels all the player's availability, whenever each arrived")
  func level_reachesEveryEntry() async throws {
    var players = Self.players([4])
    let board = MatchBoard()
    board.apply([
      .player(players[0]), .availability(id: 1, Self.availability(1, of: players[0].id)),
    ])
    players[0].selfLevel = 7
    board.apply([.player(players[0])])
    board.apply([.availability(id: 2, Self.availability(2, of: players[0].id))])
    #expect(board.request(1)?.displayLevel == 7)
    #expect(board.request(2)?.displayLevel == 7)
    // The same rows again change nothing.
    let before = board.contents(nowUnixMs: 0)
    board.apply([
      .player(players[0]), .availability(id: 2, Self.availability(2, of: players[0].id)),
    ])
    #expect(board.contents(nowUnixMs: 0) == before)
  }

  @Test("a confirmed or completed match books its players; a cancelled or deleted one frees them")
  func match_booksItsPlayers() async throws {
    let players = Self.players([4, 4, 4]).map(\.id)
    let board = MatchBoard()
    let slot = TimeSlot(startUnixMs: Self.base, endUnixMs: Self.base + Self.hour)
    board.apply([.match(id: 1, Self.match(1, [players[0], players[1]], .confirmed))])
    #expect(board.isBooked(players[0], during: slot))
    #expect(!board.isBooked(players[2], during: slot))
    board.apply([.match(id: 1, Self.match(1, [players[0], players[1]], .completed))])
    #expect(board.isBooked(players[1], during: slot))
    board.apply([.match(id: 1, Self.match(1, [players[0], players[1]], .cancelled))])
    #expect(!board.isBooked(players[0], during: slot))
    board.apply([.match(id: 2, Self.match(2, [players[0], players[2]], .confirmed))])
    board.apply([.match(id: 2, nil)])
    #expect(!board.isBooked(players[2], during: slot))
    #expect(board.contents(nowUnixMs: 0).bookings.isEmpty)
  }

  // MARK: Readers and writers

  @Test("searches running beside a writer see each committed transaction whole, never part of one")
  func concurrentSearches_seeWholeTransactions() async throws {
    let players = Self.players(Array(repeating: 5, count: 11))
    let board = MatchBoard()
    board.apply(players.map { .player($0) })
    board.apply([.availability(id: 1, Self.availability(1, of: players[0].id))])
    let query = try #require(board.request(1))
    let others = Array(players.dropFirst())
    let rounds = 300
    await withTaskGroup(of: Void.self) { group in
      // Each transaction moves the ten others to one level and puts all their availability on
      // the board, or takes it all off.
      group.addTask {
        for round in 0..<rounds {
          var changes: [StoreChange] = others.map { player in
            var changed = player
            changed.selfLevel = 1 + round % 9
            return .player(changed)
          }
          for (index, player) in others.enumerated() {
            let id = Int64(100 + index)
            changes.append(
              .availability(
                id: id,
                Self.availability(id, of: player.id, round % 2 == 0 ? .active : .cancelled)))
          }
          board.apply(changes)
        }
      }
      for _ in 0..<3 {
        group.addTask {
          for _ in 0..<rounds {
            let page = board.search(for: query, excluding: [], limit: 20, after: nil)
            #expect(page.candidates.count == 0 || page.candidates.count == others.count)
            #expect(Set(page.candidates.map(\.skillDifference)).count <= 1)
          }
        }
      }
    }
    #expect(board.count == 1)
  }

  /// Singles availability `id` of `playerID` at `location`, two hours from `base`.
  static func availability(
    _ id: Int64, of playerID: Int64, at location: Coordinate, _ state: AvailabilityState = .active
  ) -> AvailabilityRecord {
    var record = availability(id, of: playerID, state)
    record.details.location = location
    return record
  }

  @Test(
    "searches beside a writer of posts, cancels and level changes across regions each give what one index held at an instant between their start and end"
  )
  func concurrentSearches_areLinearisable() async throws {
    let players = Self.players([3, 4, 5, 6, 7, 4, 5, 6, 2])
    let searcher = players[0].id
    let posters = Array(players.dropFirst())
    // Four 5-degree regions meet at 30° N 120° E: the searches reach all four.
    let corner = Coordinate(latitude: 30, longitude: 120)
    let rounds = 400
    var random = SplitMix(seed: 17)
    var active: [Int64: AvailabilityRecord] = [:]
    var transactions: [[StoreChange]] = []
    var nextID: Int64 = 1
    for _ in 0..<rounds {
      var changes: [StoreChange] = []
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5:
          let location = Coordinate(
            latitude: corner.latitude + Double.random(in: -0.1...0.1, using: &random),
            longitude: corner.longitude + Double.random(in: -0.1...0.1, using: &random))
          let poster = posters[Int.random(in: 0..<posters.count, using: &random)]
          let record = Self.availability(nextID, of: poster.id, at: location)
          active[nextID] = record
          changes.append(.availability(id: nextID, record))
          nextID += 1
        case 5..<8:
          guard let id = active.keys.sorted().randomElement(using: &random) else { continue }
          var record = active.removeValue(forKey: id)!
          record.state = .cancelled
          changes.append(.availability(id: id, record))
        default:
          var player = posters[Int.random(in: 0..<posters.count, using: &random)]
          player.selfLevel = Int.random(in: 1...9, using: &random)
          changes.append(.player(player))
        }
      }
      transactions.append(changes)
    }

    let board = MatchBoard()
    board.apply(players.map { .player($0) })
    var query = MatchBoard.request(Self.availability(0, of: searcher, at: corner), displayLevel: 5)
    query.radiusMiles = 25
    let progress = Progress()
    let planned = transactions
    let asked = query
    // Three threads of their own, so that all three run at once whatever the task pool's
    // width; the writer begins once both searchers search.
    let searchers = 2
    let done = DispatchGroup()
    let writer = Thread {
      while progress.searching.load(ordering: .sequentiallyConsistent) < searchers {}
      for (number, changes) in planned.enumerated() {
        progress.started.store(number + 1, ordering: .sequentiallyConsistent)
        board.apply(changes)
        progress.completed.store(number + 1, ordering: .sequentiallyConsistent)
      }
      done.leave()
    }
    for _ in 0..<searchers {
      done.enter()
      Thread {
        progress.searching.add(1, ordering: .sequentiallyConsistent)
        while progress.completed.load(ordering: .sequentiallyConsistent) < rounds {
          let from = progress.completed.load(ordering: .sequentiallyConsistent)
          let page = board.search(for: asked, excluding: [], limit: 50, after: nil)
          let to = progress.started.load(ordering: .sequentiallyConsistent)
          progress.seen.withLock { $0.append((from, to, page)) }
        }
        done.leave()
      }.start()
    }
    done.enter()
    writer.start()
    await withCheckedContinuation { continuation in
      done.notify(queue: .global()) { continuation.resume() }
    }

    // The oracle: one index holding, after each number of transactions, the active
    // availability at its player's level then.
    var levels = Dictionary(uniqueKeysWithValues: players.map { ($0.id, $0.displayLevel.level) })
    var records: [Int64: AvailabilityRecord] = [:]
    func oracle() -> MatchPage {
      var index = MatchIndex()
      for record in records.values {
        index.insert(MatchBoard.request(record, displayLevel: levels[record.playerID]!))
      }
      return index.search(for: query, limit: 50)
    }
    var pages = [oracle()]
    for changes in transactions {
      for change in changes {
        switch change {
        case .player(let player): levels[player.id] = player.displayLevel.level
        case .availability(let id, let record):
          records[id] = record?.state == .active ? record : nil
        default: break
        }
      }
      pages.append(oracle())
    }
    #expect(board.search(for: query, excluding: [], limit: 50, after: nil) == pages[rounds])
    let observed = progress.seen.withLock { $0 }
    for (from, to, page) in observed {
      #expect((from...to).contains { pages[$0] == page }, "seen between \(from) and \(to)")
    }
  }

  /// How far a writer has gone, and what searches saw meanwhile: the searchers under way, and
  /// the transactions begun and finished when each search started and ended.
  final class Progress: Sendable {
    let searching = Atomic<Int>(0)
    let started = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let seen = Mutex<[(from: Int, to: Int, page: MatchPage)]>([])
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
}
