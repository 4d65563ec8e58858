public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
import BadmintonStore

/// Proposals and matches: a player invites the partners they found; when everyone accepts, the
/// match is confirmed. Only the players of a proposal or match can see or change it.
extension MatchingService {
  /// How long a proposal waits for answers at most.
  static let proposalLifetimeMs: Int64 = 24 * 3_600_000

  public func proposeMatch(_ request: ProposeMatchRequest, context: ServerContext) async throws
    -> Proposal
  {
    let caller = try context.requirePrincipal()
    let now = clock.nowUnixMs()
    board.removeExpired(nowUnixMs: now)
    guard let mine = board.request(request.availabilityID), mine.playerID == caller.userID else {
      throw Self.availabilityNotFound
    }
    let ids = request.candidateAvailabilityIDs
    let needed = mine.mode == .singles ? 1 : 3
    guard ids.count == needed, Set(ids).count == ids.count else {
      throw DomainError.invalidField(
        "candidate_availability_ids", "PROPOSAL_SIZE_INVALID",
        en: "Choose exactly 1 partner for singles, or 3 for doubles.",
        zhCN: "单打须选择 1 位球友，双打须选择 3 位。")
    }
    let blocked = try await blocks.playersBlocked(eitherWayWith: caller.userID)
    var slot = mine.slot
    var invitees: [ProposalInviteeRecord] = []
    for id in ids {
      guard let other = board.request(id), !blocked.contains(other.playerID),
        !invitees.contains(where: { $0.playerID == other.playerID }),
        let fit = MatchRules.candidate(other, for: mine),
        !board.isBooked(other.playerID, during: fit.overlap),
        !board.isBooked(caller.userID, during: fit.overlap)
      else { throw Self.candidateUnavailable }
      slot = BadmintonDomain.TimeSlot(
        startUnixMs: max(slot.startUnixMs, other.slot.startUnixMs),
        endUnixMs: min(slot.endUnixMs, other.slot.endUnixMs))
      invitees.append(ProposalInviteeRecord(playerID: other.playerID, availabilityID: id))
    }
    // Everyone's common time, and of it only what has not started.
    slot.startUnixMs = max(slot.startUnixMs, now)
    guard slot.durationMs >= BadmintonDomain.TimeSlot.minimumOverlapMs else {
      throw DomainError(
        .failedPrecondition, "PROPOSAL_NO_COMMON_TIME",
        en: "The chosen players do not share 30 minutes that have not started yet.",
        zhCN: "所选球友没有共同的 30 分钟空闲时间。")
    }
    let proposal = try await store.createProposal(
      NewProposal(
        proposerID: caller.userID, proposerAvailabilityID: mine.id, mode: mine.mode, slot: slot,
        invitees: invitees, createdAtUnixMs: now,
        expiresAtUnixMs: min(slot.startUnixMs, now + Self.proposalLifetimeMs)),
      now: now)
    let message = Self.message(proposal, now: now)
    if let proposer = try await store.player(id: caller.userID) {
      let display = proposer.displayLevel
      let received = ProposalReceived(
        proposal: message, proposerNickname: proposer.nickname,
        proposerDisplayLevel: Int32(display.level),
        proposerReputation: PlayersService.summary(proposer.reputation))
      try await events.publish(.proposalReceived(received), to: invitees.map(\.playerID))
    }
    return message
  }

  public func respondToProposal(_ request: RespondToProposalRequest, context: ServerContext)
    async throws -> Proposal
  {
    let caller = try context.requirePrincipal()
    let now = clock.nowUnixMs()
    guard let proposal = try await store.proposal(id: request.proposalID),
      proposal.playerIDs.contains(caller.userID)
    else { throw Self.proposalNotFound }
    guard proposal.details.proposerID != caller.userID else {
      throw DomainError(
        .failedPrecondition, "PROPOSAL_OWN",
        en: "You made this proposal; the invited players answer it.",
        zhCN: "这是您发起的邀请，由受邀球友回复。")
    }
    let teams = try await teams(for: proposal)
    let outcome = try await store.answerProposal(
      id: proposal.id, playerID: caller.userID, accept: request.accept, teams: teams, now: now)
    let message = Self.message(outcome.proposal, now: now)
    let others = outcome.proposal.playerIDs.filter { $0 != caller.userID }
    if let match = outcome.match {
      board.remove(match.participants.map(\.availabilityID))
      board.book(match.id, players: match.playerIDs, during: match.slot)
      let changed = MatchChanged(match: try await self.message(match))
      try await events.publish(.matchConfirmed(changed), to: match.playerIDs)
    } else if outcome.proposal.state != .pending {
      try await events.publish(.proposalEnded(ProposalEnded(proposal: message)), to: others)
    }
    return message
  }

  public func getProposal(_ request: GetProposalRequest, context: ServerContext) async throws
    -> Proposal
  {
    let caller = try context.requirePrincipal()
    guard let proposal = try await store.proposal(id: request.proposalID),
      proposal.playerIDs.contains(caller.userID)
    else { throw Self.proposalNotFound }
    return Self.message(proposal, now: clock.nowUnixMs())
  }

  public func getMatch(_ request: GetMatchRequest, context: ServerContext) async throws -> Match {
    let caller = try context.requirePrincipal()
    guard let match = try await store.match(id: request.matchID),
      match.playerIDs.contains(caller.userID)
    else { throw Self.matchNotFound }
    return try await message(match)
  }

  public func listMyMatches(_ request: ListMyMatchesRequest, context: ServerContext) async throws
    -> ListMyMatchesResponse
  {
    let caller = try context.requirePrincipal()
    let matches = try await store.matches(
      playerID: caller.userID, past: request.past, now: clock.nowUnixMs())
    var messages: [Match] = []
    for match in matches { messages.append(try await message(match)) }
    return ListMyMatchesResponse(matches: messages)
  }

  public func cancelMatch(_ request: CancelMatchRequest, context: ServerContext) async throws
    -> Match
  {
    let caller = try context.requirePrincipal()
    let cancellation = try await store.cancelMatch(
      id: request.matchID, playerID: caller.userID, now: clock.nowUnixMs())
    let match = cancellation.match
    board.unbook(match.id, players: match.playerIDs)
    if !cancellation.restored.isEmpty {
      let players = try await store.players(ids: cancellation.restored.map(\.playerID))
      for record in cancellation.restored {
        guard let player = players[record.playerID] else { continue }
        board.insert(record, displayLevel: player.displayLevel.level)
      }
    }
    let message = try await message(match)
    try await events.publish(
      .matchCancelled(MatchChanged(match: message)),
      to: match.playerIDs.filter { $0 != caller.userID })
    return message
  }

  /// Ends the proposals that expired and tells their players; returns how many.
  @discardableResult
  func lapseExpiredProposals() async throws -> Int {
    let now = clock.nowUnixMs()
    let lapsed = try await store.lapseProposals(now: now)
    for proposal in lapsed {
      try await events.publish(
        .proposalEnded(ProposalEnded(proposal: Self.message(proposal, now: now))),
        to: proposal.playerIDs)
    }
    return lapsed.count
  }

  // MARK: Rules

  static let proposalNotFound = DomainError(
    .notFound, "PROPOSAL_NOT_FOUND", en: "There is no such proposal for you.",
    zhCN: "没有该约球邀请。")

  static let matchNotFound = DomainError(
    .notFound, "MATCH_NOT_FOUND", en: "There is no such match for you.", zhCN: "没有该比赛。")

  static let candidateUnavailable = DomainError(
    .failedPrecondition, "CANDIDATE_UNAVAILABLE",
    en: "A chosen availability is gone or no longer fits yours; search again.",
    zhCN: "所选球友的时间已不可用或不再匹配，请重新搜索。")

  /// The teams the match would have: in doubles the most even split by display level, in
  /// singles one player each.
  private func teams(for proposal: ProposalRecord) async throws -> [Int64: Int] {
    let ids = proposal.playerIDs
    guard ids.count == 4 else {
      return Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0 + 1) })
    }
    let players = try await store.players(ids: ids)
    let split = DoublesTeams.balanced(
      ids.map { (playerID: $0, level: players[$0]?.displayLevel.level ?? 1) })
    var teams: [Int64: Int] = [:]
    for id in split.first { teams[id] = 1 }
    for id in split.second { teams[id] = 2 }
    return teams
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
    if proposal.state == .pending && details.expiresAtUnixMs <= now { state = .lapsed }
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

  func message(_ match: MatchRecord) async throws -> Match {
    let players = try await store.players(ids: match.playerIDs)
    return Match(
      id: match.id, mode: Self.message(match.mode), slot: Self.message(match.slot),
      participants: match.participants.map { participant in
        let player = players[participant.playerID]
        return MatchParticipant(
          userID: participant.playerID, nickname: player?.nickname ?? "",
          displayLevel: Int32(player?.displayLevel.level ?? 0), team: Int32(participant.team),
          availabilityID: participant.availabilityID)
      },
      state: match.state == .confirmed ? .confirmed : .cancelled, proposalID: match.proposalID,
      confirmedAtUnixMs: match.confirmedAtUnixMs, cancelledBy: match.cancelledBy ?? 0,
      cancelledAtUnixMs: match.cancelledAtUnixMs ?? 0)
  }
}
