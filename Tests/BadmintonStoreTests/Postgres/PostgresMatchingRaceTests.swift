import BadmintonDomain
import BadmintonSQLite
import BadmintonStore
import BadmintonStoreSQL
import PostgresNIO
import PostgresTestCluster
import Synchronization
import Testing

@testable import BadmintonPostgres

@Suite("PostgreSQL store: matching races between instances")
struct PostgresMatchingRaceTests {
  /// Rounds of each race: enough for the two answers to meet inside the database many times.
  static let rounds = 30

  /// Every match state one instance's feed has handed on, by match id (nil: deleted).
  final class MatchStates: Sendable {
    let states = Mutex<[Int64: StoredMatchState?]>([:])

    init(_ store: PostgresStore) {
      store.feed.subscribe { [self] committed in
        for change in committed.changes {
          if case .match(let id, let match) = change {
            self.states.withLock { $0[id] = match?.state }
          }
        }
      }
    }

    var current: [Int64: StoredMatchState?] { states.withLock { $0 } }
  }

  /// One round's players: `shared` is asked by two proposals for the same availability, one
  /// with `first`, one with `second`.
  struct Round {
    var shared: (player: Int64, availability: Int64)
    var first: (player: Int64, availability: Int64)
    var second: (player: Int64, availability: Int64)
  }

  static func round(_ store: any ServerStore, _ number: Int) async throws -> Round {
    let seats = try await (0..<3).asyncMap { index in
      let player = try await MatchingStoreTests.player(store, "+861390\(number * 10 + index + 10)")
      let availability = try await store.createAvailability(
        MatchingStoreTests.availability(player), activeLimit: 10, now: 0)
      return (player: player, availability: availability.id)
    }
    return Round(shared: seats[0], first: seats[1], second: seats[2])
  }

  /// What the embedded store gives the second of the two acceptances, made one after the other.
  static func sqliteOutcomeOfSecondAcceptance() async throws -> (
    state: StoredProposalState, match: Bool
  ) {
    let store = try SQLitePlayerStore.inMemory()
    let round = try await Self.round(store, 0)
    let a = try await store.createProposal(
      ProposalStoreTests.proposal([round.shared, round.first]), now: 1)
    let b = try await store.createProposal(
      ProposalStoreTests.proposal([round.shared, round.second]), now: 1)
    _ = try await store.answerProposal(
      id: a.id, playerID: round.first.player, accept: true, teams: [:], now: 2)
    let second = try await store.answerProposal(
      id: b.id, playerID: round.second.player, accept: true, teams: [:], now: 2)
    return (second.proposal.state, second.match != nil)
  }

  /// The reason the embedded store gives the second of two cancels of one match.
  static func sqliteReasonOfSecondCancel() async throws -> String? {
    let store = try SQLitePlayerStore.inMemory()
    let round = try await Self.round(store, 0)
    let a = try await store.createProposal(
      ProposalStoreTests.proposal([round.shared, round.first]), now: 1)
    let match = try #require(
      try await store.answerProposal(
        id: a.id, playerID: round.first.player, accept: true, teams: [:], now: 2
      ).match)
    _ = try await store.cancelMatch(id: match.id, playerID: round.shared.player, now: 3)
    return await ProposalStoreTests.reason {
      _ = try await store.cancelMatch(id: match.id, playerID: round.first.player, now: 3)
    }
  }

  @Test(
    "two instances confirming one player's slot, then cancelling the match, at once: one match, one cancel, the losers answered as on SQLite, both feeds alike"
  )
  func acceptAndCancelRaces() async throws {
    let expectedLoser = try await Self.sqliteOutcomeOfSecondAcceptance()
    #expect(expectedLoser.state == .lapsed && !expectedLoser.match)
    let expectedCancelReason = try await Self.sqliteReasonOfSecondCancel()
    #expect(expectedCancelReason == "MATCH_NOT_CONFIRMED")

    let url = try PostgresTestCluster.makeDatabase()
    let one = try await PostgresStore.open(.init(url: url, poolSize: 4))
    let two = try await PostgresStore.open(.init(url: url, poolSize: 4))
    let seenByOne = MatchStates(one)
    let seenByTwo = MatchStates(two)
    one.startFeed()
    two.startFeed()

    for number in 1...Self.rounds {
      let round = try await Self.round(number.isMultiple(of: 2) ? one : two, number)
      let a = try await one.createProposal(
        ProposalStoreTests.proposal([round.shared, round.first]), now: 1)
      let b = try await two.createProposal(
        ProposalStoreTests.proposal([round.shared, round.second]), now: 1)
      async let answerA = one.answerProposal(
        id: a.id, playerID: round.first.player, accept: true, teams: [:], now: 2)
      async let answerB = two.answerProposal(
        id: b.id, playerID: round.second.player, accept: true, teams: [:], now: 2)
      let outcomes = try await [answerA, answerB]

      let matches = outcomes.compactMap(\.match)
      try #require(matches.count == 1, "round \(number): \(outcomes)")
      let match = matches[0]
      let loser = try #require(outcomes.first { $0.match == nil })
      #expect(loser.proposal.state == expectedLoser.state)
      #expect(try await two.proposal(id: loser.proposal.id)?.state == expectedLoser.state)
      let winner = match.proposalID == a.id ? round.first : round.second
      let unmatched = match.proposalID == a.id ? round.second : round.first
      #expect(match.playerIDs == [round.shared.player, winner.player])
      #expect(try await one.availability(id: round.shared.availability)?.state == .matched)
      #expect(try await two.availability(id: unmatched.availability)?.state == .active)
      #expect(
        try await one.matches(
          playerID: round.shared.player, past: false, now: 0, after: nil, limit: 10) == [match])

      // Both players cancel the match at once, one through each instance.
      async let cancelOne = Self.cancel(one, match.id, round.shared.player)
      async let cancelTwo = Self.cancel(two, match.id, winner.player)
      let cancels = await [cancelOne, cancelTwo]
      #expect(cancels.filter { $0 == nil }.count == 1, "round \(number): \(cancels)")
      #expect(cancels.filter { $0 != nil } == [expectedCancelReason])
      #expect(try await two.match(id: match.id)?.state == .cancelled)
    }

    // Each instance has handed on every commit made so far, its own and the other's.
    try await one.synchronize()
    try await two.synchronize()
    let stored = try await one.readSnapshot { db in
      try MatchRows.matches(db, ids: try db.rows(AllGames.self).map { try $0.decode(Int64.self) })
    }.mapValues { Optional($0.state) }
    #expect(stored.count == Self.rounds)
    #expect(seenByOne.current == stored)
    #expect(seenByTwo.current == stored)
    await one.close()
    await two.close()
  }

  @Test(
    "the last two acceptances of a doubles proposal, at once on two instances, confirm its match once"
  )
  func lastAcceptancesRace() async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let one = try await PostgresStore.open(.init(url: url, poolSize: 4))
    let two = try await PostgresStore.open(.init(url: url, poolSize: 4))
    for number in 1...Self.rounds {
      let seats = try await (0..<4).asyncMap { index in
        let player = try await MatchingStoreTests.player(one, "+861391\(number * 10 + index + 10)")
        let availability = try await one.createAvailability(
          MatchingStoreTests.availability(player), activeLimit: 10, now: 0)
        return (player: player, availability: availability.id)
      }
      let proposal = try await one.createProposal(ProposalStoreTests.proposal(seats), now: 1)
      _ = try await one.answerProposal(
        id: proposal.id, playerID: seats[1].player, accept: true, teams: [:], now: 2)
      // Each of the two sees the other's answer pending unless the database orders them.
      async let third = one.answerProposal(
        id: proposal.id, playerID: seats[2].player, accept: true, teams: [:], now: 2)
      async let fourth = two.answerProposal(
        id: proposal.id, playerID: seats[3].player, accept: true, teams: [:], now: 2)
      let outcomes = try await [third, fourth]
      #expect(outcomes.compactMap(\.match).count == 1, "round \(number): \(outcomes)")
      let stored = try #require(try await two.proposal(id: proposal.id))
      #expect(stored.state == .accepted && stored.matchID != nil)
      #expect(stored.details.invitees.allSatisfy { $0.answer == .accepted })
    }
    await one.close()
    await two.close()
  }

  @Test("posts made at once through two instances never pass a player's limit of active posts")
  func availabilityLimitRace() async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let stores = [
      try await PostgresStore.open(.init(url: url, poolSize: 4)),
      try await PostgresStore.open(.init(url: url, poolSize: 4)),
    ]
    let limit = 3
    for number in 1...Self.rounds {
      let player = try await MatchingStoreTests.player(stores[0], "+861392\(number + 100)")
      let reasons = try await withThrowingTaskGroup(of: String?.self) { group in
        for index in 0..<8 {
          group.addTask {
            await ProposalStoreTests.reason {
              _ = try await stores[index % 2].createAvailability(
                MatchingStoreTests.availability(player, startHour: Int64(index)),
                activeLimit: limit, now: 0)
            }
          }
        }
        return try await group.reduce(into: [String?]()) { $0.append($1) }
      }
      #expect(reasons.filter { $0 == nil }.count == limit, "round \(number): \(reasons)")
      #expect(reasons.compactMap { $0 }.allSatisfy { $0 == "AVAILABILITY_LIMIT" })
      #expect(try await stores[1].activeAvailability(playerID: player, now: 0).count == limit)
    }
    for store in stores { await store.close() }
  }

  /// Cancels through `store`: nil when it did, else the refusal's reason.
  static func cancel(_ store: PostgresStore, _ match: Int64, _ player: Int64) async -> String? {
    await ProposalStoreTests.reason {
      _ = try await store.cancelMatch(id: match, playerID: player, now: 3)
    }
  }

  enum AllGames: StoreStatement {
    static let sql = "SELECT id FROM game"
  }
}

extension Sequence {
  /// The results of `transform` on each element, one after the other.
  func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var results: [T] = []
    for element in self { results.append(try await transform(element)) }
    return results
  }
}
