public import BadmintonAPI
import BadmintonDomain
import BadmintonProjections
public import BadmintonRPC
import BadmintonStore

/// Proposals and matches: a player invites the partners they found; when everyone accepts, the
/// match is confirmed. Only the players of a proposal or match can see or change it.
extension MatchingService {
  public func proposeMatch(_ request: ProposeMatchRequest, context: ServerContext) async throws
    -> Proposal
  {
    let caller = try context.requirePrincipal()
    let now = clock.nowUnixMs()
    guard var mine = board.request(request.availabilityID), mine.playerID == caller.userID,
      mine.slot.endUnixMs > now
    else { throw MatchingErrors.availabilityNotFound }
    mine.slot.startUnixMs = max(mine.slot.startUnixMs, now)
    let ids = request.candidateAvailabilityIDs
    let needed = mine.mode == .singles ? 1 : 3
    guard ids.count == needed, Set(ids).count == ids.count else {
      throw DomainError.invalidField(
        "candidate_availability_ids", "PROPOSAL_SIZE_INVALID",
        en: "Choose exactly 1 partner for singles, or 3 for doubles.",
        zhCN: "单打须选择 1 位球友，双打须选择 3 位。")
    }
    // Every two of the players must fit each other, not only the proposer: in doubles all four
    // play together.
    var seats = [mine]
    var blocked = [caller.userID: try await blocks.playersBlocked(eitherWayWith: caller.userID)]
    for id in ids {
      guard let other = board.request(id),
        !seats.contains(where: { $0.playerID == other.playerID }),
        suspensions?.suspendedUntil(other.playerID, nowUnixMs: now) == nil
      else { throw MatchingErrors.candidateUnavailable }
      blocked[other.playerID] = try await blocks.playersBlocked(eitherWayWith: other.playerID)
      for seat in seats {
        guard blocked[seat.playerID]?.contains(other.playerID) != true,
          let fit = MatchRules.candidate(other, for: seat),
          !board.isBooked(other.playerID, during: fit.overlap),
          !board.isBooked(seat.playerID, during: fit.overlap)
        else { throw MatchingErrors.candidateUnavailable }
      }
      seats.append(other)
    }
    // Everyone's common time; `mine` already starts no earlier than now.
    var slot = mine.slot
    for seat in seats {
      slot.startUnixMs = max(slot.startUnixMs, seat.slot.startUnixMs)
      slot.endUnixMs = min(slot.endUnixMs, seat.slot.endUnixMs)
    }
    let invitees = seats.dropFirst().map {
      ProposalInviteeRecord(playerID: $0.playerID, availabilityID: $0.id)
    }
    // A proposal waits for answers until its time starts, so time already under way cannot be
    // proposed.
    guard slot.startUnixMs > now, slot.durationMs >= BadmintonDomain.TimeSlot.minimumOverlapMs
    else {
      throw DomainError(
        .failedPrecondition, "PROPOSAL_NO_COMMON_TIME",
        en: "The chosen players do not share 30 minutes that start later than now.",
        zhCN: "所选球友没有尚未开始的共同 30 分钟空闲时间。")
    }
    guard let proposer = try await store.player(id: caller.userID) else {
      throw MatchingErrors.availabilityNotFound
    }
    let new = NewProposal(
      proposerID: caller.userID, proposerAvailabilityID: mine.id, mode: mine.mode, slot: slot,
      invitees: invitees, createdAtUnixMs: now,
      expiresAtUnixMs: ProposalRules.expiresAt(slotStartUnixMs: slot.startUnixMs, nowUnixMs: now))
    let proposal = try await withKeyedAnswer({ Self.message($0, now: now) }) {
      try await store.createProposal(new, now: now) { proposal in
        let display = proposer.displayLevel
        let received = ProposalReceived(
          proposal: Self.message(proposal, now: now), proposerNickname: proposer.nickname,
          proposerDisplayLevel: Int32(display.level),
          proposerReputation: PlayersService.summary(proposer.reputation))
        let payload = Event(body: .proposalReceived(received)).serializedBytes()
        return proposal.details.invitees.map { ($0.playerID, payload) }
      }
    }
    return Self.message(proposal, now: now)
  }

  public func respondToProposal(_ request: RespondToProposalRequest, context: ServerContext)
    async throws -> Proposal
  {
    let caller = try context.requirePrincipal()
    let now = clock.nowUnixMs()
    guard let proposal = try await store.proposal(id: request.proposalID),
      proposal.playerIDs.contains(caller.userID)
    else { throw MatchingErrors.proposalNotFound }
    guard proposal.details.proposerID != caller.userID else {
      throw DomainError(
        .failedPrecondition, "PROPOSAL_OWN",
        en: "You made this proposal; the invited players answer it.",
        zhCN: "这是您发起的邀请，由受邀球友回复。")
    }
    // No match is made with a player suspended since the proposal was made.
    if request.accept,
      proposal.playerIDs.contains(where: {
        suspensions?.suspendedUntil($0, nowUnixMs: now) != nil
      })
    {
      throw MatchingErrors.candidateUnavailable
    }
    let players = try await store.players(ids: proposal.playerIDs)
    let teams = Self.teams(for: proposal, players: players)
    let answering = caller.userID
    let outcome = try await withKeyedAnswer({ Self.message($0.proposal, now: now) }) {
      try await store.answerProposal(
        id: proposal.id, playerID: answering, accept: request.accept, teams: teams, now: now
      ) { outcome in
        if let match = outcome.match {
          let changed = MatchChanged(match: Self.message(match, players: players))
          let payload = Event(body: .matchConfirmed(changed)).serializedBytes()
          return match.playerIDs.map { ($0, payload) }
        }
        guard outcome.proposal.state != .pending else { return [] }
        let ended = ProposalEnded(proposal: Self.message(outcome.proposal, now: now))
        let payload = Event(body: .proposalEnded(ended)).serializedBytes()
        return outcome.proposal.playerIDs.filter { $0 != answering }.map { ($0, payload) }
      }
    }
    return Self.message(outcome.proposal, now: now)
  }

  public func getProposal(_ request: GetProposalRequest, context: ServerContext) async throws
    -> Proposal
  {
    let caller = try context.requirePrincipal()
    guard let proposal = try await store.proposal(id: request.proposalID),
      proposal.playerIDs.contains(caller.userID)
    else { throw MatchingErrors.proposalNotFound }
    return Self.message(proposal, now: clock.nowUnixMs())
  }

  public func getMatch(_ request: GetMatchRequest, context: ServerContext) async throws -> Match {
    let caller = try context.requirePrincipal()
    guard let match = try await store.match(id: request.matchID),
      match.playerIDs.contains(caller.userID)
    else { throw MatchingErrors.matchNotFound }
    return Self.message(match, players: try await store.players(ids: match.playerIDs))
  }

  public func listMyMatches(_ request: ListMyMatchesRequest, context: ServerContext) async throws
    -> ListMyMatchesResponse
  {
    let caller = try context.requirePrincipal()
    let pageSize = try PageRules.size(Int(request.pageSize))
    let kind = request.past ? Self.pastMatchesKind : Self.upcomingMatchesKind
    let after =
      try request.pageToken.isEmpty
      ? nil : PageToken.parse(request.pageToken, kind: kind, count: 2)
    // One more than the page tells whether another page follows.
    let page = try await store.matches(
      playerID: caller.userID, past: request.past, now: clock.nowUnixMs(),
      after: after.map { (startUnixMs: $0[0], matchID: $0[1]) }, limit: pageSize + 1)
    let listed = Array(page.prefix(pageSize))
    // One lookup for the players of every match listed.
    let players = try await store.players(ids: Array(Set(listed.flatMap(\.playerIDs))))
    let matches = listed.map { Self.message($0, players: players) }
    let shown = Array(matches.prefix(budget.fitting(matches)))
    let next =
      page.count > shown.count
      ? PageToken(kind: kind, values: [shown.last!.slot.startUnixMs, shown.last!.id]).text : ""
    return ListMyMatchesResponse(matches: shown, nextPageToken: next)
  }

  /// The kind of the page tokens of a player's upcoming matches.
  static let upcomingMatchesKind = "upcomingmatches"
  /// The kind of the page tokens of a player's past matches.
  static let pastMatchesKind = "pastmatches"

  public func cancelMatch(_ request: CancelMatchRequest, context: ServerContext) async throws
    -> Match
  {
    let caller = try context.requirePrincipal().userID
    guard let existing = try await store.match(id: request.matchID),
      existing.playerIDs.contains(caller)
    else { throw MatchingErrors.matchNotFound }
    let players = try await store.players(ids: existing.playerIDs)
    let cancellation = try await withKeyedAnswer({
      Self.message($0.match, players: players)
    }) {
      try await store.cancelMatch(
        id: request.matchID, playerID: caller, now: clock.nowUnixMs()
      ) { cancellation in
        let changed = MatchChanged(match: Self.message(cancellation.match, players: players))
        let payload = Event(body: .matchCancelled(changed)).serializedBytes()
        return cancellation.match.playerIDs.filter { $0 != caller }.map { ($0, payload) }
      }
    }
    return Self.message(cancellation.match, players: players)
  }

  /// Ends the proposals that expired and tells their players; returns how many.
  @discardableResult
  func lapseExpiredProposals() async throws -> Int {
    let now = clock.nowUnixMs()
    let lapsed = try await store.lapseProposals(now: now) { lapsed in
      lapsed.flatMap { proposal in
        let ended = ProposalEnded(proposal: Self.message(proposal, now: now))
        let payload = Event(body: .proposalEnded(ended)).serializedBytes()
        return proposal.playerIDs.map { ($0, payload) }
      }
    }
    return lapsed.count
  }

  // MARK: Rules

  /// The teams the match would have: in doubles the most even split by display level, in
  /// singles one player each.
  private static func teams(for proposal: ProposalRecord, players: [Int64: PlayerRecord])
    -> [Int64: Int]
  {
    MatchRules.teams(
      proposal.playerIDs.map { (playerID: $0, level: players[$0]?.displayLevel.level ?? 1) })
  }

  // MARK: Messages

  static func message(_ proposal: ProposalRecord, now: Int64) -> Proposal {
    let details = proposal.details
    var state: ProposalState =
      switch proposal.state {
      case .pending: .pending
      case .accepted: .accepted
      case .declined: .declined
      case .lapsed: .lapsed
      }
    // A pending proposal past its expiry has lapsed, whether or not the sweep has marked it.
    if proposal.state == .pending
      && ProposalRules.isExpired(expiresAtUnixMs: details.expiresAtUnixMs, nowUnixMs: now)
    {
      state = .lapsed
    }
    return Proposal(
      id: proposal.id, proposerID: details.proposerID,
      proposerAvailabilityID: details.proposerAvailabilityID, mode: message(details.mode),
      slot: message(details.slot),
      invitees: details.invitees.map { invitee in
        ProposalInvitee(
          userID: invitee.playerID, availabilityID: invitee.availabilityID,
          answer: invitee.answer == .pending
            ? .pending : invitee.answer == .accepted ? .accepted : .declined)
      },
      state: state, createdAtUnixMs: details.createdAtUnixMs,
      expiresAtUnixMs: details.expiresAtUnixMs, matchID: proposal.matchID ?? 0)
  }

  static func message(_ match: MatchRecord, players: [Int64: PlayerRecord]) -> Match {
    Match(
      id: match.id, mode: message(match.mode), slot: message(match.slot),
      participants: match.participants.map { participant in
        let player = players[participant.playerID]
        return MatchParticipant(
          userID: participant.playerID, nickname: player?.nickname ?? "",
          displayLevel: Int32(player?.displayLevel.level ?? 0), team: Int32(participant.team),
          availabilityID: participant.availabilityID)
      },
      state: message(match.state), proposalID: match.proposalID,
      confirmedAtUnixMs: match.confirmedAtUnixMs, cancelledBy: match.cancelledBy ?? 0,
      cancelledAtUnixMs: match.cancelledAtUnixMs ?? 0,
      winningTeam: Int32(match.result?.winningTeam ?? 0),
      completedAtUnixMs: match.result?.completedAtUnixMs ?? 0,
      completedBy: match.result?.completedBy ?? 0)
  }

  static func message(_ state: StoredMatchState) -> MatchState {
    switch state {
    case .confirmed: .confirmed
    case .cancelled: .cancelled
    case .completed: .completed
    }
  }
}
