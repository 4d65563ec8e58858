import BadmintonAPI
import BadmintonRPC
import BadmintonStore
import CBadmintonRPCProto
import PropertyBased
import StoreTestSupport
import Testing

@Suite("Match completion, surveys and reputation (properties 3-5 and 19-21)")
struct SurveysTests {
  typealias Player = PlayerWorld.Player

  static let hour: Int64 = 3_600_000

  // MARK: Helpers

  /// A confirmed match of `players` (2 for singles, 4 for doubles) from now for an hour, started
  /// from a room the first one owns.
  private func playedMatch(_ world: PlayerWorld, _ players: [Player]) async throws -> Match {
    let mode: MatchMode = players.count == 4 ? .doubles : .singles
    let room = try await world.client.rooms.createRoom(
      .init(mode: mode), options: players[0].options)
    for player in players.dropFirst() {
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: player.options)
    }
    return try await world.client.rooms.startMatch(.init(), options: players[0].options).match
  }

  /// A valid rating of `userID`.
  private func rating(
    _ userID: Int64, skill: Int32 = 5, punctuality: Punctuality = .onTime, character: Int32 = 4
  ) -> PlayerRating {
    PlayerRating(
      userID: userID, skillLevel: skill, punctuality: punctuality, character: character)
  }

  /// `player`'s valid survey of `match`, rating every other participant the same way.
  @discardableResult
  private func submit(
    _ world: PlayerWorld, _ player: Player, _ match: Match, skill: Int32 = 5,
    punctuality: Punctuality = .onTime, character: Int32 = 4
  ) async throws -> Survey {
    try await world.client.surveys.submitSurvey(
      .init(
        matchID: match.id,
        ratings: match.participants.filter { $0.userID != player.id }.map {
          rating($0.userID, skill: skill, punctuality: punctuality, character: character)
        }),
      options: player.options)
  }

  private func reputation(_ world: PlayerWorld, of player: Player, asker: Player) async throws
    -> Reputation
  {
    try await world.client.surveys.getReputation(
      .init(userID: player.id), options: asker.options)
  }

  private func expectRefusal(
    _ reason: String, code: StatusCode, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
  ) async {
    let error = await rpcError(body)
    #expect(error?.reason == reason, sourceLocation: sourceLocation)
    #expect(error?.code == code, sourceLocation: sourceLocation)
  }

  // MARK: Hostile input and busy time

  @Test(
    "a survey with more ratings than a match has players is refused before any work",
    arguments: StoreKind.allCases)
  func submit_refusesHugeRatingLists(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      let match = try await playedMatch(world, [ann, bob])
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 1), options: ann.options)
      let flood = (0..<5_000).map { _ in rating(bob.id) }
      let error = await rpcError {
        _ = try await world.client.surveys.submitSurvey(
          .init(matchID: match.id, ratings: flood), options: ann.options)
      }
      #expect(error?.reason == "SURVEY_INVALID")
      #expect(error?.violations.map(\.field) == ["ratings"])
      // The survey is still open and takes a proper answer.
      let survey = try await submit(world, ann, match)
      #expect(survey.state == .submitted)
    }
  }

  @Test(
    "a match completed early still holds its players for the rest of its slot",
    arguments: StoreKind.allCases)
  func completedMatch_staysBusy(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      let match = try await playedMatch(world, [ann, bob])
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 2), options: bob.options)
      let room = try await world.client.rooms.createRoom(
        .init(mode: .singles), options: ann.options)
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: bob.options)
      await expectRefusal("ROOM_PLAYER_BUSY", code: .failedPrecondition) {
        _ = try await world.client.rooms.startMatch(.init(), options: ann.options)
      }
    }
  }

  // MARK: Completing

  @Test(
    "property 5: for any singles or doubles match, completion opens exactly N surveys, each covering the other N-1, and counts games once",
    arguments: StoreKind.allCases
  )
  func completion_opensOneSurveyPerParticipant(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let input = zip(Gen.bool(), Gen.int(in: 0...3), Gen.int(in: 1...2), Gen.int(in: 1...3))
      await propertyCheck(count: 12, input: input) { doubles, completer, winner, calls in
        do {
          var players: [Player] = []
          for _ in 0..<(doubles ? 4 : 2) { players.append(try await world.player()) }
          let match = try await playedMatch(world, players)
          let by = players[completer % players.count]
          var results: [Match] = []
          for call in 0..<calls {
            // Later calls by anyone, with any result, return the recorded match.
            let caller = players[(completer + call) % players.count]
            results.append(
              try await world.client.surveys.completeMatch(
                .init(matchID: match.id, winningTeam: Int32(call == 0 ? winner : 3 - winner)),
                options: caller.options))
          }
          #expect(Set(results).count == 1)
          let completed = try #require(results.first)
          #expect(completed.state == .completed)
          #expect(completed.winningTeam == Int32(winner))
          #expect(completed.completedBy == by.id)
          #expect(completed.completedAtUnixMs == world.clock.nowUnixMs())
          var surveys = 0
          for player in players {
            let pending = try await world.client.surveys.listPendingSurveys(
              .init(), options: player.options
            ).surveys
            #expect(pending.count == 1)
            let survey = try #require(pending.first)
            surveys += pending.count
            #expect(survey.match == completed)
            #expect(survey.state == .pending)
            #expect(survey.dueAtUnixMs == world.clock.nowUnixMs() + 48 * Self.hour)
            #expect(
              Set(survey.playersToRate.map(\.userID))
                == Set(players.map(\.id)).subtracting([player.id]))
            #expect(survey.playersToRate.count == players.count - 1)
            let team = completed.participants.first { $0.userID == player.id }?.team
            let figures = try await reputation(world, of: player, asker: player)
            #expect(figures.totalGames == 1)
            #expect(figures.wins == (team == Int32(winner) ? 1 : 0))
          }
          #expect(surveys == players.count)
        } catch {
          Issue.record("unexpected \(error)")
        }
      }
    }
  }

  @Test(
    "match completed and survey requested reach every participant's live stream",
    arguments: StoreKind.allCases)
  func completion_eventsReachEveryParticipant(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      var players: [Player] = []
      for _ in 0..<4 { players.append(try await world.player()) }
      let match = try await playedMatch(world, players)
      var streams: [ResponseStream<Event>.AsyncIterator] = []
      for player in players {
        streams.append(
          try await world.client.events.subscribe(options: player.options).makeAsyncIterator())
      }
      let completed = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 2), options: players[1].options)
      for (index, player) in players.enumerated() {
        var sawCompleted = false
        var request: SurveyRequested?
        while !sawCompleted || request == nil {
          let event = try #require(try await streams[index].next())
          switch event.body {
          case .matchCompleted(let changed):
            #expect(changed.match == completed)
            sawCompleted = true
          case .surveyRequested(let requested): request = requested
          default: continue
          }
        }
        #expect(request?.survey.match == completed)
        #expect(request?.survey.state == .pending)
        #expect(
          request?.survey.playersToRate.map(\.userID).sorted()
            == players.map(\.id).filter { $0 != player.id }.sorted())
      }
    }
  }

  @Test(
    "completion needs a participant, a confirmed match that has started, and team 1 or 2",
    arguments: StoreKind.allCases)
  func completion_rules(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let bob = try await world.player()
      let stranger = try await world.player()
      let room = try await world.client.rooms.createRoom(
        .init(mode: .singles), options: alice.options)
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: bob.options)
      let now = world.clock.nowUnixMs()
      let later = TimeSlot(startUnixMs: now + Self.hour, endUnixMs: now + 2 * Self.hour)
      let match = try await world.client.rooms.startMatch(
        .init(slot: later), options: alice.options
      ).match
      await expectRefusal("MATCH_NOT_FOUND", code: .notFound) {
        _ = try await world.client.surveys.completeMatch(
          .init(matchID: match.id, winningTeam: 1), options: stranger.options)
      }
      let team = await rpcError {
        _ = try await world.client.surveys.completeMatch(
          .init(matchID: match.id, winningTeam: 3), options: alice.options)
      }
      #expect(team?.reason == "WINNING_TEAM_INVALID")
      #expect(team?.violations.map(\.field) == ["winning_team"])
      await expectRefusal("MATCH_NOT_STARTED", code: .failedPrecondition) {
        _ = try await world.client.surveys.completeMatch(
          .init(matchID: match.id, winningTeam: 1), options: alice.options)
      }
      world.clock.advance(by: Self.hour - 1)
      await expectRefusal("MATCH_NOT_STARTED", code: .failedPrecondition) {
        _ = try await world.client.surveys.completeMatch(
          .init(matchID: match.id, winningTeam: 1), options: alice.options)
      }
      // Exactly at the start it may be completed.
      world.clock.advance(by: 1)
      let completed = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 1), options: bob.options)
      #expect(completed.state == .completed)
      let stored = try await world.client.matching.getMatch(
        .init(matchID: match.id), options: alice.options)
      #expect(stored == completed)

      // A cancelled match cannot be completed.
      let carol = try await world.player()
      let dave = try await world.player()
      let other = try await world.client.rooms.createRoom(
        .init(mode: .singles), options: carol.options)
      _ = try await world.client.rooms.joinRoom(.init(code: other.code), options: dave.options)
      let start = world.clock.nowUnixMs() + Self.hour
      let cancelled = try await world.client.rooms.startMatch(
        .init(slot: TimeSlot(startUnixMs: start, endUnixMs: start + Self.hour)),
        options: carol.options
      ).match
      _ = try await world.client.matching.cancelMatch(
        .init(matchID: cancelled.id), options: dave.options)
      world.clock.advance(by: 2 * Self.hour)
      await expectRefusal("MATCH_NOT_CONFIRMED", code: .failedPrecondition) {
        _ = try await world.client.surveys.completeMatch(
          .init(matchID: cancelled.id, winningTeam: 1), options: carol.options)
      }
      await expectRefusal("SURVEY_NOT_FOUND", code: .notFound) {
        _ = try await world.client.surveys.submitSurvey(
          .init(matchID: cancelled.id, ratings: [rating(dave.id)]), options: carol.options)
      }
    }
  }

  // MARK: Submitting

  @Test(
    "a player not in the match can neither complete it nor submit a survey of it",
    arguments: StoreKind.allCases)
  func wrongPlayer_isRefused(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let bob = try await world.player()
      let stranger = try await world.player()
      let match = try await playedMatch(world, [alice, bob])
      await expectRefusal("MATCH_NOT_FOUND", code: .notFound) {
        _ = try await world.client.surveys.completeMatch(
          .init(matchID: match.id, winningTeam: 1), options: stranger.options)
      }
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 1), options: alice.options)
      await expectRefusal("SURVEY_NOT_FOUND", code: .notFound) {
        _ = try await world.client.surveys.submitSurvey(
          .init(matchID: match.id, ratings: [rating(alice.id), rating(bob.id)]),
          options: stranger.options)
      }
      // A participant cannot rate themselves or someone who did not play.
      let refused = await rpcError {
        _ = try await world.client.surveys.submitSurvey(
          .init(
            matchID: match.id,
            ratings: [rating(alice.id), rating(stranger.id, skill: 0, punctuality: .unspecified)]),
          options: alice.options)
      }
      #expect(refused?.code == .invalidArgument)
      #expect(refused?.reason == "SURVEY_INVALID")
      #expect(
        Set(refused?.violations.map { "\($0.field) \($0.reason)" } ?? []) == [
          "ratings[0].user_id CANNOT_RATE_SELF",
          "ratings[1].user_id RATED_PLAYER_NOT_IN_MATCH",
          "ratings[1].skill_level SKILL_RATING_OUT_OF_RANGE",
          "ratings[1].punctuality PUNCTUALITY_REQUIRED",
          "ratings RATING_MISSING",
        ])
      #expect(try await reputation(world, of: stranger, asker: bob).reputation.evaluationCount == 0)
      #expect(try await reputation(world, of: bob, asker: bob).reputation.evaluationCount == 0)
      // Nothing was spent: the survey can still be submitted.
      let survey = try await submit(world, alice, match)
      #expect(survey.state == .submitted)
      #expect(survey.submittedAtUnixMs == world.clock.nowUnixMs())
    }
  }

  @Test(
    "property 21: a second submission is refused with ALREADY_EXISTS and changes nothing",
    arguments: StoreKind.allCases)
  func secondSubmission_isRefused(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let bob = try await world.player(level: 6)
      let match = try await playedMatch(world, [alice, bob])
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 1), options: alice.options)
      try await submit(world, alice, match, skill: 4, character: 2)
      let before = try await reputation(world, of: bob, asker: alice)
      await expectRefusal("SURVEY_ALREADY_SUBMITTED", code: .alreadyExists) {
        try await submit(world, alice, match, skill: 9, punctuality: .late, character: 5)
      }
      #expect(try await reputation(world, of: bob, asker: alice) == before)
      #expect(before.reputation.evaluationCount == 1)
      #expect(before.reputation.averageSkillAccuracy == 2)
      #expect(before.reputation.averageCharacterRating == 2)
      // The submitted survey is no longer pending.
      let pending = try await world.client.surveys.listPendingSurveys(
        .init(), options: alice.options)
      #expect(pending.surveys.isEmpty)
    }
  }

  @Test(
    "property 21: of concurrent submissions of one survey exactly one is stored",
    arguments: StoreKind.allCases)
  func concurrentSubmissions_storeOne(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let bob = try await world.player(level: 5)
      let match = try await playedMatch(world, [alice, bob])
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 2), options: bob.options)
      let outcomes = await withTaskGroup(of: (Int32, RPCError?).self) { group in
        for skill in Int32(1)...9 {
          let request = SubmitSurveyRequest(
            matchID: match.id,
            ratings: [
              PlayerRating(userID: bob.id, skillLevel: skill, punctuality: .onTime, character: 3)
            ])
          group.addTask {
            let error = await rpcError {
              _ = try await world.client.surveys.submitSurvey(request, options: alice.options)
            }
            return (skill, error)
          }
        }
        var all: [(Int32, RPCError?)] = []
        for await outcome in group { all.append(outcome) }
        return all
      }
      let accepted = outcomes.filter { $0.1 == nil }.map(\.0)
      #expect(accepted.count == 1)
      #expect(
        outcomes.filter { $0.1 != nil }.allSatisfy { $0.1?.reason == "SURVEY_ALREADY_SUBMITTED" })
      let figures = try await reputation(world, of: bob, asker: bob)
      #expect(figures.reputation.evaluationCount == 1)
      let skill = try #require(accepted.first)
      #expect(figures.reputation.averageSkillAccuracy == Double(abs(skill - 5)))
    }
  }

  @Test(
    "property 20: a survey is accepted until 1 ms before 48 hours, refused from then on, and never counts",
    arguments: StoreKind.allCases
  )
  func deadline_exactBoundary(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      var players: [Player] = []
      for _ in 0..<4 { players.append(try await world.player(level: 5)) }
      let match = try await playedMatch(world, players)
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 1), options: players[0].options)
      let due = world.clock.nowUnixMs() + 48 * Self.hour
      world.clock.advance(by: 48 * Self.hour - 1)
      try await submit(world, players[0], match, skill: 7)
      world.clock.advance(by: 1)
      #expect(world.clock.nowUnixMs() == due)
      let before = try await reputation(world, of: players[0], asker: players[0])
      let expired = await rpcError {
        try await submit(
          world, players[1], match, skill: 1, punctuality: .late, character: 1)
      }
      #expect(expired?.code == .failedPrecondition)
      #expect(expired?.reason == "SURVEY_EXPIRED")
      let zhCN = await rpcError {
        _ = try await world.client.surveys.submitSurvey(
          .init(
            matchID: match.id,
            ratings: players.dropFirst(3).map { rating($0.id) }
              + players.prefix(2).map { rating($0.id) }),
          options: CallOptions(locale: .zhCN, bearerToken: players[2].token))
      }
      #expect(zhCN?.reason == "SURVEY_EXPIRED")
      #expect(zhCN?.message.en == "问卷已过期，无法提交")
      // Expired surveys never count.
      #expect(try await reputation(world, of: players[0], asker: players[0]) == before)
      #expect(before.reputation.evaluationCount == 0)
      let rated = try await reputation(world, of: players[1], asker: players[0])
      #expect(rated.reputation.evaluationCount == 1)
      #expect(rated.reputation.averageSkillAccuracy == 2)
      // The open ones are no longer listed; the sweep marks them expired.
      for player in players.dropFirst() {
        let pending = try await world.client.surveys.listPendingSurveys(
          .init(), options: player.options)
        #expect(pending.surveys.isEmpty)
      }
      let before3 = try await world.store.survey(matchID: match.id, evaluatorID: players[3].id)
      #expect(before3?.state == .pending)
      try await world.sweep()
      for (index, player) in players.enumerated() {
        let stored = try await world.store.survey(matchID: match.id, evaluatorID: player.id)
        #expect(stored?.state == (index == 0 ? .submitted : .expired))
      }
      await expectRefusal("SURVEY_EXPIRED", code: .failedPrecondition) {
        try await submit(world, players[3], match)
      }
      for player in players {
        let figures = try await reputation(world, of: player, asker: player)
        #expect(figures.reputation.evaluationCount == (player.id == players[0].id ? 0 : 1))
      }
    }
  }

  @Test("the sweep leaves surveys not yet due alone", arguments: StoreKind.allCases)
  func sweep_marksOnlyDueSurveys(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let bob = try await world.player()
      let match = try await playedMatch(world, [alice, bob])
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 1), options: alice.options)
      world.clock.advance(by: 48 * Self.hour - 1)
      try await world.sweep()
      let stored = try await world.store.survey(matchID: match.id, evaluatorID: bob.id)
      #expect(stored?.state == .pending)
      try await submit(world, bob, match)
    }
  }

  // MARK: Reputation

  @Test(
    "GetReputation, the profile and friends reflect a survey as soon as it returns, with aggregates only",
    arguments: StoreKind.allCases
  )
  func reputation_isVisibleAtOnce(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let target = try await world.player(nickname: "Target", level: 6)
      var others: [Player] = []
      for _ in 0..<3 { others.append(try await world.player()) }
      let now = world.clock.nowUnixMs()
      let friendship = try await world.store.sendFriendRequest(
        from: others[0].id, to: target.id, now: now, notify: { _ in [] })
      _ = try await world.store.answerFriendRequest(
        id: friendship.id, recipientID: target.id, accept: true, now: now, notify: { _ in [] })
      let match = try await playedMatch(world, [target] + others)
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 1), options: target.options)
      let ratings: [(Int32, Punctuality, Int32)] = [
        (5, .onTime, 4), (7, .late, 5), (6, .onTime, 3),
      ]
      for (rater, (skill, punctuality, character)) in zip(others, ratings) {
        try await submit(
          world, rater, match, skill: skill, punctuality: punctuality, character: character)
      }
      // Deviations from 6: 1, 1, 0; on time 2 of 3; characters 4, 5, 3.
      let expected = ReputationSummary(
        evaluationCount: 3, averageSkillAccuracy: 2.0 / 3.0,
        punctualityPercentage: 200.0 / 3.0, averageCharacterRating: 4)
      let figures = try await reputation(world, of: target, asker: others[1])
      #expect(figures.userID == target.id)
      #expect(figures.nickname == "Target")
      #expect(figures.reputation == expected)
      #expect(figures.displayLevel == 6)
      #expect(figures.newPlayer)
      #expect(figures.totalGames == 1)
      let profile = try await world.client.players.getProfile(
        .init(userID: target.id), options: others[2].options)
      #expect(profile.reputation == expected)
      let friends = try await world.client.friends.listFriends(.init(), options: others[0].options)
      #expect(
        friends.friends.first { $0.player.userID == target.id }?.player.reputation == expected)
      // The reply is made of the aggregates alone: its contract has no field that could name a
      // rater or carry one rating.
      let descriptor = Reputation.cDescriptor.pointer.pointee
      let fields = (0..<Int(descriptor.n_fields)).map {
        String(cString: descriptor.fields[$0].name)
      }
      #expect(
        Set(fields) == [
          "user_id", "nickname", "display_level", "new_player", "reputation", "total_games",
          "wins",
        ])
    }
  }

  @Test(
    "properties 3 and 4: the display level is the self level until the 5th evaluation, then the calculated one",
    arguments: StoreKind.allCases
  )
  func displayLevel_switchesAtFifthEvaluation(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let target = try await world.player(level: 6)
      for (round, skill) in [Int32(5), 5, 5, 5, 6].enumerated() {
        let opponent = try await world.player()
        let match = try await playedMatch(world, [target, opponent])
        _ = try await world.client.surveys.completeMatch(
          .init(matchID: match.id, winningTeam: 1), options: opponent.options)
        try await submit(world, opponent, match, skill: skill)
        let profile = try await world.client.players.getProfile(
          .init(userID: target.id), options: opponent.options)
        if round < 4 {
          #expect(profile.displayLevel == 6)
          #expect(profile.newPlayer)
        } else {
          // round(0.3 x 6 + 0.7 x 26/5) = round(5.44) = 5.
          #expect(profile.displayLevel == 5)
          #expect(!profile.newPlayer)
        }
        #expect(profile.reputation.evaluationCount == Int32(round + 1))
        world.clock.advance(by: 2 * Self.hour)
      }
      let figures = try await reputation(world, of: target, asker: target)
      #expect(figures.displayLevel == 5)
      #expect(!figures.newPlayer)
      #expect(figures.totalGames == 5)
      #expect(figures.wins == 5)
    }
  }

  @Test(
    "skill accuracy measures each rating against the self level the player had when it was accepted",
    arguments: StoreKind.allCases
  )
  func skillAccuracy_usesSelfLevelAtThatMoment(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let target = try await world.player(level: 6)
      for (selfLevel, skill) in [(Int32(6), Int32(5)), (3, 5)] {
        _ = try await world.client.players.updateProfile(
          .init(selfLevel: selfLevel), options: target.options)
        let opponent = try await world.player()
        let match = try await playedMatch(world, [target, opponent])
        _ = try await world.client.surveys.completeMatch(
          .init(matchID: match.id, winningTeam: 2), options: target.options)
        try await submit(world, opponent, match, skill: skill)
        world.clock.advance(by: 2 * Self.hour)
      }
      // |5 - 6| = 1, then |5 - 3| = 2: 1.5 on average.
      let figures = try await reputation(world, of: target, asker: target)
      #expect(figures.reputation.averageSkillAccuracy == 1.5)
      #expect(figures.wins == 0)
      #expect(figures.totalGames == 2)
    }
  }
}
