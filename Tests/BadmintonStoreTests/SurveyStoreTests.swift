import BadmintonDomain
import BadmintonStore
import StoreTestSupport
import Testing

@Suite("Survey store: results, surveys and reputation totals")
struct SurveyStoreTests {
  private static let hour: Int64 = 3_600_000

  /// The reason of the `DomainError` that `body` threw, or nil.
  private func reason(_ body: () async throws -> Void) async -> String? {
    do {
      try await body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "\(error)"
    }
  }

  /// A confirmed doubles match of four new players (teams 1, 2, 2, 1) from
  /// `MatchingStoreTests.availability`'s slot.
  private static func confirmedMatch(_ store: any ServerStore) async throws -> MatchRecord {
    var seats: [(player: Int64, availability: Int64)] = []
    for index in 0..<4 {
      let player = try await store.createPlayer(
        StoreFixtures.newPlayer(phone: "+86137000000\(10 + index)", selfLevel: 4 + index))
      let availability = try await store.createAvailability(
        MatchingStoreTests.availability(player.id), activeLimit: 10, now: 0)
      seats.append((player.id, availability.id))
    }
    let proposal = try await store.createProposal(
      NewProposal(
        proposerID: seats[0].player, proposerAvailabilityID: seats[0].availability,
        mode: .doubles, slot: MatchingStoreTests.availability(seats[0].player).slot,
        invitees: seats.dropFirst().map {
          ProposalInviteeRecord(playerID: $0.player, availabilityID: $0.availability)
        }, createdAtUnixMs: 0, expiresAtUnixMs: 10_000),
      now: 1)
    let teams = [seats[0].player: 1, seats[1].player: 2, seats[2].player: 2, seats[3].player: 1]
    var match: MatchRecord?
    for seat in seats.dropFirst() {
      match =
        try await store.answerProposal(
          id: proposal.id, playerID: seat.player, accept: true, teams: teams, now: 2
        ).match
    }
    return try #require(match)
  }

  @Test(
    "completion records the result, games, wins, surveys and events in one transaction, once",
    arguments: StoreKind.allCases)
  func complete_once(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let match = try await Self.confirmedMatch(store)
      let start = match.slot.startUnixMs
      let players = match.playerIDs
      #expect(
        await reason {
          _ = try await store.completeMatch(
            id: match.id, playerID: players[0], winningTeam: 1, now: start - 1
          ) { _ in [] }
        } == "MATCH_NOT_STARTED")
      #expect(
        await reason {
          _ = try await store.completeMatch(
            id: match.id, playerID: 999, winningTeam: 1, now: start
          ) { _ in [] }
        } == "MATCH_NOT_FOUND")
      // A refused completion left nothing behind.
      for id in players {
        #expect(try await store.survey(matchID: match.id, evaluatorID: id) == nil)
        #expect(try await store.player(id: id)?.totalGames == 0)
      }
      let completion = try await store.completeMatch(
        id: match.id, playerID: players[1], winningTeam: 2, now: start
      ) { completion in completion.surveys.map { ($0.evaluatorID, [7]) } }
      #expect(completion.match.state == .completed)
      #expect(
        completion.match.result
          == MatchResult(winningTeam: 2, completedAtUnixMs: start, completedBy: players[1]))
      #expect(completion.surveys.map(\.evaluatorID) == players)
      #expect(
        completion.surveys.allSatisfy {
          $0.state == .pending && $0.dueAtUnixMs == start + 48 * Self.hour
        })
      let again = try await store.completeMatch(
        id: match.id, playerID: players[3], winningTeam: 1, now: start + 5
      ) { _ in [(players[0], [8])] }
      #expect(again.match == completion.match)
      #expect(again.surveys.isEmpty)
      for id in players {
        let player = try #require(try await store.player(id: id))
        let team = match.participants.first { $0.playerID == id }?.team
        #expect(player.totalGames == 1)
        #expect(player.wins == (team == 2 ? 1 : 0))
        // One event each, from the first completion only.
        #expect(try await store.events(playerID: id, after: 0, limit: 10).map(\.payload) == [[7]])
      }
      #expect(try await store.match(id: match.id) == completion.match)
    }
  }

  @Test(
    "a refused submission changes nothing; an accepted one writes totals and averages that agree",
    arguments: StoreKind.allCases)
  func submit_writesTotals(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let match = try await Self.confirmedMatch(store)
      let players = match.playerIDs
      let now = match.slot.startUnixMs
      _ = try await store.completeMatch(
        id: match.id, playerID: players[0], winningTeam: 1, now: now
      ) { _ in [] }
      let valid = players.dropFirst().map {
        SurveyRating(ratedID: $0, skillLevel: 9, punctual: $0 != players[1], character: 2)
      }
      var invalid = valid
      invalid[2].character = 6
      #expect(
        await reason {
          _ = try await store.submitSurvey(
            matchID: match.id, evaluatorID: players[0], ratings: invalid, now: now)
        } == "SURVEY_INVALID")
      for id in players {
        #expect(try await store.reputationTotals(playerID: id) == .zero)
      }
      let submitted = try await store.submitSurvey(
        matchID: match.id, evaluatorID: players[0], ratings: valid, now: now + 1)
      #expect(submitted.state == .submitted && submitted.submittedAtUnixMs == now + 1)
      for rating in valid {
        let player = try #require(try await store.player(id: rating.ratedID))
        let totals = try #require(try await store.reputationTotals(playerID: rating.ratedID))
        #expect(
          totals == ReputationTotals.zero.adding(rating, selfLevel: player.selfLevel))
        #expect(player.reputation == totals.score)
        #expect(player.peerRatingSum == 9 && player.peerRatingCount == 1)
      }
      #expect(
        await reason {
          _ = try await store.submitSurvey(
            matchID: match.id, evaluatorID: players[0], ratings: valid, now: now + 2)
        } == "SURVEY_ALREADY_SUBMITTED")
      // The sweep expires only the pending surveys that are due.
      #expect(try await store.expireSurveys(now: now + 48 * Self.hour - 1) == 0)
      #expect(try await store.expireSurveys(now: now + 48 * Self.hour) == 3)
      #expect(
        try await store.survey(matchID: match.id, evaluatorID: players[0])?.state == .submitted)
      #expect(
        try await store.pendingSurveys(evaluatorID: players[1], now: now, after: nil, limit: 100)
          == [])
    }
  }

  @Test(
    "pending surveys are listed by due time then match, from past the cursor, without those due or submitted",
    arguments: StoreKind.allCases)
  func pending_pagesByDueTime(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      var ids: [Int64] = []
      for index in 0..<2 {
        ids.append(
          try await store.createPlayer(StoreFixtures.newPlayer(phone: "+86137100000\(10 + index)"))
            .id)
      }
      // Three singles matches an hour apart, completed in the order 2, 0, 1 of their slots.
      var matches: [MatchRecord] = []
      for hour in 0..<3 {
        let start = Int64(hour) * Self.hour
        let room = try await store.createRoom(
          ownerID: ids[0], mode: .singles, now: start, code: { "ABCDE\(hour)" }, notify: { _ in [] }
        )
        _ = try await store.joinRoom(code: room.room!.code, playerID: ids[1], now: start) { _ in []
        }
        matches.append(
          try #require(
            try await store.startMatch(
              ownerID: ids[0], slot: TimeSlot(startUnixMs: start, endUnixMs: start + Self.hour),
              now: start
            ) { _ in [] }.match))
      }
      let completedAt: [Int64] = [3 * Self.hour, 4 * Self.hour, 2 * Self.hour]
      for (match, now) in zip(matches, completedAt) {
        _ = try await store.completeMatch(
          id: match.id, playerID: ids[0], winningTeam: 1, now: now
        ) { _ in [] }
      }
      let order = [matches[2].id, matches[0].id, matches[1].id]
      let now = 4 * Self.hour
      let first = try await store.pendingSurveys(
        evaluatorID: ids[1], now: now, after: nil, limit: 2)
      #expect(first.map(\.matchID) == Array(order.prefix(2)))
      let last = try #require(first.last)
      let rest = try await store.pendingSurveys(
        evaluatorID: ids[1], now: now, after: (last.dueAtUnixMs, last.matchID), limit: 2)
      #expect(rest.map(\.matchID) == [order[2]])
      // A submitted survey leaves the list; so does one that is due.
      _ = try await store.submitSurvey(
        matchID: order[1], evaluatorID: ids[1],
        ratings: [SurveyRating(ratedID: ids[0], skillLevel: 5, punctual: true, character: 4)],
        now: now)
      let due = SurveyRules.dueAt(completedAtUnixMs: 2 * Self.hour)
      #expect(
        try await store.pendingSurveys(evaluatorID: ids[1], now: due, after: nil, limit: 10)
          .map(\.matchID) == [order[2]])
      #expect(
        try await store.pendingSurveys(evaluatorID: ids[1], now: now, after: nil, limit: 0)
          .isEmpty)
    }
  }
}
