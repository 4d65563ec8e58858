public import BadmintonDomain
public import BadmintonStore
import GRDB

extension SQLitePlayerStore: RoomStore {
  /// The tables of game rooms. A room's code is unique among open rooms, and a player is in at
  /// most one open room: `room_participant.open` mirrors its room's state so that a partial
  /// unique index can hold that.
  static func registerRoomMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v6: game rooms") { db in
      try db.execute(
        sql: """
          CREATE TABLE room (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            code TEXT NOT NULL CHECK (length(code) = 6),
            mode INTEGER NOT NULL CHECK (mode IN (1, 2)),
            state INTEGER NOT NULL CHECK (state IN (1, 2, 3, 4)),
            owner_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            created_at_ms INTEGER NOT NULL,
            last_activity_at_ms INTEGER NOT NULL,
            match_id INTEGER REFERENCES game(id),
            CHECK ((state = 2) = (match_id IS NOT NULL))
          );
          CREATE UNIQUE INDEX room_open_code ON room(code) WHERE state = 1;
          CREATE INDEX room_code ON room(code, id);
          CREATE INDEX room_activity ON room(state, last_activity_at_ms);
          CREATE TABLE room_participant (
            room_id INTEGER NOT NULL REFERENCES room(id) ON DELETE CASCADE,
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            joined_at_ms INTEGER NOT NULL,
            open INTEGER NOT NULL CHECK (open IN (0, 1)),
            UNIQUE (room_id, player_id)
          );
          CREATE UNIQUE INDEX room_participant_open ON room_participant(player_id) WHERE open = 1;
          CREATE INDEX room_participant_player ON room_participant(player_id, room_id);
          """)
    }
  }

  public func createRoom(
    ownerID: Int64, mode: MatchMode, now: Int64, code: @escaping @Sendable () -> String,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { db, outcome in
      try RoomRules.checkCreate(ownerInOpenRoom: try Self.openRoomID(db, playerID: ownerID) != nil)
      // 31^6 codes: a clash is rare, and a few draws make one vanishingly unlikely.
      var drawn = code()
      var draws = 1
      while try Self.exists(db, "SELECT 1 FROM room WHERE code = ? AND state = 1", [drawn]) {
        guard draws < 32 else { throw RoomStoreError.noFreeCode }
        drawn = code()
        draws += 1
      }
      try db.execute(
        sql: """
          INSERT INTO room (code, mode, state, owner_id, created_at_ms, last_activity_at_ms)
          VALUES (?, ?, ?, ?, ?, ?)
          """,
        arguments: [drawn, mode.rawValue, StoredRoomState.open.rawValue, ownerID, now, now])
      let id = db.lastInsertedRowID
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
        let id = try Int64.fetchOne(
          try db.cachedStatement(
            sql: "SELECT id FROM room WHERE code = ? ORDER BY state = 1 DESC, id DESC"),
          arguments: [code]),
        let before = try Self.fetchRoom(db, id: id)
      else { throw RoomErrors.codeInvalid }
      let others = before.playerIDs
      try RoomRules.checkJoin(
        RoomJoin(
          status: before.state.status, mode: before.mode,
          lastActivityAtUnixMs: before.lastActivityAtUnixMs,
          participantCount: before.participants.count,
          joinerInOpenRoom: try Self.openRoomID(db, playerID: playerID) != nil,
          blockedByParticipant: try others.contains { try Self.blocked(db, $0, playerID) },
          blockedParticipant: try others.contains { try Self.blocked(db, playerID, $0) }),
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
        try Self.exists(
          db, "SELECT 1 FROM room_participant WHERE room_id = ? AND player_id = ?", [id, playerID]),
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
        areFriends: try Self.friends(db, ownerID, inviteeID),
        ownerBlockedInvitee: try Self.blocked(db, ownerID, inviteeID),
        inviteeBlockedOwner: try Self.blocked(db, inviteeID, ownerID))
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
      try db.execute(
        sql: "DELETE FROM room_participant WHERE room_id = ? AND player_id = ?",
        arguments: [before.id, playerID])
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
      try db.execute(
        sql: "DELETE FROM room_participant WHERE room_id = ? AND player_id = ?",
        arguments: [id, playerID])
      try Self.touch(db, room: id, now: now)
      var room = try Self.fetchRoom(db, id: id)!
      guard let heir = room.participants.first else {
        try db.execute(
          sql: "UPDATE room SET state = ? WHERE id = ?",
          arguments: [StoredRoomState.closed.rawValue, id])
        room.state = .closed
        outcome.changes.append(
          RoomChangeRecord(
            room: room, change: .closed, actorID: playerID, subjectID: playerID, recipients: []))
        outcome.room = room
        return
      }
      if room.ownerID == playerID {
        try db.execute(
          sql: "UPDATE room SET owner_id = ? WHERE id = ?", arguments: [heir.playerID, id])
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
      try RoomRules.checkStart(
        mode: before.mode, slot: slot,
        matches: try before.playerIDs.map {
          try Self.bookedMatches(db, playerID: $0, endingAfter: slot.startUnixMs)
        })
      let players = try Self.roomPlayers(db, ids: before.playerIDs)
      let teams = MatchRules.teams(
        before.playerIDs.map { ($0, players[$0]?.displayLevel.level ?? 1) })
      try db.execute(
        sql: """
          INSERT INTO game (mode, start_ms, end_ms, state, proposal_id, confirmed_at_ms)
          VALUES (?, ?, ?, ?, 0, ?)
          """,
        arguments: [
          before.mode.rawValue, slot.startUnixMs, slot.endUnixMs,
          StoredMatchState.confirmed.rawValue, now,
        ])
      let matchID = db.lastInsertedRowID
      var participants: [MatchParticipantRecord] = []
      for (position, player) in before.playerIDs.enumerated() {
        let team = teams[player] ?? (position + 1)
        try db.execute(
          sql: """
            INSERT INTO game_participant
              (game_id, position, player_id, availability_id, team, start_ms)
            SELECT id, ?, ?, 0, ?, start_ms FROM game WHERE id = ?
            """,
          arguments: [position, player, team, matchID])
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

  public func expireRooms(
    now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    try await roomWrite(now: now, notify: notify) { _, _ in }
  }
}

/// Why the room store could not do what was asked, beyond the product's rules.
enum RoomStoreError: Error {
  /// Every code drawn clashed with an open room's.
  case noFreeCode
}

extension SQLitePlayerStore {
  /// One write over rooms: expires the idle open rooms, then runs `body` in a savepoint. The
  /// expiries are committed even when `body` fails with a product rule, whose error is thrown
  /// after the commit; events for everything committed are written in the same transaction.
  private func roomWrite(
    now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents,
    _ body: @escaping @Sendable (Database, inout RoomOutcome) throws -> Void
  ) async throws -> RoomOutcome {
    let (outcome, failure) = try await grouped.write { db -> (RoomOutcome, DomainError?) in
      var outcome = RoomOutcome(changes: try Self.expireIdleRooms(db, now: now))
      var failure: DomainError?
      do {
        try db.inSavepoint {
          var attempt = outcome
          try body(db, &attempt)
          outcome = attempt
          return .commit
        }
      } catch let error as DomainError {
        failure = error
      }
      var ids = Set(
        outcome.changes.flatMap { $0.room.playerIDs + $0.recipients + [$0.room.ownerID] })
      if let room = outcome.room { ids.formUnion(room.playerIDs + [room.ownerID]) }
      if let invited = outcome.invitedPlayerID { ids.insert(invited) }
      outcome.players = try Self.roomPlayers(db, ids: Array(ids))
      try Self.append(db, notify(outcome), atUnixMs: now)
      return (outcome, failure)
    }
    if let failure { throw failure }
    return outcome
  }

  /// Marks the open rooms idle for 30 minutes or more as expired; returns the changes. The
  /// query reads the open rooms by last activity as far as `now` less the limit, and
  /// `RoomRules.isExpired` decides.
  private static func expireIdleRooms(_ db: Database, now: Int64) throws -> [RoomChangeRecord] {
    let ids = try Row.fetchAll(
      try db.cachedStatement(
        sql: """
          SELECT id, last_activity_at_ms FROM room WHERE state = ? AND last_activity_at_ms <= ?
          ORDER BY id
          """),
      arguments: [StoredRoomState.open.rawValue, now - RoomRules.idleLimitMs]
    ).filter {
      RoomRules.isExpired(lastActivityAtUnixMs: $0["last_activity_at_ms"], nowUnixMs: now)
    }.map { $0["id"] as Int64 }
    return try ids.map { id in
      try end(db, room: id, as: .expired, matchID: nil)
      let room = try fetchRoom(db, id: id)!
      return RoomChangeRecord(
        room: room, change: .expired, actorID: 0, subjectID: 0, recipients: room.playerIDs)
    }
  }

  /// Ends an open room: its participants are free to join others.
  private static func end(
    _ db: Database, room id: Int64, as state: StoredRoomState, matchID: Int64?
  ) throws {
    try db.execute(
      sql: "UPDATE room SET state = ?, match_id = ? WHERE id = ?",
      arguments: [state.rawValue, matchID, id])
    try db.execute(sql: "UPDATE room_participant SET open = 0 WHERE room_id = ?", arguments: [id])
  }

  private static func touch(_ db: Database, room id: Int64, now: Int64) throws {
    try db.execute(
      sql: "UPDATE room SET last_activity_at_ms = ? WHERE id = ?", arguments: [now, id])
  }

  private static func addParticipant(_ db: Database, room: Int64, player: Int64, now: Int64)
    throws
  {
    try db.execute(
      sql:
        "INSERT INTO room_participant (room_id, player_id, joined_at_ms, open) VALUES (?, ?, ?, 1)",
      arguments: [room, player, now])
  }

  /// The id of the open room `playerID` is in.
  private static func openRoomID(_ db: Database, playerID: Int64) throws -> Int64? {
    try Int64.fetchOne(
      try db.cachedStatement(
        sql: "SELECT room_id FROM room_participant WHERE player_id = ? AND open = 1"),
      arguments: [playerID])
  }

  /// The open room of `ownerID`, who must own it.
  private static func ownedRoom(_ db: Database, ownerID: Int64) throws -> RoomRecord {
    guard let id = try openRoomID(db, playerID: ownerID) else { throw RoomErrors.notInRoom }
    let room = try fetchRoom(db, id: id)!
    try RoomRules.checkOwner(callerID: ownerID, ownerID: room.ownerID)
    return room
  }

  private static func roomPlayers(_ db: Database, ids: [Int64]) throws -> [Int64: PlayerRecord] {
    guard !ids.isEmpty else { return [:] }
    let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
    let rows = try Row.fetchAll(
      db, sql: "SELECT * FROM player WHERE id IN (\(placeholders))",
      arguments: StatementArguments(ids))
    return Dictionary(
      uniqueKeysWithValues: rows.map { (($0["id"] as Int64), Self.player(from: $0)) })
  }

  private static func fetchRoom(_ db: Database, id: Int64) throws -> RoomRecord? {
    guard
      let row = try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM room WHERE id = ?"), arguments: [id])
    else { return nil }
    // Join order; the row id breaks ties within one millisecond.
    let participants = try Row.fetchAll(
      try db.cachedStatement(
        sql: """
          SELECT player_id, joined_at_ms FROM room_participant WHERE room_id = ?
          ORDER BY joined_at_ms, rowid
          """),
      arguments: [id]
    ).map { RoomParticipantRecord(playerID: $0["player_id"], joinedAtUnixMs: $0["joined_at_ms"]) }
    return RoomRecord(
      id: id, code: row["code"], mode: MatchMode(rawValue: row["mode"]) ?? .singles,
      state: StoredRoomState(rawValue: row["state"]) ?? .closed, ownerID: row["owner_id"],
      participants: participants, createdAtUnixMs: row["created_at_ms"],
      lastActivityAtUnixMs: row["last_activity_at_ms"], matchID: row["match_id"])
  }
}
