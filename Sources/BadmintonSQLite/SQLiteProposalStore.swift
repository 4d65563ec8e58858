import BadmintonDomain
public import BadmintonStore
import GRDB

extension SQLitePlayerStore: ProposalStore {
  public func createProposal(
    _ new: NewProposal, now: Int64, notify: @escaping @Sendable (ProposalRecord) -> OutgoingEvents
  ) async throws -> ProposalRecord {
    try await grouped.write { db in
      let named =
        [(new.proposerID, new.proposerAvailabilityID)]
        + new.invitees.map { ($0.playerID, $0.availabilityID) }
      for (index, (playerID, availabilityID)) in named.enumerated() {
        guard
          try Row.fetchOne(
            try db.cachedStatement(
              sql: """
                SELECT 1 FROM availability WHERE id = ? AND player_id = ? AND state = ? AND end_ms > ?
                """),
            arguments: [availabilityID, playerID, AvailabilityState.active.rawValue, now]) != nil
        else {
          throw index == 0
            ? MatchingErrors.availabilityNotFound : MatchingErrors.candidateUnavailable
        }
      }
      try db.execute(
        sql: """
          INSERT INTO proposal (proposer_id, proposer_availability_id, mode, start_ms, end_ms,
            state, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          new.proposerID, new.proposerAvailabilityID, new.mode.rawValue, new.slot.startUnixMs,
          new.slot.endUnixMs, StoredProposalState.pending.rawValue, new.createdAtUnixMs,
          new.expiresAtUnixMs,
        ])
      let id = db.lastInsertedRowID
      for (position, invitee) in new.invitees.enumerated() {
        try db.execute(
          sql: """
            INSERT INTO proposal_invitee (proposal_id, position, player_id, availability_id, answer)
            VALUES (?, ?, ?, ?, ?)
            """,
          arguments: [
            id, position, invitee.playerID, invitee.availabilityID, invitee.answer.rawValue,
          ])
      }
      let proposal = try Self.fetchProposal(db, id: id)!
      try Self.append(db, notify(proposal), atUnixMs: now)
      return proposal
    }
  }

  public func proposal(id: Int64) async throws -> ProposalRecord? {
    try await writer.read { db in try Self.fetchProposal(db, id: id) }
  }

  public func answerProposal(
    id: Int64, playerID: Int64, accept: Bool, teams: [Int64: Int], now: Int64,
    notify: @escaping @Sendable (ProposalAnswerOutcome) -> OutgoingEvents
  ) async throws -> ProposalAnswerOutcome {
    try await grouped.write { db in
      let outcome = try Self.answer(
        db, id: id, playerID: playerID, accept: accept, teams: teams, now: now)
      try Self.append(db, notify(outcome), atUnixMs: now)
      return outcome
    }
  }

  private static func answer(
    _ db: Database, id: Int64, playerID: Int64, accept: Bool, teams: [Int64: Int], now: Int64
  ) throws -> ProposalAnswerOutcome {
    guard var proposal = try Self.fetchProposal(db, id: id),
      let position = proposal.details.invitees.firstIndex(where: { $0.playerID == playerID })
    else { throw MatchingErrors.proposalNotFound }
    try ProposalRules.checkAnswer(
      isPending: proposal.state == .pending, expiresAtUnixMs: proposal.details.expiresAtUnixMs,
      alreadyAnswered: proposal.details.invitees[position].answer != .pending, nowUnixMs: now)
    let answer: StoredInviteeAnswer = accept ? .accepted : .declined
    try db.execute(
      sql: "UPDATE proposal_invitee SET answer = ? WHERE proposal_id = ? AND player_id = ?",
      arguments: [answer.rawValue, id, playerID])
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
    let loaded = try seats.map { player, availability in
      ProposalSeat(
        availabilityActive: try Row.fetchOne(
          try db.cachedStatement(
            sql: "SELECT 1 FROM availability WHERE id = ? AND player_id = ? AND state = ?"),
          arguments: [availability, player, AvailabilityState.active.rawValue]) != nil,
        matches: try Self.bookedMatches(db, playerID: player, endingAfter: slot.startUnixMs))
    }
    guard ProposalRules.confirms(slot: slot, seats: loaded) else {
      try Self.setState(db, proposal: id, .lapsed)
      proposal.state = .lapsed
      return ProposalAnswerOutcome(proposal: proposal, match: nil)
    }
    try db.execute(
      sql: """
        INSERT INTO game (mode, start_ms, end_ms, state, proposal_id, confirmed_at_ms)
        VALUES (?, ?, ?, ?, ?, ?)
        """,
      arguments: [
        proposal.details.mode.rawValue, slot.startUnixMs, slot.endUnixMs,
        StoredMatchState.confirmed.rawValue, id, now,
      ])
    let matchID = db.lastInsertedRowID
    for (position, (player, availability)) in seats.enumerated() {
      try db.execute(
        sql: """
          INSERT INTO game_participant
            (game_id, position, player_id, availability_id, team, start_ms)
          SELECT id, ?, ?, ?, ?, start_ms FROM game WHERE id = ?
          """,
        arguments: [position, player, availability, teams[player] ?? (position + 1), matchID])
      try db.execute(
        sql: "UPDATE availability SET state = ? WHERE id = ?",
        arguments: [AvailabilityState.matched.rawValue, availability])
    }
    try db.execute(
      sql: "UPDATE proposal SET state = ?, match_id = ? WHERE id = ?",
      arguments: [StoredProposalState.accepted.rawValue, matchID, id])
    proposal.state = .accepted
    proposal.matchID = matchID
    return ProposalAnswerOutcome(proposal: proposal, match: try Self.fetchMatch(db, id: matchID))
  }

  public func lapseProposals(
    now: Int64, notify: @escaping @Sendable ([ProposalRecord]) -> OutgoingEvents
  ) async throws -> [ProposalRecord] {
    try await grouped.write { db in
      // The pending proposals by expiry, as far as now; `ProposalRules.isExpired` decides.
      let ids = try Row.fetchAll(
        try db.cachedStatement(
          sql:
            "SELECT id, expires_at_ms FROM proposal WHERE state = ? AND expires_at_ms <= ? ORDER BY id"
        ),
        arguments: [StoredProposalState.pending.rawValue, now]
      ).filter { ProposalRules.isExpired(expiresAtUnixMs: $0["expires_at_ms"], nowUnixMs: now) }
        .map { $0["id"] as Int64 }
      for id in ids { try Self.setState(db, proposal: id, .lapsed) }
      let lapsed = try ids.compactMap { try Self.fetchProposal(db, id: $0) }
      try Self.append(db, notify(lapsed), atUnixMs: now)
      return lapsed
    }
  }

  public func match(id: Int64) async throws -> MatchRecord? {
    try await writer.read { db in try Self.fetchMatch(db, id: id) }
  }

  public func matches(
    playerID: Int64, past: Bool, now: Int64, after: (startUnixMs: Int64, matchID: Int64)?,
    limit: Int
  ) async throws -> [MatchRecord] {
    // Upcoming matches end after now and last at most the longest slot, so they start after
    // now less that slot: the range starts there. Past ones are read backwards from the top,
    // passing the upcoming ones.
    let longest = TimeSlotRules.maximumDurationSeconds * 1000
    let sql =
      past
      ? """
      SELECT game.id FROM game_participant JOIN game ON game.id = game_participant.game_id
      WHERE game_participant.player_id = ?
        AND (game_participant.start_ms, game_participant.game_id) < (?, ?)
        AND (game.state != ? OR game.end_ms <= ?)
      ORDER BY game_participant.start_ms DESC, game_participant.game_id DESC LIMIT ?
      """
      : """
      SELECT game.id FROM game_participant JOIN game ON game.id = game_participant.game_id
      WHERE game_participant.player_id = ?
        AND (game_participant.start_ms, game_participant.game_id) > (?, ?)
        AND game.state = ? AND game.end_ms > ?
      ORDER BY game_participant.start_ms, game_participant.game_id LIMIT ?
      """
    let cursor =
      after
      ?? (past
        ? (startUnixMs: Int64.max, matchID: Int64.max)
        : (startUnixMs: now &- longest, matchID: Int64.max))
    return try await writer.read { db in
      let ids = try Int64.fetchAll(
        db, sql: sql,
        arguments: [
          playerID, cursor.startUnixMs, cursor.matchID, StoredMatchState.confirmed.rawValue, now,
          max(limit, 0),
        ])
      return try ids.compactMap { try Self.fetchMatch(db, id: $0) }
    }
  }

  /// The start of each match on its participants' rows, indexed by player, start and match, so
  /// that ListMyMatches reads one range of an index per page.
  static func registerMatchListMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v10: matches by player and start") { db in
      try db.execute(
        sql: """
          ALTER TABLE game_participant ADD COLUMN start_ms INTEGER NOT NULL DEFAULT 0;
          UPDATE game_participant
            SET start_ms = (SELECT start_ms FROM game WHERE game.id = game_participant.game_id);
          CREATE INDEX game_participant_player_start
            ON game_participant(player_id, start_ms, game_id);
          """)
    }
  }

  public func cancelMatch(
    id: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (MatchCancellation) -> OutgoingEvents
  ) async throws -> MatchCancellation {
    try await grouped.write { db in
      guard var match = try Self.fetchMatch(db, id: id), match.playerIDs.contains(playerID) else {
        throw MatchingErrors.matchNotFound
      }
      try MatchLifecycle.checkCancel(
        status: match.state.status, slotStartUnixMs: match.slot.startUnixMs, nowUnixMs: now)
      try db.execute(
        sql: "UPDATE game SET state = ?, cancelled_by = ?, cancelled_at_ms = ? WHERE id = ?",
        arguments: [StoredMatchState.cancelled.rawValue, playerID, now, id])
      match.state = .cancelled
      match.cancelledBy = playerID
      match.cancelledAtUnixMs = now
      var restored: [AvailabilityRecord] = []
      for participant in match.participants where participant.playerID != playerID {
        try db.execute(
          sql: "UPDATE availability SET state = ? WHERE id = ? AND state = ? AND end_ms > ?",
          arguments: [
            AvailabilityState.active.rawValue, participant.availabilityID,
            AvailabilityState.matched.rawValue, now,
          ])
        if db.changesCount == 1,
          let row = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT * FROM availability WHERE id = ?"),
            arguments: [participant.availabilityID])
        {
          restored.append(Self.availability(from: row))
        }
      }
      let cancellation = MatchCancellation(match: match, restored: restored)
      try Self.append(db, notify(cancellation), atUnixMs: now)
      return cancellation
    }
  }

  public func confirmedMatches(endingAfter now: Int64) async throws -> [MatchRecord] {
    // The matches not ended by now; those that hold their players' time are the ones
    // `BookingRules.holdsTime` says so of.
    try await writer.read { db in
      try Int64.fetchAll(
        try db.cachedStatement(sql: "SELECT id FROM game WHERE end_ms > ? ORDER BY id"),
        arguments: [now]
      ).compactMap { try Self.fetchMatch(db, id: $0) }
        .filter { BookingRules.holdsTime($0.state.status) }
    }
  }

  // MARK: Rows

  /// The matches of `playerID` that end after `unixMs`, with where each stands: what
  /// `BookingRules.isBooked` needs to tell whether the player is booked at a time from then on.
  static func bookedMatches(_ db: Database, playerID: Int64, endingAfter unixMs: Int64) throws
    -> [BookedMatch]
  {
    try Row.fetchAll(
      try db.cachedStatement(
        sql: """
          SELECT game.start_ms, game.end_ms, game.state
          FROM game_participant JOIN game ON game.id = game_participant.game_id
          WHERE game_participant.player_id = ? AND game.end_ms > ?
          """),
      arguments: [playerID, unixMs]
    ).map { row in
      BookedMatch(
        slot: TimeSlot(startUnixMs: row["start_ms"], endUnixMs: row["end_ms"]),
        status: (StoredMatchState(rawValue: row["state"]) ?? .cancelled).status)
    }
  }

  private static func setState(_ db: Database, proposal id: Int64, _ state: StoredProposalState)
    throws
  {
    try db.execute(
      sql: "UPDATE proposal SET state = ? WHERE id = ?", arguments: [state.rawValue, id])
  }

  private static func fetchProposal(_ db: Database, id: Int64) throws -> ProposalRecord? {
    guard
      let row = try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM proposal WHERE id = ?"), arguments: [id])
    else { return nil }
    let invitees = try Row.fetchAll(
      try db.cachedStatement(
        sql: "SELECT * FROM proposal_invitee WHERE proposal_id = ? ORDER BY position"),
      arguments: [id]
    ).map { invitee in
      ProposalInviteeRecord(
        playerID: invitee["player_id"], availabilityID: invitee["availability_id"],
        answer: StoredInviteeAnswer(rawValue: invitee["answer"]) ?? .pending)
    }
    return ProposalRecord(
      id: id,
      details: NewProposal(
        proposerID: row["proposer_id"], proposerAvailabilityID: row["proposer_availability_id"],
        mode: MatchMode(rawValue: row["mode"]) ?? .singles,
        slot: TimeSlot(startUnixMs: row["start_ms"], endUnixMs: row["end_ms"]),
        invitees: invitees, createdAtUnixMs: row["created_at_ms"],
        expiresAtUnixMs: row["expires_at_ms"]),
      state: StoredProposalState(rawValue: row["state"]) ?? .lapsed, matchID: row["match_id"])
  }

  static func fetchMatch(_ db: Database, id: Int64) throws -> MatchRecord? {
    guard
      let row = try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM game WHERE id = ?"), arguments: [id])
    else { return nil }
    let participants = try Row.fetchAll(
      try db.cachedStatement(
        sql: "SELECT * FROM game_participant WHERE game_id = ? ORDER BY position"),
      arguments: [id]
    ).map { participant in
      MatchParticipantRecord(
        playerID: participant["player_id"], availabilityID: participant["availability_id"],
        team: participant["team"])
    }
    return MatchRecord(
      id: id, mode: MatchMode(rawValue: row["mode"]) ?? .singles,
      slot: TimeSlot(startUnixMs: row["start_ms"], endUnixMs: row["end_ms"]),
      participants: participants, state: StoredMatchState(rawValue: row["state"]) ?? .cancelled,
      proposalID: row["proposal_id"], confirmedAtUnixMs: row["confirmed_at_ms"],
      cancelledBy: row["cancelled_by"], cancelledAtUnixMs: row["cancelled_at_ms"],
      result: result(from: row))
  }

  private static func result(from row: Row) -> MatchResult? {
    let team: Int? = row["winning_team"]
    let at: Int64? = row["completed_at_ms"]
    let by: Int64? = row["completed_by"]
    guard let team, let at, let by else { return nil }
    return MatchResult(winningTeam: team, completedAtUnixMs: at, completedBy: by)
  }
}
