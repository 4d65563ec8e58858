public import BadmintonDomain
public import BadmintonStore

/// Game rooms, on either engine. A room's code is unique among
/// open rooms, and a player is in at most one open room (`room_participant.open` mirrors its
/// room's state, and partial unique indexes hold both). Every write reads what it decides on in
/// its own serializable transaction: two joins that would overfill a room, on this instance or
/// another, cannot both commit, and the one run again reads the room as the other left it.
extension RoomStore where Self: StoreEngine {
  public func createRoom(
    ownerID: Int64, mode: MatchMode, now: Int64, code: @escaping @Sendable () -> String,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { db, outcome in
      try RoomRules.checkCreate(
        ownerInOpenRoom: try Self.openRoomID(db, playerID: ownerID) != nil)
      // 31^6 codes: a clash is rare, and a few draws make one vanishingly unlikely.
      var drawn = code()
      var draws = 1
      while try db.row(RoomOpenWithCode.self, drawn, StoredRoomState.open.rawValue) != nil {
        guard draws < 32 else { throw RoomStoreError.noFreeCode }
        drawn = code()
        draws += 1
      }
      // A room given the same code by a transaction this one cannot see makes PostgreSQL refuse
      // this one, which is then run again and draws anew.
      guard
        let id = try db.row(
          RoomInsert.self, drawn, mode.rawValue, StoredRoomState.open.rawValue, ownerID, now, now
        )?.decode(Int64.self)
      else { throw RoomStoreError.noFreeCode }
      try Self.addParticipant(db, room: id, player: ownerID, now: now)
      outcome.room = try Self.fetchRoom(db, id: id)!
    }
  }

  public func joinRoom(
    code: String, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { db, outcome in
      // The open room with the code, else the latest room that had it.
      guard
        let id = try db.row(RoomIDByCode.self, code, StoredRoomState.open.rawValue)?
          .decode(Int64.self),
        let before = try Self.fetchRoom(db, id: id)
      else { throw RoomErrors.codeInvalid }
      let others = before.playerIDs
      var blockedByParticipant = false
      var blockedParticipant = false
      for other in others {
        if try Self.roomBlocked(db, other, playerID) { blockedByParticipant = true }
        if try Self.roomBlocked(db, playerID, other) { blockedParticipant = true }
      }
      try RoomRules.checkJoin(
        RoomJoin(
          status: before.state.status, mode: before.mode,
          lastActivityAtUnixMs: before.lastActivityAtUnixMs,
          participantCount: before.participants.count,
          joinerInOpenRoom: try Self.openRoomID(db, playerID: playerID) != nil,
          blockedByParticipant: blockedByParticipant,
          blockedParticipant: blockedParticipant),
        nowUnixMs: now)
      try Self.addParticipant(db, room: id, player: playerID, now: now)
      try Self.touch(db, room: id, now: now)
      let room = try Self.fetchRoom(db, id: id)!
      outcome.changes.append(
        RoomChangeRecord(
          room: room, change: .joined, actorID: playerID, subjectID: playerID,
          recipients: room.playerIDs))
      outcome.room = room
    }
  }

  public func room(
    id: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { db, outcome in
      guard id != 0 else {
        guard let open = try Self.openRoomID(db, playerID: playerID) else {
          throw RoomErrors.notInRoom
        }
        outcome.room = try Self.fetchRoom(db, id: open)!
        return
      }
      guard
        try db.row(RoomParticipantExists.self, id, playerID) != nil,
        let room = try Self.fetchRoom(db, id: id)
      else { throw RoomErrors.notFound }
      outcome.room = room
    }
  }

  public func inviteToRoom(
    ownerID: Int64, inviteeID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { db, outcome in
      let before = try Self.ownedRoom(db, ownerID: ownerID)
      let delivery = try RoomRules.invite(
        ownerID: ownerID, inviteeID: inviteeID, participantIDs: before.playerIDs,
        areFriends: try db.row(RoomFriendship.self, ownerID, inviteeID) != nil,
        ownerBlockedInvitee: try Self.roomBlocked(db, ownerID, inviteeID),
        inviteeBlockedOwner: try Self.roomBlocked(db, inviteeID, ownerID))
      try Self.touch(db, room: before.id, now: now)
      let room = try Self.fetchRoom(db, id: before.id)!
      outcome.changes.append(
        RoomChangeRecord(
          room: room, change: .invited, actorID: ownerID, subjectID: inviteeID,
          recipients: room.playerIDs))
      // A player who blocked the owner is never told, and the owner cannot tell.
      outcome.room = room
      outcome.invitedPlayerID = delivery == .delivered ? inviteeID : nil
    }
  }

  public func kickFromRoom(
    ownerID: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { db, outcome in
      let before = try Self.ownedRoom(db, ownerID: ownerID)
      try RoomRules.checkKick(
        ownerID: ownerID, playerID: playerID, participantIDs: before.playerIDs)
      try db.rows(RoomParticipantDelete.self, before.id, playerID)
      try Self.touch(db, room: before.id, now: now)
      let room = try Self.fetchRoom(db, id: before.id)!
      outcome.changes.append(
        RoomChangeRecord(
          room: room, change: .kicked, actorID: ownerID, subjectID: playerID,
          recipients: room.playerIDs + [playerID]))
      outcome.room = room
    }
  }

  public func leaveRoom(
    playerID: Int64, now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { db, outcome in
      guard let id = try Self.openRoomID(db, playerID: playerID) else {
        throw RoomErrors.notInRoom
      }
      try db.rows(RoomParticipantDelete.self, id, playerID)
      try Self.touch(db, room: id, now: now)
      var room = try Self.fetchRoom(db, id: id)!
      guard let heir = room.participants.first else {
        try db.rows(RoomSetState.self, StoredRoomState.closed.rawValue, id)
        room.state = .closed
        outcome.changes.append(
          RoomChangeRecord(
            room: room, change: .closed, actorID: playerID, subjectID: playerID, recipients: []))
        outcome.room = room
        return
      }
      if room.ownerID == playerID {
        try db.rows(RoomSetOwner.self, heir.playerID, id)
        room.ownerID = heir.playerID
      }
      outcome.changes.append(
        RoomChangeRecord(
          room: room, change: .left, actorID: playerID, subjectID: playerID,
          recipients: room.playerIDs))
      outcome.room = room
    }
  }

  public func startMatch(
    ownerID: Int64, slot: TimeSlot, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { db, outcome in
      let before = try Self.ownedRoom(db, ownerID: ownerID)
      var matches: [[BookedMatch]] = []
      for player in before.playerIDs {
        matches.append(
          try MatchRows.bookedMatches(db, playerID: player, endingAfter: slot.startUnixMs))
      }
      try RoomRules.checkStart(mode: before.mode, slot: slot, matches: matches)
      let players = try Shared.players(db, ids: before.playerIDs)
      let teams = MatchRules.teams(
        before.playerIDs.map { ($0, players[$0]?.displayLevel.level ?? 1) })
      let inserted = try db.row(
        RoomGameInsert.self, before.mode.rawValue, slot.startUnixMs, slot.endUnixMs,
        StoredMatchState.confirmed.rawValue, now)
      let matchID = try inserted!.decode(Int64.self)
      var participants: [MatchParticipantRecord] = []
      for (position, player) in before.playerIDs.enumerated() {
        let team = teams[player] ?? (position + 1)
        try db.rows(RoomGameParticipantInsert.self, position, player, team, matchID)
        participants.append(
          MatchParticipantRecord(playerID: player, availabilityID: 0, team: team))
      }
      try Self.end(db, room: before.id, as: .started, matchID: matchID)
      let room = try Self.fetchRoom(db, id: before.id)!
      outcome.changes.append(
        RoomChangeRecord(
          room: room, change: .started, actorID: ownerID, subjectID: 0,
          recipients: room.playerIDs))
      let match = MatchRecord(
        id: matchID, mode: before.mode, slot: slot, participants: participants,
        state: .confirmed, proposalID: 0, confirmedAtUnixMs: now)
      outcome.room = room
      outcome.match = match
    }
  }

  public func expireRooms(now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents)
    async throws -> RoomOutcome
  {
    try await roomWrite(now: now, notify: notify) { _, _ in }
  }
}

/// Why the room store could not do what was asked, beyond the product's rules.
enum RoomStoreError: Error {
  /// Every code drawn clashed with an open room's.
  case noFreeCode
}

extension RoomStore where Self: StoreEngine {
  /// One write over rooms: expires the idle open rooms, then runs `body` in a savepoint. The
  /// expiries are committed even when `body` fails with a product rule, whose error is thrown
  /// after the commit; events for everything committed are written in the same transaction.
  /// The transaction is run again whole when it meets a concurrent one.
  private func roomWrite(
    now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents,
    _ body: @escaping @Sendable (any StoreSession, inout RoomOutcome) throws -> Void
  ) async throws -> RoomOutcome {
    let (outcome, failure) = try await writeTransaction { db -> (RoomOutcome, DomainError?) in
      var outcome = RoomOutcome(changes: try Self.expireIdleRooms(db, now: now))
      var failure: DomainError?
      do {
        outcome = try db.savepoint {
          var attempt = outcome
          try body(db, &attempt)
          return attempt
        }
      } catch let error as DomainError {
        failure = error
      }
      var ids = Set(
        outcome.changes.flatMap { $0.room.playerIDs + $0.recipients + [$0.room.ownerID] })
      if let room = outcome.room { ids.formUnion(room.playerIDs + [room.ownerID]) }
      if let invited = outcome.invitedPlayerID { ids.insert(invited) }
      outcome.players = try Shared.players(db, ids: Array(ids))
      try Shared.append(db, notify(outcome), atUnixMs: now)
      return (outcome, failure)
    }
    if let failure { throw failure }
    return outcome
  }

  /// Marks the open rooms idle for 30 minutes or more as expired; returns the changes. The
  /// query reads the open rooms by last activity as far as `now` less the limit, and
  /// `RoomRules.isExpired` decides.
  private static func expireIdleRooms(_ db: any StoreSession, now: Int64) throws
    -> [RoomChangeRecord]
  {
    var ids: [Int64] = []
    for row in try db.rows(
      RoomsIdle.self, StoredRoomState.open.rawValue, now - RoomRules.idleLimitMs)
    {
      let (id, lastActivity) = try row.decode((Int64, Int64).self)
      if RoomRules.isExpired(lastActivityAtUnixMs: lastActivity, nowUnixMs: now) {
        ids.append(id)
      }
    }
    var changes: [RoomChangeRecord] = []
    for id in ids {
      try end(db, room: id, as: .expired, matchID: nil)
      let room = try fetchRoom(db, id: id)!
      changes.append(
        RoomChangeRecord(
          room: room, change: .expired, actorID: 0, subjectID: 0, recipients: room.playerIDs))
    }
    return changes
  }

  /// Ends an open room: its participants are free to join others.
  private static func end(
    _ db: any StoreSession, room id: Int64, as state: StoredRoomState, matchID: Int64?
  ) throws {
    try db.rows(RoomEnd.self, state.rawValue, matchID, id)
    try db.rows(RoomParticipantsClose.self, id)
  }

  private static func touch(_ db: any StoreSession, room id: Int64, now: Int64) throws {
    try db.rows(RoomTouch.self, now, id)
  }

  /// Adds `player` to `room`, open. The caller checked that the player is in no open room; a
  /// transaction this one cannot see that put them in one makes PostgreSQL refuse this one (as
  /// a conflict, whatever plan read the rooms), which is then run again and sees it.
  private static func addParticipant(
    _ db: any StoreSession, room: Int64, player: Int64, now: Int64
  ) throws {
    guard try db.row(RoomParticipantInsert.self, room, player, now) != nil else {
      throw RoomErrors.alreadyInRoom
    }
  }

  /// The id of the open room `playerID` is in.
  private static func openRoomID(_ db: any StoreSession, playerID: Int64) throws -> Int64? {
    try db.row(RoomOpenOfPlayer.self, playerID)?.decode(Int64.self)
  }

  /// The open room of `ownerID`, who must own it.
  private static func ownedRoom(_ db: any StoreSession, ownerID: Int64) throws -> RoomRecord {
    guard let id = try openRoomID(db, playerID: ownerID) else {
      throw RoomErrors.notInRoom
    }
    let room = try fetchRoom(db, id: id)!
    try RoomRules.checkOwner(callerID: ownerID, ownerID: room.ownerID)
    return room
  }

  /// Whether `blockerID` blocked `playerID`, inside the caller's transaction.
  private static func roomBlocked(_ db: any StoreSession, _ blockerID: Int64, _ playerID: Int64)
    throws -> Bool
  {
    try db.row(RoomBlock.self, blockerID, playerID) != nil
  }

  private static func fetchRoom(_ db: any StoreSession, id: Int64) throws -> RoomRecord? {
    guard let row = try db.row(RoomByID.self, id) else { return nil }
    let (code, mode, state, ownerID, createdAt, lastActivity, matchID) = try row.decode(
      (String, Int, Int, Int64, Int64, Int64, Int64?).self)
    // Join order; the row id breaks ties within one millisecond.
    let participants = try db.rows(RoomParticipantsOf.self, id).map { row in
      let (playerID, joinedAt) = try row.decode((Int64, Int64).self)
      return RoomParticipantRecord(playerID: playerID, joinedAtUnixMs: joinedAt)
    }
    return RoomRecord(
      id: id, code: code, mode: MatchMode(rawValue: mode) ?? .singles,
      state: StoredRoomState(rawValue: state) ?? .closed, ownerID: ownerID,
      participants: participants, createdAtUnixMs: createdAt,
      lastActivityAtUnixMs: lastActivity, matchID: matchID)
  }
}

// MARK: Statements

private enum RoomOpenWithCode: StoreStatement {
  static let sql = "SELECT 1 FROM room WHERE code = $1 AND state = $2"
}
private enum RoomInsert: StoreStatement {
  static let sql = """
    INSERT INTO room (code, mode, state, owner_id, created_at_ms, last_activity_at_ms)
    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id
    """
}
private enum RoomIDByCode: StoreStatement {
  static let sql = """
    SELECT id FROM room WHERE code = $1 ORDER BY state = $2 DESC, id DESC LIMIT 1
    """
}
private enum RoomByID: StoreStatement {
  static let sql = """
    SELECT code, mode, state, owner_id, created_at_ms, last_activity_at_ms, match_id
    FROM room WHERE id = $1
    """
}
private enum RoomParticipantsOf: StoreStatement {
  static let sql = """
    SELECT player_id, joined_at_ms FROM room_participant WHERE room_id = $1
    ORDER BY joined_at_ms, row_id
    """
  static let sqlite = """
    SELECT player_id, joined_at_ms FROM room_participant WHERE room_id = ?1
    ORDER BY joined_at_ms, rowid
    """
}
private enum RoomParticipantExists: StoreStatement {
  static let sql = "SELECT 1 FROM room_participant WHERE room_id = $1 AND player_id = $2"
}
private enum RoomParticipantInsert: StoreStatement {
  static let sql = """
    INSERT INTO room_participant (room_id, player_id, joined_at_ms, open) VALUES ($1, $2, $3, 1)
    ON CONFLICT DO NOTHING RETURNING room_id
    """
}
private enum RoomParticipantDelete: StoreStatement {
  static let sql = "DELETE FROM room_participant WHERE room_id = $1 AND player_id = $2"
}
private enum RoomParticipantsClose: StoreStatement {
  static let sql = "UPDATE room_participant SET open = 0 WHERE room_id = $1"
}
private enum RoomOpenOfPlayer: StoreStatement {
  static let sql = "SELECT room_id FROM room_participant WHERE player_id = $1 AND open = 1"
}
private enum RoomTouch: StoreStatement {
  static let sql = "UPDATE room SET last_activity_at_ms = $1 WHERE id = $2"
}
private enum RoomSetState: StoreStatement {
  static let sql = "UPDATE room SET state = $1 WHERE id = $2"
}
private enum RoomSetOwner: StoreStatement {
  static let sql = "UPDATE room SET owner_id = $1 WHERE id = $2"
}
private enum RoomEnd: StoreStatement {
  static let sql = "UPDATE room SET state = $1, match_id = $2 WHERE id = $3"
}
private enum RoomsIdle: StoreStatement {
  static let sql = """
    SELECT id, last_activity_at_ms FROM room WHERE state = $1 AND last_activity_at_ms <= $2
    ORDER BY id
    """
}
private enum RoomBlock: StoreStatement {
  static let sql = "SELECT 1 FROM block WHERE blocker_id = $1 AND blocked_id = $2"
}
private enum RoomFriendship: StoreStatement {
  static let sql = "SELECT 1 FROM friendship WHERE player_id = $1 AND friend_id = $2"
}
private enum RoomGameInsert: StoreStatement {
  static let sql = """
    INSERT INTO game (mode, start_ms, end_ms, state, proposal_id, confirmed_at_ms)
    VALUES ($1, $2, $3, $4, 0, $5) RETURNING id
    """
}
private enum RoomGameParticipantInsert: StoreStatement {
  static let sql = """
    INSERT INTO game_participant (game_id, position, player_id, availability_id, team, start_ms)
    SELECT id, $1, $2, 0, $3, start_ms FROM game WHERE id = $4
    """
}
