import BadmintonDomain
import BadmintonStore
import BadmintonStoreSQL
import PostgresTestCluster
import Testing

@testable import BadmintonPostgres

/// Two instances on one database, racing over rooms, match results and surveys: the database
/// decides, and each race is run a few dozen times so that an interleaving that breaks a rule
/// has its chance to happen.
@Suite("PostgreSQL store: rooms, results and surveys raced between instances")
struct PostgresRoomSurveyRaceTests {
  private static let hour: Int64 = 3_600_000
  private static let rounds = 30

  /// Runs `body` on two instances opened on one new database, closing both afterwards.
  private static func withTwoInstances(
    _ body: ([PostgresStore]) async throws -> Void
  ) async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let first = try await PostgresStore.open(.init(url: url, poolSize: 6))
    let second: PostgresStore
    do {
      second = try await PostgresStore.open(.init(url: url, poolSize: 6))
    } catch {
      await first.close()
      throw error
    }
    do {
      try await body([first, second])
    } catch {
      await first.close()
      await second.close()
      throw error
    }
    await first.close()
    await second.close()
  }

  /// The reason of the `DomainError` that `body` threw, nil when it succeeded, and any other
  /// error as it reads.
  private static func reason(_ body: @Sendable () async throws -> Void) async -> String? {
    do {
      try await body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "\(error)"
    }
  }

  private static func players(_ store: PostgresStore, count: Int, selfLevel: Int = 5)
    async throws -> [Int64]
  {
    var ids: [Int64] = []
    for index in 0..<count {
      ids.append(
        try await store.createPlayer(
          StoreFixtures.newPlayer(phone: "+86136000000\(10 + index)", selfLevel: selfLevel)
        ).id)
    }
    return ids
  }

  @Test(
    "players joining one room through two instances at once never fill it past its size, and each one refused reads ROOM_FULL"
  )
  func concurrentJoins_neverOverfillTheRoom() async throws {
    try await Self.withTwoInstances { stores in
      let ids = try await Self.players(stores[0], count: 7)
      let owner = ids[0]
      let joiners = Array(ids.dropFirst())
      for round in 0..<Self.rounds {
        let now = Int64(round)
        let created = try await stores[round % 2].createRoom(
          ownerID: owner, mode: .doubles, now: now,
          code: {
            var generator = SystemRandomNumberGenerator()
            return RoomCode.generate(using: &generator)
          }, notify: { _ in [] })
        let room = try #require(created.room)
        let outcomes = await withTaskGroup(of: (Int64, String?).self) { group in
          for (index, joiner) in joiners.enumerated() {
            let store = stores[index % 2]
            group.addTask {
              let reason = await Self.reason {
                _ = try await store.joinRoom(code: room.code, playerID: joiner, now: now) { _ in
                  []
                }
              }
              return (joiner, reason)
            }
          }
          return await group.reduce(into: [(Int64, String?)]()) { $0.append($1) }
        }
        let joined = outcomes.filter { $0.1 == nil }.map(\.0)
        let refusals = outcomes.compactMap(\.1)
        #expect(joined.count == RoomRules.requiredPlayers(for: .doubles) - 1, "round \(round)")
        #expect(refusals.allSatisfy { $0 == "ROOM_FULL" }, "round \(round): \(refusals)")
        for store in stores {
          let seen = try await store.room(id: room.id, playerID: owner, now: now) { _ in [] }
          #expect(seen.room?.playerIDs.count == RoomRules.requiredPlayers(for: .doubles))
          #expect(Set(seen.room?.playerIDs ?? []) == Set([owner] + joined))
        }
        // Everyone leaves: the room closes and its players are free for the next round.
        for (index, player) in ([owner] + joined).enumerated() {
          _ = try await stores[index % 2].leaveRoom(playerID: player, now: now) { _ in [] }
        }
      }
    }
  }

  @Test(
    "one player joining two rooms through two instances at once ends in one of them, and the other join reads ALREADY_IN_ROOM"
  )
  func concurrentJoinsOfOnePlayer_endInOneRoom() async throws {
    try await Self.withTwoInstances { stores in
      let ids = try await Self.players(stores[0], count: 3)
      let player = ids[2]
      var codes: [String] = []
      for (index, owner) in ids.prefix(2).enumerated() {
        let room = try await stores[index].createRoom(
          ownerID: owner, mode: .doubles, now: 0, code: { "ROOM0\(index)" }, notify: { _ in [] })
        codes.append(try #require(room.room?.code))
      }
      for round in 0..<Self.rounds {
        let now = Int64(round)
        let reasons = await withTaskGroup(of: String?.self) { group in
          for (store, code) in zip(stores, codes) {
            group.addTask {
              await Self.reason {
                _ = try await store.joinRoom(code: code, playerID: player, now: now) { _ in [] }
              }
            }
          }
          return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(reasons.filter { $0 == nil }.count == 1, "round \(round): \(reasons)")
        #expect(reasons.contains("ALREADY_IN_ROOM"), "round \(round): \(reasons)")
        var rooms = 0
        for (index, owner) in ids.prefix(2).enumerated() {
          let room = try await stores[index].room(id: 0, playerID: owner, now: now) { _ in [] }
          rooms += room.room?.playerIDs.contains(player) == true ? 1 : 0
        }
        #expect(rooms == 1, "round \(round)")
        _ = try await stores[round % 2].leaveRoom(playerID: player, now: now) { _ in [] }
      }
    }
  }

  @Test(
    "a match completed through two instances at once is recorded once, and one player's survey submitted through both at once counts once while the other reads SURVEY_ALREADY_SUBMITTED"
  )
  func concurrentCompletionsAndSurveys_countOnce() async throws {
    try await Self.withTwoInstances { stores in
      let ids = try await Self.players(stores[0], count: 2)
      let (rater, rated) = (ids[0], ids[1])
      var expected = ReputationTotals.zero
      for round in 0..<Self.rounds {
        // Each round's match has an hour of its own: a completed match holds its slot.
        let start = Int64(round) * Self.hour
        let slot = TimeSlot(startUnixMs: start, endUnixMs: start + Self.hour)
        let room = try await stores[0].createRoom(
          ownerID: rater, mode: .singles, now: start,
          code: {
            var generator = SystemRandomNumberGenerator()
            return RoomCode.generate(using: &generator)
          }, notify: { _ in [] })
        _ = try await stores[1].joinRoom(code: room.room!.code, playerID: rated, now: start) {
          _ in []
        }
        let match = try #require(
          try await stores[0].startMatch(ownerID: rater, slot: slot, now: start) { _ in [] }
            .match)

        let completions = try await withThrowingTaskGroup(of: MatchCompletion.self) { group in
          for (index, player) in [rater, rated].enumerated() {
            let store = stores[index]
            group.addTask {
              try await store.completeMatch(
                id: match.id, playerID: player, winningTeam: index + 1, now: start
              ) { completion in completion.surveys.map { ($0.evaluatorID, [UInt8(round)]) } }
            }
          }
          return try await group.reduce(into: [MatchCompletion]()) { $0.append($1) }
        }
        #expect(completions.filter { !$0.surveys.isEmpty }.count == 1, "round \(round)")
        #expect(completions[0].match == completions[1].match)
        #expect(completions[0].match.state == .completed)
        for store in stores {
          #expect(try await store.match(id: match.id) == completions[0].match)
          for id in ids {
            #expect(try await store.player(id: id)?.totalGames == round + 1)
            #expect(
              try await store.events(playerID: id, after: 0, limit: 1000).map(\.payload)
                == (0...round).map { [UInt8($0)] })
          }
        }

        let rating = SurveyRating(
          ratedID: rated, skillLevel: 1 + round % 9, punctual: round % 2 == 0,
          character: 1 + round % 5)
        let reasons = await withTaskGroup(of: String?.self) { group in
          for store in stores {
            group.addTask {
              await Self.reason {
                _ = try await store.submitSurvey(
                  matchID: match.id, evaluatorID: rater, ratings: [rating], now: start + 1)
              }
            }
          }
          return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(reasons.filter { $0 == nil }.count == 1, "round \(round): \(reasons)")
        #expect(reasons.contains("SURVEY_ALREADY_SUBMITTED"), "round \(round): \(reasons)")
        expected = expected.adding(rating, selfLevel: 5)
        for store in stores {
          #expect(try await store.reputationTotals(playerID: rated) == expected, "round \(round)")
          #expect(
            try await store.survey(matchID: match.id, evaluatorID: rater)?.state == .submitted)
        }
      }
    }
  }
}
