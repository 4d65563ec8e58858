import BadmintonDomain
import BadmintonStore
import StoreTestSupport
import Synchronization
import Testing

@Suite("Matching store: proposals and matches")
struct ProposalStoreTests {
  /// The reason of the `DomainError` that `body` threw, or nil.
  static func reason(_ body: () async throws -> Void) async -> String? {
    do {
      try await body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "\(error)"
    }
  }

  /// Four players, each with one active availability from 10:00 to 12:00 on the first day.
  static func seatedPlayers(_ store: any ServerStore, count: Int = 4) async throws
    -> [(player: Int64, availability: Int64)]
  {
    var seats: [(Int64, Int64)] = []
    for index in 0..<count {
      let player = try await MatchingStoreTests.player(store, "+86139000000\(10 + index)")
      let availability = try await store.createAvailability(
        MatchingStoreTests.availability(player), activeLimit: 10, now: 0)
      seats.append((player, availability.id))
    }
    return seats
  }

  static func proposal(
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
    "the last acceptance confirms the match, uses up every availability, and books nobody twice",
    arguments: StoreKind.allCases)
  func accept_confirmsOnce(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.accept_confirmsOnce(store) }
  }

  private static func accept_confirmsOnce(_ store: any ServerStore) async throws {
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
    #expect(
      await Self.reason {
        _ = try await store.answerProposal(
          id: proposal.id, playerID: seats[0].player, accept: true, teams: teams, now: 2)
      } == "PROPOSAL_NOT_FOUND")
    #expect(
      await Self.reason {
        _ = try await store.answerProposal(
          id: proposal.id, playerID: seats[1].player, accept: true, teams: teams, now: 2)
      } == "PROPOSAL_ALREADY_ANSWERED")
    let last = try await store.answerProposal(
      id: proposal.id, playerID: seats[3].player, accept: true, teams: teams, now: 3)
    let match = try #require(last.match)
    #expect(last.proposal.state == .accepted && last.proposal.matchID == match.id)
    #expect(match.playerIDs == seats.map(\.player))
    #expect(match.participants.map(\.team) == [1, 2, 2, 1])
    #expect(match.state == .confirmed && match.confirmedAtUnixMs == 3)
    for seat in seats {
      #expect(try await store.availability(id: seat.availability)?.state == .matched)
      #expect(
        try await store.matches(playerID: seat.player, past: false, now: 0, after: nil, limit: 100)
          == [match])
    }
    #expect(try await store.confirmedMatches(endingAfter: 0) == [match])
    #expect(try await store.match(id: match.id) == match)

    // A player booked by that match cannot be booked again for an overlapping time, even from
    // another availability: the last acceptance then lets the proposal lapse.
    let second = try await store.createAvailability(
      MatchingStoreTests.availability(seats[0].player, startHour: 11), activeLimit: 10, now: 0)
    let other = try await MatchingStoreTests.player(store, "+8613900000099")
    let otherSlot = try await store.createAvailability(
      MatchingStoreTests.availability(other, startHour: 11), activeLimit: 10, now: 0)
    let overlapping = try await store.createProposal(
      Self.proposal([(seats[0].player, second.id), (other, otherSlot.id)]), now: 4)
    let refused = try await store.answerProposal(
      id: overlapping.id, playerID: other, accept: true, teams: [:], now: 5)
    #expect(refused.match == nil && refused.proposal.state == .lapsed)
    #expect(try await store.availability(id: otherSlot.id)?.state == .active)
  }

  @Test(
    "a decline ends the proposal for everyone; a used availability makes a proposal lapse",
    arguments: StoreKind.allCases)
  func decline_andLapse(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.decline_andLapse(store) }
  }

  private static func decline_andLapse(_ store: any ServerStore) async throws {
    let seats = try await Self.seatedPlayers(store, count: 3)
    let first = try await store.createProposal(Self.proposal([seats[0], seats[1]]), now: 1)
    let declined = try await store.answerProposal(
      id: first.id, playerID: seats[1].player, accept: false, teams: [:], now: 2)
    #expect(declined.proposal.state == .declined)
    #expect(
      await Self.reason {
        _ = try await store.answerProposal(
          id: first.id, playerID: seats[1].player, accept: true, teams: [:], now: 2)
      } == "PROPOSAL_NOT_PENDING")

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
    #expect(
      await Self.reason {
        _ = try await store.createProposal(Self.proposal([seats[0], seats[2]]), now: 6)
      } == "AVAILABILITY_NOT_FOUND")
  }

  @Test(
    "pending proposals lapse when they expire; cancelling a match frees the others' time",
    arguments: StoreKind.allCases)
  func expiry_andCancel(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.expiry_andCancel(store) }
  }

  private static func expiry_andCancel(_ store: any ServerStore) async throws {
    let seats = try await Self.seatedPlayers(store, count: 2)
    let expiring = try await store.createProposal(Self.proposal(seats, expiresAt: 50), now: 1)
    #expect(try await store.lapseProposals(now: 49).isEmpty)
    #expect(try await store.lapseProposals(now: 50).map(\.id) == [expiring.id])
    #expect(
      await Self.reason {
        _ = try await store.answerProposal(
          id: expiring.id, playerID: seats[1].player, accept: true, teams: [:], now: 51)
      } == "PROPOSAL_NOT_PENDING")

    let proposal = try await store.createProposal(Self.proposal(seats), now: 60)
    let match = try #require(
      try await store.answerProposal(
        id: proposal.id, playerID: seats[1].player, accept: true, teams: [:], now: 61
      ).match)
    let start = match.slot.startUnixMs
    #expect(
      await Self.reason {
        _ = try await store.cancelMatch(id: match.id, playerID: 999, now: 62)
      } == "MATCH_NOT_FOUND")
    #expect(
      await Self.reason {
        _ = try await store.cancelMatch(id: match.id, playerID: seats[0].player, now: start)
      } == "MATCH_ALREADY_STARTED")
    let cancelled = try await store.cancelMatch(id: match.id, playerID: seats[0].player, now: 62)
    #expect(cancelled.match.state == .cancelled && cancelled.match.cancelledBy == seats[0].player)
    #expect(cancelled.restored.map(\.id) == [seats[1].availability])
    #expect(try await store.availability(id: seats[0].availability)?.state == .matched)
    #expect(try await store.availability(id: seats[1].availability)?.state == .active)
    #expect(
      try await store.matches(
        playerID: seats[1].player, past: false, now: 0, after: nil, limit: 100
      ).isEmpty)
    #expect(
      try await store.matches(playerID: seats[1].player, past: true, now: 0, after: nil, limit: 100)
        .count == 1)
    #expect(
      await Self.reason {
        _ = try await store.cancelMatch(id: match.id, playerID: seats[1].player, now: 63)
      } == "MATCH_NOT_CONFIRMED")
  }

  @Test(
    "an answer's events are written with it, and a refused answer writes none",
    arguments: StoreKind.allCases)
  func answerEvents_inTransaction(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.answerEvents_inTransaction(store) }
  }

  private static func answerEvents_inTransaction(_ store: any ServerStore) async throws {
    let seats = try await Self.seatedPlayers(store, count: 2)
    let proposal = try await store.createProposal(Self.proposal(seats), now: 1)
    let notify: @Sendable (ProposalAnswerOutcome) -> OutgoingEvents = { outcome in
      outcome.proposal.playerIDs.map { ($0, Array("\(outcome.proposal.state)".utf8)) }
    }
    _ = try await store.answerProposal(
      id: proposal.id, playerID: seats[1].player, accept: false, teams: [:], now: 2,
      notify: notify)
    #expect(
      try await MatchingTestSupport.eventPayloads(store, playerID: seats[0].player)
        == [Array("declined".utf8)])
    #expect(
      await Self.reason {
        _ = try await store.answerProposal(
          id: proposal.id, playerID: seats[1].player, accept: true, teams: [:], now: 3,
          notify: notify)
      } == "PROPOSAL_NOT_PENDING")
    #expect(
      try await MatchingTestSupport.eventPayloads(store, playerID: seats[0].player).count == 1)
  }

  @Test(
    "saving recurring slots again keeps a recurring day a match used, and does not re-add it",
    arguments: StoreKind.allCases)
  func recurringSave_keepsMatchedDay(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.recurringSave_keepsMatchedDay(store) }
  }

  private static func recurringSave_keepsMatchedDay(_ store: any ServerStore) async throws {
    let seats = try await Self.seatedPlayers(store, count: 1)
    let player = seats[0].player
    let settings = RecurringSettings(
      playerID: player,
      slots: [
        RecurringSlot(weekday: 7, startMinute: 600, endMinute: 720, mode: .singles, isActive: true)
      ], timeZone: "Asia/Shanghai", location: MatchingStoreTests.shanghai, radiusMiles: 10,
      skillTolerance: 2)
    let day = MatchingStoreTests.availability(player, startHour: 30, source: .recurring)
    let saved = try await store.saveRecurring(settings, occurrences: [day])
    let recurringDay = try #require(saved.added.first)
    let partner = try await MatchingStoreTests.player(store, "+8613900000098")
    let theirs = try await store.createAvailability(
      MatchingStoreTests.availability(partner, startHour: 30), activeLimit: 10, now: 0)
    let proposal = try await store.createProposal(
      Self.proposal([(player, recurringDay.id), (partner, theirs.id)]), now: 1)
    let match = try await store.answerProposal(
      id: proposal.id, playerID: partner, accept: true, teams: [:], now: 2
    ).match
    #expect(match != nil)
    let again = try await store.saveRecurring(settings, occurrences: [day])
    #expect(again.added.isEmpty && again.removed.isEmpty)
    #expect(try await store.availability(id: recurringDay.id)?.state == .matched)
  }

  @Test(
    "the replays and the feed give availability and matches as the store reads them, in id order",
    arguments: StoreKind.allCases)
  func replays_andFeed(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.replaysAndFeed(store) }
  }

  private static func replaysAndFeed(_ store: any ServerStore) async throws {
    let fed = Mutex<[StoreChange]>([])
    store.feed.subscribe { committed in fed.withLock { $0 += committed.changes } }
    let seats = try await Self.seatedPlayers(store, count: 3)
    let kept = try #require(
      try await store.answerProposal(
        id: try await store.createProposal(Self.proposal([seats[0], seats[1]]), now: 1).id,
        playerID: seats[1].player, accept: true, teams: [:], now: 2
      ).match)
    // A later match of the first player with the third, cancelled.
    let later = MatchingStoreTests.availability(seats[0].player, startHour: 30)
    let mine = try await store.createAvailability(later, activeLimit: 10, now: 0)
    let theirs = try await store.createAvailability(
      MatchingStoreTests.availability(seats[2].player, startHour: 30), activeLimit: 10, now: 0)
    var second = Self.proposal([(seats[0].player, mine.id), (seats[2].player, theirs.id)])
    second.slot = later.slot
    let cancelled = try #require(
      try await store.answerProposal(
        id: try await store.createProposal(second, now: 3).id, playerID: seats[2].player,
        accept: true, teams: [:], now: 4
      ).match)
    _ = try await store.cancelMatch(id: cancelled.id, playerID: seats[0].player, now: 5)
    // More recurring days than a replay reads at once.
    let days = (0..<1005).map { index in
      MatchingStoreTests.availability(
        seats[0].player, startHour: 40, source: .recurring,
        date: LocalDate(
          year: 2030 + index / 280, month: 1 + index % 280 / 28, day: 1 + index % 28))
    }
    let added = try await store.addRecurringOccurrences(days)
    #expect(added.count == days.count)

    let active = try await store.allActiveAvailability(now: 0)
    #expect(active.map(\.id) == active.map(\.id).sorted())
    #expect(
      Set(active.map(\.id))
        == Set([seats[2].availability, theirs.id] + added.map(\.id)))
    let replayed = Mutex<[StoreChange]>([])
    try await store.replayActiveAvailability(nowUnixMs: 0) { change in
      replayed.withLock { $0.append(change) }
    }
    #expect(replayed.withLock { $0 } == active.map { .availability(id: $0.id, $0) })

    let matches = Mutex<[StoreChange]>([])
    try await store.replayConfirmedMatches(endingAfter: 0) { change in
      matches.withLock { $0.append(change) }
    }
    #expect(matches.withLock { $0 } == [.match(id: kept.id, kept)])
    #expect(try await store.confirmedMatches(endingAfter: 0) == [kept])

    // The feed's last word on each availability and match is what the store reads now.
    var last: [String: StoreChange] = [:]
    for change in fed.withLock({ $0 }) {
      switch change {
      case .availability(let id, _): last["availability \(id)"] = change
      case .match(let id, _): last["match \(id)"] = change
      default: continue
      }
    }
    for id in seats.map(\.availability) + [mine.id, theirs.id] {
      let record = try await store.availability(id: id)
      #expect(last["availability \(id)"] == .availability(id: id, record))
    }
    for match in [kept, cancelled] {
      let record = try await store.match(id: match.id)
      #expect(last["match \(match.id)"] == .match(id: match.id, record))
    }
    #expect(try await store.match(id: cancelled.id)?.state == .cancelled)
  }
}
