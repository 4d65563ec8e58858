import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import StoreTestSupport
import Testing

@Suite("Proposals and matches over the wire")
struct ProposalTests {
  typealias Seat = (player: PlayerWorld.Player, availability: Availability)

  /// Players who each post the same slot tomorrow 10:00-12:00 in Shanghai.
  private func seats(
    _ world: PlayerWorld, levels: [Int32], mode: MatchMode = .singles
  ) async throws -> [Seat] {
    var seats: [Seat] = []
    for level in levels {
      let player = try await world.player(level: level)
      let availability = try await world.client.matching.postAvailability(
        MatchingTests.request(mode: mode, tolerance: 8), options: player.options)
      seats.append((player, availability))
    }
    return seats
  }

  @Test(
    "singles: a proposal reaches the partner; acceptance confirms the match for both",
    arguments: StoreKind.allCases)
  func singles_proposeAndAccept(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let seats = try await seats(world, levels: [5, 6])
      let (proposer, invited) = (seats[0], seats[1])
      var invitedEvents = try await world.client.events.subscribe(options: invited.player.options)
        .makeAsyncIterator()
      var proposerEvents = try await world.client.events.subscribe(
        options: proposer.player.options
      ).makeAsyncIterator()

      let proposal = try await matching.proposeMatch(
        .init(
          availabilityID: proposer.availability.id,
          candidateAvailabilityIDs: [invited.availability.id]),
        options: proposer.player.options)
      #expect(proposal.state == .pending)
      #expect(proposal.invitees.map(\.userID) == [invited.player.id])
      #expect(proposal.slot == proposer.availability.slot)
      #expect(proposal.expiresAtUnixMs == proposal.slot.startUnixMs)
      let received = try #require(
        try await next(&invitedEvents) {
          if case .proposalReceived(let received)? = $0 { received } else { nil }
        })
      #expect(received.proposal == proposal)
      #expect(received.proposerDisplayLevel == 5)
      #expect(received.proposerReputation.punctualityPercentage == 100)

      // Only the invited player answers; nobody else even sees the proposal.
      let own = await rpcError {
        _ = try await matching.respondToProposal(
          .init(proposalID: proposal.id, accept: true), options: proposer.player.options)
      }
      #expect(own?.reason == "PROPOSAL_OWN")
      let stranger = try await world.player()
      for call in [
        {
          _ = try await matching.getProposal(
            .init(proposalID: proposal.id), options: stranger.options)
        },
        {
          _ = try await matching.respondToProposal(
            .init(proposalID: proposal.id, accept: true), options: stranger.options)
        },
      ] as [() async throws -> Void] {
        #expect(await rpcError(call)?.reason == "PROPOSAL_NOT_FOUND")
      }

      let accepted = try await matching.respondToProposal(
        .init(proposalID: proposal.id, accept: true), options: invited.player.options)
      #expect(accepted.state == .accepted && accepted.matchID != 0)
      let confirmed = try #require(
        try await next(&proposerEvents) {
          if case .matchConfirmed(let changed)? = $0 { changed.match } else { nil }
        })
      #expect(confirmed.id == accepted.matchID && confirmed.state == .confirmed)
      #expect(confirmed.participants.map(\.userID) == [proposer.player.id, invited.player.id])
      #expect(confirmed.participants.map(\.team) == [1, 2])
      #expect(confirmed.slot == proposal.slot)
      #expect(
        try await matching.getMatch(.init(matchID: confirmed.id), options: invited.player.options)
          == confirmed)
      let notYours = await rpcError {
        _ = try await matching.getMatch(.init(matchID: confirmed.id), options: stranger.options)
      }
      #expect(notYours?.reason == "MATCH_NOT_FOUND" && notYours?.code == .notFound)
      // The availability is used up, and the two are no longer found at that time.
      #expect(
        try await matching.listMyAvailability(options: proposer.player.options).availability
          .isEmpty)
      let late = try await matching.postAvailability(
        MatchingTests.request(tolerance: 8), options: stranger.options)
      #expect(
        try await matching.findMatches(.init(availabilityID: late.id), options: stranger.options)
          .candidates.isEmpty)
      #expect(
        try await matching.listMyMatches(options: proposer.player.options).matches == [confirmed])
      // A second availability of the proposer that overlaps the match is not offered to others
      // for the booked time, but is once it lies outside it.
      let second = try await matching.postAvailability(
        MatchingTests.request(from: 660, to: 840, tolerance: 8), options: proposer.player.options)
      let overlapping = try await matching.postAvailability(
        MatchingTests.request(from: 660, to: 780, tolerance: 8), options: stranger.options)
      #expect(
        try await matching.findMatches(
          .init(availabilityID: overlapping.id), options: stranger.options
        ).candidates.isEmpty)
      let after = try await matching.postAvailability(
        MatchingTests.request(from: 720, to: 840, tolerance: 8), options: stranger.options)
      #expect(
        try await matching.findMatches(.init(availabilityID: after.id), options: stranger.options)
          .candidates.map(\.availabilityID) == [second.id])
    }
  }

  @Test(
    "a decline ends the proposal for the others; it cannot be answered again",
    arguments: StoreKind.allCases)
  func decline_endsProposal(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let seats = try await seats(world, levels: [4, 4])
      var proposerEvents = try await world.client.events.subscribe(
        options: seats[0].player.options
      ).makeAsyncIterator()
      let proposal = try await matching.proposeMatch(
        .init(
          availabilityID: seats[0].availability.id,
          candidateAvailabilityIDs: [seats[1].availability.id]),
        options: seats[0].player.options)
      let declined = try await matching.respondToProposal(
        .init(proposalID: proposal.id, accept: false), options: seats[1].player.options)
      #expect(declined.state == .declined)
      #expect(declined.invitees.map(\.answer) == [.declined])
      let ended = try #require(
        try await next(&proposerEvents) {
          if case .proposalEnded(let ended)? = $0 { ended.proposal } else { nil }
        })
      #expect(ended.state == .declined)
      let again = await rpcError {
        _ = try await matching.respondToProposal(
          .init(proposalID: proposal.id, accept: true), options: seats[1].player.options)
      }
      #expect(again?.reason == "PROPOSAL_NOT_PENDING")
      // Both availability stay active for other partners.
      #expect(
        try await matching.listMyAvailability(options: seats[1].player.options).availability
          .count == 1)
    }
  }

  @Test(
    "doubles: three partners, all must accept; the teams are as even as the levels allow",
    arguments: StoreKind.allCases)
  func doubles_balancedTeams(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let seats = try await seats(world, levels: [2, 7, 3, 6], mode: .doubles)
      let wrongSize = await rpcError {
        _ = try await matching.proposeMatch(
          .init(
            availabilityID: seats[0].availability.id,
            candidateAvailabilityIDs: [seats[1].availability.id]),
          options: seats[0].player.options)
      }
      #expect(wrongSize?.reason == "PROPOSAL_SIZE_INVALID")
      let proposal = try await matching.proposeMatch(
        .init(
          availabilityID: seats[0].availability.id,
          candidateAvailabilityIDs: seats.dropFirst().map(\.availability.id)),
        options: seats[0].player.options)
      var last = proposal
      for seat in seats.dropFirst() {
        #expect(last.state == .pending)
        last = try await matching.respondToProposal(
          .init(proposalID: proposal.id, accept: true), options: seat.player.options)
      }
      #expect(last.state == .accepted)
      let match = try await matching.getMatch(
        .init(matchID: last.matchID), options: seats[0].player.options)
      let team = Dictionary(uniqueKeysWithValues: match.participants.map { ($0.userID, $0.team) })
      // Levels 2 and 7 against 3 and 6: 9 each.
      #expect(team[seats[0].player.id] == team[seats[1].player.id])
      #expect(team[seats[2].player.id] == team[seats[3].player.id])
      #expect(team[seats[0].player.id] != team[seats[2].player.id])
    }
  }

  @Test(
    "a proposal needs fitting partners, and lapses when nobody answers before its start",
    arguments: StoreKind.allCases)
  func proposal_rulesAndLapse(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let seats = try await seats(world, levels: [5, 5])
      let faraway = try await world.player(level: 5)
      let far = try await matching.postAvailability(
        MatchingTests.request(at: MatchingTests.north(40), tolerance: 8), options: faraway.options)
      let unfit = await rpcError {
        _ = try await matching.proposeMatch(
          .init(availabilityID: seats[0].availability.id, candidateAvailabilityIDs: [far.id]),
          options: seats[0].player.options)
      }
      #expect(unfit?.reason == "CANDIDATE_UNAVAILABLE")
      let notMine = await rpcError {
        _ = try await matching.proposeMatch(
          .init(
            availabilityID: seats[1].availability.id,
            candidateAvailabilityIDs: [seats[0].availability.id]),
          options: seats[0].player.options)
      }
      #expect(notMine?.reason == "AVAILABILITY_NOT_FOUND")

      let proposal = try await matching.proposeMatch(
        .init(
          availabilityID: seats[0].availability.id,
          candidateAvailabilityIDs: [seats[1].availability.id]),
        options: seats[0].player.options)
      var invitedEvents = try await world.client.events.subscribe(options: seats[1].player.options)
        .makeAsyncIterator()
      // The slot starts tomorrow at 10:00 in Shanghai, 18 hours from the world's start.
      world.clock.advance(by: 18 * 3_600_000)
      #expect(
        try await matching.getProposal(
          .init(proposalID: proposal.id), options: seats[0].player.options
        ).state == .lapsed)
      try await world.sweep()
      let ended = try #require(
        try await next(&invitedEvents) {
          if case .proposalEnded(let ended)? = $0 { ended.proposal } else { nil }
        })
      #expect(ended.id == proposal.id && ended.state == .lapsed)
      let late = await rpcError {
        _ = try await matching.respondToProposal(
          .init(proposalID: proposal.id, accept: true), options: seats[1].player.options)
      }
      #expect(late?.reason == "PROPOSAL_NOT_PENDING")
    }
  }

  @Test(
    "cancelling a match before its start frees the others' time and tells them",
    arguments: StoreKind.allCases)
  func cancelMatch_beforeStart(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let seats = try await seats(world, levels: [5, 5])
      let proposal = try await matching.proposeMatch(
        .init(
          availabilityID: seats[0].availability.id,
          candidateAvailabilityIDs: [seats[1].availability.id]),
        options: seats[0].player.options)
      let accepted = try await matching.respondToProposal(
        .init(proposalID: proposal.id, accept: true), options: seats[1].player.options)
      var otherEvents = try await world.client.events.subscribe(options: seats[0].player.options)
        .makeAsyncIterator()
      let stranger = try await world.player()
      let notYours = await rpcError {
        _ = try await matching.cancelMatch(
          .init(matchID: accepted.matchID), options: stranger.options)
      }
      #expect(notYours?.reason == "MATCH_NOT_FOUND")
      let cancelled = try await matching.cancelMatch(
        .init(matchID: accepted.matchID), options: seats[1].player.options)
      #expect(cancelled.state == .cancelled && cancelled.cancelledBy == seats[1].player.id)
      let told = try #require(
        try await next(&otherEvents) {
          if case .matchCancelled(let changed)? = $0 { changed.match } else { nil }
        })
      #expect(told == cancelled)
      // The other player is matchable again; the one who cancelled is not.
      #expect(
        try await matching.listMyAvailability(options: seats[0].player.options).availability
          .map(\.id) == [seats[0].availability.id])
      #expect(
        try await matching.listMyAvailability(options: seats[1].player.options).availability
          .isEmpty)
      #expect(
        try await matching.listMyMatches(.init(past: true), options: seats[0].player.options)
          .matches == [cancelled])
      let twice = await rpcError {
        _ = try await matching.cancelMatch(
          .init(matchID: accepted.matchID), options: seats[0].player.options)
      }
      #expect(twice?.reason == "MATCH_NOT_CONFIRMED")
    }
  }

  @Test(
    "a proposal for a slot days ahead waits 24 hours for answers, then lapses",
    arguments: StoreKind.allCases)
  func proposal_lapsesAfter24Hours(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let later = LocalDate(year: 2027, month: 1, day: 25)
      var seats: [Seat] = []
      for _ in 0..<2 {
        let player = try await world.player()
        seats.append(
          (
            player,
            try await matching.postAvailability(
              MatchingTests.request(date: later), options: player.options)
          ))
      }
      let proposal = try await matching.proposeMatch(
        .init(
          availabilityID: seats[0].availability.id,
          candidateAvailabilityIDs: [seats[1].availability.id]),
        options: seats[0].player.options)
      #expect(proposal.expiresAtUnixMs == world.clock.nowUnixMs() + 24 * 3_600_000)
      world.clock.advance(by: 24 * 3_600_000 - 1)
      #expect(
        try await matching.getProposal(
          .init(proposalID: proposal.id), options: seats[1].player.options
        ).state == .pending)
      world.clock.advance(by: 1)
      let late = await rpcError {
        _ = try await matching.respondToProposal(
          .init(proposalID: proposal.id, accept: true), options: seats[1].player.options)
      }
      #expect(late?.reason == "PROPOSAL_NOT_PENDING")
    }
  }

  @Test(
    "in doubles every two players must fit each other, not only the proposer",
    arguments: StoreKind.allCases)
  func doubles_pairwiseFit(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let proposer = try await world.player(level: 5)
      let mine = try await matching.postAvailability(
        MatchingTests.request(mode: .doubles, radius: 50, tolerance: 8),
        options: proposer.options)
      var chosen: [Int64] = []
      // 20 miles north, 20 miles south (40 apart, beyond their 25-mile radius), and near.
      for miles in [20.0, -20.0, 1.0] {
        let player = try await world.player(level: 5)
        chosen.append(
          try await matching.postAvailability(
            MatchingTests.request(
              mode: .doubles, at: MatchingTests.north(miles), radius: 25, tolerance: 8),
            options: player.options
          ).id)
      }
      let refused = await rpcError {
        _ = try await matching.proposeMatch(
          .init(availabilityID: mine.id, candidateAvailabilityIDs: chosen),
          options: proposer.options)
      }
      #expect(refused?.reason == "CANDIDATE_UNAVAILABLE")
    }
  }

  @Test(
    "time already past does not count: a partly passed overlap is measured from now",
    arguments: StoreKind.allCases)
  func overlap_fromNow(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      // Today 16:00-18:00 in Shanghai: it is 16:00 now.
      let seats = try await ([5, 5] as [Int32]).asyncMap { level in
        let player = try await world.player(level: level)
        let availability = try await matching.postAvailability(
          MatchingTests.request(date: MatchingTests.today, from: 960, to: 1080, tolerance: 8),
          options: player.options)
        return (player, availability)
      }
      let found = try await matching.findMatches(
        .init(availabilityID: seats[0].1.id), options: seats[0].0.options)
      #expect(found.candidates.map(\.availabilityID) == [seats[1].1.id])
      // Their common time starts now: it can be found, but no longer proposed.
      let underWay = await rpcError {
        _ = try await matching.proposeMatch(
          .init(availabilityID: seats[0].1.id, candidateAvailabilityIDs: [seats[1].1.id]),
          options: seats[0].0.options)
      }
      #expect(underWay?.reason == "PROPOSAL_NO_COMMON_TIME")
      // 100 minutes later only 20 minutes are left: too little to play.
      world.clock.advance(by: 100 * 60_000)
      let later = try await matching.findMatches(
        .init(availabilityID: seats[0].1.id), options: seats[0].0.options)
      #expect(later.candidates.isEmpty)
      let tooLate = await rpcError {
        _ = try await matching.proposeMatch(
          .init(availabilityID: seats[0].1.id, candidateAvailabilityIDs: [seats[1].1.id]),
          options: seats[0].0.options)
      }
      #expect(tooLate?.reason == "CANDIDATE_UNAVAILABLE")
    }
  }
}

extension Array {
  /// The elements transformed one after another.
  func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var result: [T] = []
    for element in self { result.append(try await transform(element)) }
    return result
  }
}
