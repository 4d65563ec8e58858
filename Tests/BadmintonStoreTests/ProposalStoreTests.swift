import BadmintonDomain
import BadmintonStore
import Testing

@Suite("Matching store: proposals and matches")
struct ProposalStoreTests {
  /// Four players, each with one active availability from 10:00 to 12:00 on the first day.
  private static func seatedPlayers(_ store: SQLitePlayerStore, count: Int = 4) async throws
    -> [(player: Int64, availability: Int64)]
  {
    var seats: [(Int64, Int64)] = []
    for index in 0..<count {
      let player = try await store.createPlayer(
        StoreFixtures.newPlayer(phone: "+86139000000\(10 + index)"))
      let availability = try await store.createAvailability(
        MatchingStoreTests.availability(player.id), activeLimit: 10, now: 0)
      seats.append((player.id, availability.id))
    }
    return seats
  }

  private static func proposal(
    _ seats: [(player: Int64, availability: Int64)], expiresAt: Int64 = 10_000
  ) -> NewProposal {
    NewProposal(
      proposerID: seats[0].player, proposerAvailabilityID: seats[0].availability,
      mode: seats.count == 2 ? .singles : .doubles,
      slot: MatchingStoreTests.availability(seats[0].player).slot,
      invitees: seats.dropFirst().map {
        ProposalInviteeRecord(playerID: $0.player, availabilityID: $0.availability)
      }, createdAtUnixMs: 0, expiresAtUnixMs: expiresAt)
  }

  @Test(
    "the last acceptance confirms the match, uses up every availability, and books nobody twice")
  func accept_confirmsOnce() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let seats = try await Self.seatedPlayers(store)
    let proposal = try await store.createProposal(Self.proposal(seats), now: 1)
    #expect(proposal.state == .pending)
    let teams = [seats[0].player: 1, seats[1].player: 2, seats[2].player: 2, seats[3].player: 1]
    for seat in seats[1..<3] {
      let outcome = try await store.answerProposal(
        id: proposal.id, playerID: seat.player, accept: true, teams: teams, now: 2)
      #expect(outcome.match == nil && outcome.proposal.state == .pending)
    }
    // The proposer is not an invitee and cannot answer; nor can a player answer twice.
    await #expect(throws: DomainError.self) {
      _ = try await store.answerProposal(
        id: proposal.id, playerID: seats[0].player, accept: true, teams: teams, now: 2)
    }
    await #expect(throws: DomainError.self) {
      _ = try await store.answerProposal(
        id: proposal.id, playerID: seats[1].player, accept: true, teams: teams, now: 2)
    }
    let last = try await store.answerProposal(
      id: proposal.id, playerID: seats[3].player, accept: true, teams: teams, now: 3)
    let match = try #require(last.match)
    #expect(last.proposal.state == .accepted && last.proposal.matchID == match.id)
    #expect(match.playerIDs == seats.map(\.player))
    #expect(match.participants.map(\.team) == [1, 2, 2, 1])
    #expect(match.state == .confirmed && match.confirmedAtUnixMs == 3)
    for seat in seats {
      #expect(try await store.availability(id: seat.availability)?.state == .matched)
      #expect(try await store.matches(playerID: seat.player, past: false, now: 0) == [match])
    }
    #expect(try await store.confirmedMatches(endingAfter: 0) == [match])
    #expect(try await store.match(id: match.id) == match)
  }

  @Test("a decline ends the proposal for everyone; a used availability makes a proposal lapse")
  func decline_andLapse() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let seats = try await Self.seatedPlayers(store, count: 3)
    let first = try await store.createProposal(Self.proposal([seats[0], seats[1]]), now: 1)
    let declined = try await store.answerProposal(
      id: first.id, playerID: seats[1].player, accept: false, teams: [:], now: 2)
    #expect(declined.proposal.state == .declined)
    await #expect(throws: DomainError.self) {
      _ = try await store.answerProposal(
        id: first.id, playerID: seats[1].player, accept: true, teams: [:], now: 2)
    }

    // Two proposals for the same availability: the first accepted uses it up.
    let a = try await store.createProposal(Self.proposal([seats[0], seats[1]]), now: 3)
    let b = try await store.createProposal(Self.proposal([seats[0], seats[2]]), now: 3)
    #expect(
      try await store.answerProposal(
        id: a.id, playerID: seats[1].player, accept: true, teams: [:], now: 4
      ).match != nil)
    let late = try await store.answerProposal(
      id: b.id, playerID: seats[2].player, accept: true, teams: [:], now: 5)
    #expect(late.match == nil && late.proposal.state == .lapsed)
    #expect(try await store.availability(id: seats[2].availability)?.state == .active)
    // A proposal naming an availability that is no longer active cannot be made.
    await #expect(throws: DomainError.self) {
      _ = try await store.createProposal(Self.proposal([seats[0], seats[2]]), now: 6)
    }
  }

  @Test("pending proposals lapse when they expire; cancelling a match frees the others' time")
  func expiry_andCancel() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let seats = try await Self.seatedPlayers(store, count: 2)
    let expiring = try await store.createProposal(Self.proposal(seats, expiresAt: 50), now: 1)
    #expect(try await store.lapseProposals(now: 49).isEmpty)
    #expect(try await store.lapseProposals(now: 50).map(\.id) == [expiring.id])
    await #expect(throws: DomainError.self) {
      _ = try await store.answerProposal(
        id: expiring.id, playerID: seats[1].player, accept: true, teams: [:], now: 51)
    }

    let proposal = try await store.createProposal(Self.proposal(seats), now: 60)
    let match = try #require(
      try await store.answerProposal(
        id: proposal.id, playerID: seats[1].player, accept: true, teams: [:], now: 61
      ).match)
    let start = match.slot.startUnixMs
    await #expect(throws: DomainError.self) {
      _ = try await store.cancelMatch(id: match.id, playerID: 999, now: 62)
    }
    await #expect(throws: DomainError.self) {
      _ = try await store.cancelMatch(id: match.id, playerID: seats[0].player, now: start)
    }
    let cancelled = try await store.cancelMatch(id: match.id, playerID: seats[0].player, now: 62)
    #expect(cancelled.match.state == .cancelled && cancelled.match.cancelledBy == seats[0].player)
    #expect(cancelled.restored.map(\.id) == [seats[1].availability])
    #expect(try await store.availability(id: seats[0].availability)?.state == .matched)
    #expect(try await store.availability(id: seats[1].availability)?.state == .active)
    #expect(try await store.matches(playerID: seats[1].player, past: false, now: 0).isEmpty)
    #expect(try await store.matches(playerID: seats[1].player, past: true, now: 0).count == 1)
    await #expect(throws: DomainError.self) {
      _ = try await store.cancelMatch(id: match.id, playerID: seats[1].player, now: 63)
    }
  }
}
