public import BadmintonDomain
public import BadmintonStore

/// Proposals and matches, on either engine.
extension ProposalStore where Self: StoreEngine {
  public func createProposal(
    _ new: NewProposal, now: Int64, notify: @escaping @Sendable (ProposalRecord) -> OutgoingEvents
  ) async throws -> ProposalRecord {
    try await writeTransaction { db in
      let named =
        [(new.proposerID, new.proposerAvailabilityID)]
        + new.invitees.map { ($0.playerID, $0.availabilityID) }
      for (index, (playerID, availabilityID)) in named.enumerated() {
        guard
          try db.row(
            OpenAvailabilityOfPlayer.self, availabilityID, playerID,
            Int64(AvailabilityState.active.rawValue), now) != nil
        else {
          throw index == 0
            ? MatchingErrors.availabilityNotFound : MatchingErrors.candidateUnavailable
        }
      }
      guard
        let row = try db.row(
          InsertProposal.self, new.proposerID, new.proposerAvailabilityID,
          Int64(new.mode.rawValue), new.slot.startUnixMs, new.slot.endUnixMs,
          Int64(StoredProposalState.pending.rawValue), new.createdAtUnixMs, new.expiresAtUnixMs)
      else { throw MatchingErrors.proposalNotFound }
      let id = try row.decode(Int64.self)
      for (position, invitee) in new.invitees.enumerated() {
        try db.rows(
          InsertInvitee.self, id, Int64(position), invitee.playerID, invitee.availabilityID,
          Int64(invitee.answer.rawValue))
      }
      guard let proposal = try Self.fetchProposal(db, id: id) else {
        throw MatchingErrors.proposalNotFound
      }
      try Shared.append(db, notify(proposal), atUnixMs: now)
      return proposal
    }
  }

  public func proposal(id: Int64) async throws -> ProposalRecord? {
    try await readSnapshot { db in try Self.fetchProposal(db, id: id) }
  }

  /// The answer, the check that the match may be confirmed and the writes that confirm it are
  /// one serializable transaction: two instances confirming matches that need the same
  /// availability, or the same player's time, cannot both commit; the one run again sees the
  /// other's match and lets its proposal lapse, as the embedded store's second answer would.
  public func answerProposal(
    id: Int64, playerID: Int64, accept: Bool, teams: [Int64: Int], now: Int64,
    notify: @escaping @Sendable (ProposalAnswerOutcome) -> OutgoingEvents
  ) async throws -> ProposalAnswerOutcome {
    try await writeTransaction { db in
      let outcome = try Self.answer(
        db, id: id, playerID: playerID, accept: accept, teams: teams, now: now)
      try Shared.append(db, notify(outcome), atUnixMs: now)
      return outcome
    }
  }

  private static func answer(
    _ db: any StoreSession, id: Int64, playerID: Int64, accept: Bool, teams: [Int64: Int],
    now: Int64
  ) throws -> ProposalAnswerOutcome {
    guard var proposal = try Self.fetchProposal(db, id: id),
      let position = proposal.details.invitees.firstIndex(where: { $0.playerID == playerID })
    else { throw MatchingErrors.proposalNotFound }
    try ProposalRules.checkAnswer(
      isPending: proposal.state == .pending, expiresAtUnixMs: proposal.details.expiresAtUnixMs,
      alreadyAnswered: proposal.details.invitees[position].answer != .pending, nowUnixMs: now)
    let answer: StoredInviteeAnswer = accept ? .accepted : .declined
    try db.rows(SetInviteeAnswer.self, Int64(answer.rawValue), id, playerID)
    proposal.details.invitees[position].answer = answer
    guard accept else {
      try Self.setState(db, proposal: id, .declined)
      proposal.state = .declined
      return ProposalAnswerOutcome(proposal: proposal, match: nil)
    }
    guard proposal.details.invitees.allSatisfy({ $0.answer == .accepted }) else {
      return ProposalAnswerOutcome(proposal: proposal, match: nil)
    }
    // The last acceptance: everything the match needs must still hold.
    let seats =
      [(proposal.details.proposerID, proposal.details.proposerAvailabilityID)]
      + proposal.details.invitees.map { ($0.playerID, $0.availabilityID) }
    let slot = proposal.details.slot
    var loaded: [ProposalSeat] = []
    for (player, availability) in seats {
      loaded.append(
        ProposalSeat(
          availabilityActive: try db.row(
            AvailabilityOfPlayerInState.self, availability, player,
            Int64(AvailabilityState.active.rawValue)) != nil,
          matches: try MatchRows.bookedMatches(db, playerID: player, endingAfter: slot.startUnixMs)
        ))
    }
    guard ProposalRules.confirms(slot: slot, seats: loaded) else {
      try Self.setState(db, proposal: id, .lapsed)
      proposal.state = .lapsed
      return ProposalAnswerOutcome(proposal: proposal, match: nil)
    }
    guard
      let row = try db.row(
        InsertGame.self, Int64(proposal.details.mode.rawValue), slot.startUnixMs, slot.endUnixMs,
        Int64(StoredMatchState.confirmed.rawValue), id, now)
    else { throw MatchingErrors.matchNotFound }
    let matchID = try row.decode(Int64.self)
    for (position, (player, availability)) in seats.enumerated() {
      try db.rows(
        InsertParticipant.self, matchID, Int64(position), player, availability,
        Int64(teams[player] ?? (position + 1)), slot.startUnixMs)
      try db.rows(
        SetAvailabilityState.self, Int64(AvailabilityState.matched.rawValue), availability)
    }
    try db.rows(
      AcceptProposal.self, Int64(StoredProposalState.accepted.rawValue), matchID, id)
    proposal.state = .accepted
    proposal.matchID = matchID
    return ProposalAnswerOutcome(
      proposal: proposal, match: try MatchRows.fetchMatch(db, id: matchID))
  }

  public func lapseProposals(
    now: Int64, notify: @escaping @Sendable ([ProposalRecord]) -> OutgoingEvents
  ) async throws -> [ProposalRecord] {
    try await writeTransaction { db in
      // The pending proposals by expiry, as far as now; `ProposalRules.isExpired` decides.
      let ids = try db.rows(
        PendingExpiringBy.self, Int64(StoredProposalState.pending.rawValue), now
      ).map { try $0.decode((Int64, Int64).self) }
        .filter { ProposalRules.isExpired(expiresAtUnixMs: $0.1, nowUnixMs: now) }
        .map(\.0)
      var lapsed: [ProposalRecord] = []
      for id in ids {
        try Self.setState(db, proposal: id, .lapsed)
        if let proposal = try Self.fetchProposal(db, id: id) { lapsed.append(proposal) }
      }
      try Shared.append(db, notify(lapsed), atUnixMs: now)
      return lapsed
    }
  }

  public func match(id: Int64) async throws -> MatchRecord? {
    try await readSnapshot { db in try MatchRows.fetchMatch(db, id: id) }
  }

  public func matches(
    playerID: Int64, past: Bool, now: Int64, after: (startUnixMs: Int64, matchID: Int64)?,
    limit: Int
  ) async throws -> [MatchRecord] {
    // Upcoming matches end after now and last at most the longest slot, so they start after
    // now less that slot: the range starts there. Past ones are read backwards from the top,
    // passing the upcoming ones.
    let longest = TimeSlotRules.maximumDurationSeconds * 1000
    let cursor =
      after
      ?? (past
        ? (startUnixMs: Int64.max, matchID: Int64.max)
        : (startUnixMs: now &- longest, matchID: Int64.max))
    let values: [StoreValue] = [
      .integer(playerID), .integer(cursor.startUnixMs), .integer(cursor.matchID),
      .integer(Int64(StoredMatchState.confirmed.rawValue)), .integer(now),
      .integer(Int64(max(limit, 0))),
    ]
    return try await readSnapshot { db in
      let rows =
        past
        ? try db.rows(PastMatchesOfPlayer.self, values: values)
        : try db.rows(UpcomingMatchesOfPlayer.self, values: values)
      return try MatchRows.fetchMatches(db, ids: rows.map { try $0.decode(Int64.self) })
    }
  }

  public func cancelMatch(
    id: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (MatchCancellation) -> OutgoingEvents
  ) async throws -> MatchCancellation {
    try await writeTransaction { db in
      guard var match = try MatchRows.fetchMatch(db, id: id), match.playerIDs.contains(playerID)
      else { throw MatchingErrors.matchNotFound }
      try MatchLifecycle.checkCancel(
        status: match.state.status, slotStartUnixMs: match.slot.startUnixMs, nowUnixMs: now)
      try db.rows(
        CancelGame.self, Int64(StoredMatchState.cancelled.rawValue), playerID, now, id)
      match.state = .cancelled
      match.cancelledBy = playerID
      match.cancelledAtUnixMs = now
      var restored: [AvailabilityRecord] = []
      for participant in match.participants where participant.playerID != playerID {
        if let row = try db.row(
          RestoreAvailability.self, Int64(AvailabilityState.active.rawValue),
          participant.availabilityID, Int64(AvailabilityState.matched.rawValue), now)
        {
          restored.append(try MatchRows.availability(from: row))
        }
      }
      let cancellation = MatchCancellation(match: match, restored: restored)
      try Shared.append(db, notify(cancellation), atUnixMs: now)
      return cancellation
    }
  }

  public func confirmedMatches(endingAfter now: Int64) async throws -> [MatchRecord] {
    // The matches not ended by now; those that hold their players' time are the ones
    // `BookingRules.holdsTime` says so of.
    try await readSnapshot { db in
      let ids = try db.rows(GamesEndingAfter.self, now).map { try $0.decode(Int64.self) }
      return try MatchRows.fetchMatches(db, ids: ids)
        .filter { BookingRules.holdsTime($0.state.status) }
    }
  }

  private static func setState(
    _ db: any StoreSession, proposal id: Int64, _ state: StoredProposalState
  ) throws {
    try db.rows(SetProposalState.self, Int64(state.rawValue), id)
  }

  private static func fetchProposal(_ db: any StoreSession, id: Int64) throws
    -> ProposalRecord?
  {
    guard let row = try db.row(ProposalByID.self, id) else { return nil }
    let invitees = try db.rows(InviteesOfProposal.self, id).map { invitee in
      let (player, availability, answer) = try invitee.decode((Int64, Int64, Int).self)
      return ProposalInviteeRecord(
        playerID: player, availabilityID: availability,
        answer: StoredInviteeAnswer(rawValue: answer) ?? .pending)
    }
    let (proposer, proposerAvailability, mode, start, end, state, created, expires, match) =
      try row.decode((Int64, Int64, Int, Int64, Int64, Int, Int64, Int64, Int64?).self)
    return ProposalRecord(
      id: id,
      details: NewProposal(
        proposerID: proposer, proposerAvailabilityID: proposerAvailability,
        mode: MatchMode(rawValue: mode) ?? .singles,
        slot: TimeSlot(startUnixMs: start, endUnixMs: end), invitees: invitees,
        createdAtUnixMs: created, expiresAtUnixMs: expires),
      state: StoredProposalState(rawValue: state) ?? .lapsed, matchID: match)
  }
}

// MARK: Statements

private enum OpenAvailabilityOfPlayer: StoreStatement {
  static let sql = """
    SELECT 1 FROM availability WHERE id = $1 AND player_id = $2 AND state = $3 AND end_ms > $4
    """
}
private enum AvailabilityOfPlayerInState: StoreStatement {
  static let sql = "SELECT 1 FROM availability WHERE id = $1 AND player_id = $2 AND state = $3"
}
private enum InsertProposal: StoreStatement {
  static let sql = """
    INSERT INTO proposal (proposer_id, proposer_availability_id, mode, start_ms, end_ms,
      state, created_at_ms, expires_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    RETURNING id
    """
}
private enum InsertInvitee: StoreStatement {
  static let sql = """
    INSERT INTO proposal_invitee (proposal_id, position, player_id, availability_id, answer)
    VALUES ($1, $2, $3, $4, $5)
    """
}
private enum ProposalByID: StoreStatement {
  static let sql = """
    SELECT proposer_id, proposer_availability_id, mode, start_ms, end_ms, state,
      created_at_ms, expires_at_ms, match_id
    FROM proposal WHERE id = $1
    """
}
private enum InviteesOfProposal: StoreStatement {
  static let sql = """
    SELECT player_id, availability_id, answer FROM proposal_invitee WHERE proposal_id = $1
    ORDER BY position
    """
}
private enum SetInviteeAnswer: StoreStatement {
  static let sql = """
    UPDATE proposal_invitee SET answer = $1 WHERE proposal_id = $2 AND player_id = $3
    """
}
private enum SetProposalState: StoreStatement {
  static let sql = "UPDATE proposal SET state = $1 WHERE id = $2"
}
private enum AcceptProposal: StoreStatement {
  static let sql = "UPDATE proposal SET state = $1, match_id = $2 WHERE id = $3"
}
private enum InsertGame: StoreStatement {
  static let sql = """
    INSERT INTO game (mode, start_ms, end_ms, state, proposal_id, confirmed_at_ms)
    VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
    """
}
private enum InsertParticipant: StoreStatement {
  static let sql = """
    INSERT INTO game_participant (game_id, position, player_id, availability_id, team, start_ms)
    VALUES ($1, $2, $3, $4, $5, $6)
    """
}
private enum SetAvailabilityState: StoreStatement {
  static let sql = "UPDATE availability SET state = $1 WHERE id = $2"
}
private enum PendingExpiringBy: StoreStatement {
  static let sql = """
    SELECT id, expires_at_ms FROM proposal WHERE state = $1 AND expires_at_ms <= $2
    ORDER BY id
    """
}
private enum PastMatchesOfPlayer: StoreStatement {
  static let sql = """
    SELECT game.id FROM game_participant JOIN game ON game.id = game_participant.game_id
    WHERE game_participant.player_id = $1
      AND (game_participant.start_ms, game_participant.game_id) < ($2, $3)
      AND (game.state <> $4 OR game.end_ms <= $5)
    ORDER BY game_participant.start_ms DESC, game_participant.game_id DESC LIMIT $6
    """
}
private enum UpcomingMatchesOfPlayer: StoreStatement {
  static let sql = """
    SELECT game.id FROM game_participant JOIN game ON game.id = game_participant.game_id
    WHERE game_participant.player_id = $1
      AND (game_participant.start_ms, game_participant.game_id) > ($2, $3)
      AND game.state = $4 AND game.end_ms > $5
    ORDER BY game_participant.start_ms, game_participant.game_id LIMIT $6
    """
}
private enum CancelGame: StoreStatement {
  static let sql = """
    UPDATE game SET state = $1, cancelled_by = $2, cancelled_at_ms = $3 WHERE id = $4
    """
}
private enum RestoreAvailability: StoreStatement {
  static let sql = """
    UPDATE availability SET state = $1 WHERE id = $2 AND state = $3 AND end_ms > $4
    RETURNING \(MatchRows.availabilityColumns)
    """
}
private enum GamesEndingAfter: StoreStatement {
  static let sql = "SELECT id FROM game WHERE end_ms > $1 ORDER BY id"
}
