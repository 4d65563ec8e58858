public import BadmintonDomain
public import BadmintonStore

/// Friends, friend requests and blocks, on either engine. On PostgreSQL each write is
/// serializable, so that two instances answering the same players at once end as one
/// instance would have, one call after the other (a request each way becomes one friendship, a
/// request sent twice stays one pending request).
extension SocialStore where Self: StoreEngine {
  public func sendFriendRequest(
    from senderID: Int64, to recipientID: Int64, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord {
    try await writeTransaction { db in
      guard let checks = try db.row(FriendRequestChecks.self, senderID, recipientID) else {
        throw DomainError.playerNotFound
      }
      let (recipientExists, senderBlocked, recipientBlocked, friends) = try checks.decode(
        (Bool, Bool, Bool, Bool).self)
      guard recipientExists else { throw DomainError.playerNotFound }
      let delivery = try BlockRules.contact(
        senderBlockedRecipient: senderBlocked, recipientBlockedSender: recipientBlocked)
      try FriendRules.checkRequest(
        senderID: senderID, recipientID: recipientID, areFriends: friends)
      if let theirs = try Self.pendingRequest(db, from: recipientID, to: senderID),
        !theirs.hidden
      {
        // Each asked the other: the second request accepts the first.
        let accepted = try Self.accept(db, theirs, now: now)
        try Shared.append(db, notify(accepted), atUnixMs: now)
        return accepted
      }
      if try Self.pendingRequest(db, from: senderID, to: recipientID) != nil {
        throw SocialErrors.requestPending
      }
      let hidden = delivery == .hidden
      guard
        let row = try db.row(
          InsertFriendRequest.self, senderID, recipientID,
          Int64(StoredFriendRequestState.pending.rawValue), Int64(hidden ? 1 : 0), now)
      else { throw SocialErrors.requestPending }
      let request = try Self.request(from: row)
      if !hidden { try Shared.append(db, notify(request), atUnixMs: now) }
      return request
    }
  }

  public func answerFriendRequest(
    id: Int64, recipientID: Int64, accept: Bool, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord {
    try await writeTransaction { db in
      guard let request = try Self.fetchRequest(db, id: id),
        request.recipientID == recipientID, !request.hidden
      else { throw SocialErrors.requestNotFound }
      // The same answer again (a retry whose first answer committed) returns the request as it is.
      if try FriendRules.isRepeatedAnswer(state: request.state.rule, accept: accept) {
        return request
      }
      if accept {
        let accepted = try Self.accept(db, request, now: now)
        try Shared.append(db, notify(accepted), atUnixMs: now)
        return accepted
      }
      guard
        let row = try db.row(
          AnswerFriendRequest.self, Int64(StoredFriendRequestState.declined.rawValue), now, id)
      else { throw SocialErrors.requestNotFound }
      let declined = try Self.request(from: row)
      try Shared.append(db, notify(declined), atUnixMs: now)
      return declined
    }
  }

  public func friendRequest(id: Int64) async throws -> FriendRequestRecord? {
    try await readSnapshot { db in try Self.fetchRequest(db, id: id) }
  }

  public func friendRequests(playerID: Int64, outgoing: Bool, beforeID: Int64?, limit: Int)
    async throws -> [FriendRequestRecord]
  {
    // The (recipient, id) and (sender, id) indexes, read backwards from below `beforeID`.
    try await readSnapshot { db in
      let values: [StoreValue] = [
        .integer(playerID), .integer(beforeID ?? Int64.max), .integer(Int64(max(limit, 0))),
      ]
      let rows =
        outgoing
        ? try db.rows(OutgoingFriendRequests.self, values: values)
        : try db.rows(IncomingFriendRequests.self, values: values)
      return try rows.map(Self.request(from:))
    }
  }

  public func friends(playerID: Int64) async throws -> [FriendRecord] {
    try await readSnapshot { db in
      try db.rows(Friends.self, playerID).map(Self.friend(from:))
    }
  }

  public func friends(playerID: Int64, afterID: Int64?, limit: Int) async throws
    -> [FriendRecord]
  {
    try await readSnapshot { db in
      try db.rows(FriendsPage.self, playerID, afterID ?? Int64.min, Int64(max(limit, 0)))
        .map(Self.friend(from:))
    }
  }

  public func areFriends(_ playerID: Int64, _ otherID: Int64) async throws -> Bool {
    try await readSnapshot { db in try db.row(FriendshipExists.self, playerID, otherID) != nil }
  }

  public func removeFriend(playerID: Int64, friendID: Int64) async throws -> Bool {
    try await writeTransaction { db in try Self.unfriend(db, playerID, friendID) }
  }

  public func block(blockerID: Int64, blockedID: Int64, now: Int64) async throws {
    try await writeTransaction { db in
      try FriendRules.checkBlock(blockerID: blockerID, blockedID: blockedID)
      guard try db.exists(SocialPlayerExists.self, blockedID) else {
        throw DomainError.playerNotFound
      }
      try db.rows(InsertBlock.self, blockerID, blockedID, now)
      _ = try Self.unfriend(db, blockerID, blockedID)
      // The blocker's own pending request is withdrawn. The blocked player's request is taken
      // from the blocker's view but stays pending in its sender's, so it tells them nothing.
      let pending = Int64(StoredFriendRequestState.pending.rawValue)
      try db.rows(WithdrawFriendRequest.self, pending, blockerID, blockedID)
      try db.rows(HideFriendRequest.self, pending, blockedID, blockerID)
    }
  }

  public func unblock(blockerID: Int64, blockedID: Int64) async throws -> Bool {
    try await writeTransaction { db in
      // What the block kept back stays unseen by the blocker and pending for its sender, as a
      // request never answered.
      try !db.rows(DeleteBlock.self, blockerID, blockedID).isEmpty
    }
  }

  public func blocks(blockerID: Int64) async throws -> [BlockRecord] {
    try await readSnapshot { db in
      try db.rows(BlocksBy.self, blockerID).map { row in
        let (blocked, at) = try row.decode((Int64, Int64).self)
        return BlockRecord(blockedID: blocked, blockedAtUnixMs: at)
      }
    }
  }

  public func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64> {
    try await readSnapshot { db in
      Set(try db.rows(BlockedEitherWay.self, playerID).map { try $0.decode(Int64.self) })
    }
  }

  public func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool {
    try await readSnapshot { db in try db.row(BlockExists.self, blockerID, playerID) != nil }
  }

  public func allBlocks() async throws -> [(blockerID: Int64, blockedID: Int64)] {
    try await readSnapshot { db in
      try db.rows(AllBlocks.self).map { row in
        let (blocker, blocked) = try row.decode((Int64, Int64).self)
        return (blockerID: blocker, blockedID: blocked)
      }
    }
  }

  public func replayBlocks(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    // One snapshot, read in chunks of the row id: the row id is the one the change tail names.
    try await readSnapshot { db in
      var after = Int64.min
      while true {
        let rows = try db.rows(BlocksAfter.self, after, Int64(SocialRows.blockReplayChunk))
        for row in rows {
          let (rowID, blocker, blocked) = try row.decode((Int64, Int64, Int64).self)
          apply(.block(rowID: rowID, BlockChange(blockerID: blocker, blockedID: blocked)))
          after = rowID
        }
        guard rows.count == SocialRows.blockReplayChunk else { return }
      }
    }
  }

  // MARK: Inside a transaction

  /// Ends the friendship both ways; false when there was none.
  private static func unfriend(_ db: any StoreSession, _ playerID: Int64, _ friendID: Int64)
    throws -> Bool
  {
    try !db.rows(DeleteFriendship.self, playerID, friendID).isEmpty
  }

  private static func pendingRequest(
    _ db: any StoreSession, from senderID: Int64, to recipientID: Int64
  ) throws -> FriendRequestRecord? {
    try db.row(
      PendingFriendRequest.self, senderID, recipientID,
      Int64(StoredFriendRequestState.pending.rawValue)
    ).map(request(from:))
  }

  /// Accepts a pending request: both players become friends of each other.
  private static func accept(_ db: any StoreSession, _ request: FriendRequestRecord, now: Int64)
    throws -> FriendRequestRecord
  {
    let accepted = Int64(StoredFriendRequestState.accepted.rawValue)
    guard let row = try db.row(AnswerFriendRequest.self, accepted, now, request.id) else {
      throw SocialErrors.requestNotFound
    }
    // A request the other way that a block kept hidden is settled by the friendship as well.
    try db.rows(
      SettleReverseRequest.self, accepted, now, Int64(StoredFriendRequestState.pending.rawValue),
      request.recipientID, request.senderID)
    try db.rows(InsertFriendship.self, request.senderID, request.recipientID, now)
    return try Self.request(from: row)
  }

  private static func fetchRequest(_ db: any StoreSession, id: Int64) throws
    -> FriendRequestRecord?
  {
    try db.row(FriendRequestByID.self, id).map(request(from:))
  }

  private static func request(from row: StoreRow) throws -> FriendRequestRecord {
    let (id, sender, recipient, state, hidden, sent, answered) = try row.decode(
      (Int64, Int64, Int64, Int64, Int64, Int64, Int64?).self)
    return FriendRequestRecord(
      id: id, senderID: sender, recipientID: recipient,
      state: StoredFriendRequestState(rawValue: Int(state)) ?? .pending, hidden: hidden != 0,
      sentAtUnixMs: sent, answeredAtUnixMs: answered)
  }

  private static func friend(from row: StoreRow) throws -> FriendRecord {
    let (friendID, since) = try row.decode((Int64, Int64).self)
    return FriendRecord(friendID: friendID, sinceUnixMs: since)
  }
}

/// What the social statements share.
enum SocialRows {
  /// Blocks read in one statement of a replay.
  static let blockReplayChunk = 1000

  /// The columns of a friend request, in the order `request(from:)` reads them.
  static let requestColumns =
    "id, sender_id, recipient_id, state, hidden, sent_at_ms, answered_at_ms"
}

// MARK: Statements

/// What a friend request checks before anything else, in one statement: whether the
/// recipient ($2) exists, whether the sender ($1) blocked them, whether they blocked the
/// sender, and whether the two are friends.
private enum FriendRequestChecks: StoreStatement {
  static let sql = """
    SELECT
      EXISTS (SELECT 1 FROM player WHERE id = $2),
      EXISTS (SELECT 1 FROM block WHERE blocker_id = $1 AND blocked_id = $2),
      EXISTS (SELECT 1 FROM block WHERE blocker_id = $2 AND blocked_id = $1),
      EXISTS (SELECT 1 FROM friendship WHERE player_id = $1 AND friend_id = $2)
    """
}

/// A new pending request ($3 is the pending state, 1). The partial unique index on pending
/// requests decides between two sent at once: the one that finds the other's row, committed
/// after its snapshot, is refused as a serialization failure and run again, and then finds
/// the request pending.
private enum InsertFriendRequest: StoreStatement {
  static let sql = """
    INSERT INTO friend_request (sender_id, recipient_id, state, hidden, sent_at_ms)
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (sender_id, recipient_id) WHERE state = 1 DO NOTHING
    RETURNING \(SocialRows.requestColumns)
    """
}

private enum AnswerFriendRequest: StoreStatement {
  static let sql = """
    UPDATE friend_request SET state = $1, answered_at_ms = $2 WHERE id = $3
    RETURNING \(SocialRows.requestColumns)
    """
}

private enum SettleReverseRequest: StoreStatement {
  static let sql = """
    UPDATE friend_request SET state = $1, answered_at_ms = $2
    WHERE state = $3 AND sender_id = $4 AND recipient_id = $5
    """
}

private enum InsertFriendship: StoreStatement {
  static let sql = """
    INSERT INTO friendship (player_id, friend_id, since_ms) VALUES ($1, $2, $3), ($2, $1, $3)
    ON CONFLICT DO NOTHING
    """
}

private enum FriendRequestByID: StoreStatement {
  static let sql = "SELECT \(SocialRows.requestColumns) FROM friend_request WHERE id = $1"
}

private enum PendingFriendRequest: StoreStatement {
  static let sql = """
    SELECT \(SocialRows.requestColumns) FROM friend_request
    WHERE sender_id = $1 AND recipient_id = $2 AND state = $3
    """
}

private enum OutgoingFriendRequests: StoreStatement {
  static let sql = """
    SELECT \(SocialRows.requestColumns) FROM friend_request WHERE sender_id = $1 AND id < $2
    ORDER BY id DESC LIMIT $3
    """
}

private enum IncomingFriendRequests: StoreStatement {
  static let sql = """
    SELECT \(SocialRows.requestColumns) FROM friend_request WHERE recipient_id = $1 AND id < $2
      AND hidden = 0
    ORDER BY id DESC LIMIT $3
    """
}

/// In the key's order, as the embedded store's table (clustered on its key) gives them.
private enum Friends: StoreStatement {
  static let sql = """
    SELECT friend_id, since_ms FROM friendship WHERE player_id = $1 ORDER BY friend_id
    """
}

private enum FriendsPage: StoreStatement {
  static let sql = """
    SELECT friend_id, since_ms FROM friendship WHERE player_id = $1 AND friend_id > $2
    ORDER BY friend_id LIMIT $3
    """
}

private enum FriendshipExists: StoreStatement {
  static let sql = "SELECT 1 FROM friendship WHERE player_id = $1 AND friend_id = $2"
}

private enum DeleteFriendship: StoreStatement {
  static let sql = """
    DELETE FROM friendship
    WHERE (player_id = $1 AND friend_id = $2) OR (player_id = $2 AND friend_id = $1)
    RETURNING player_id
    """
}

private enum InsertBlock: StoreStatement {
  static let sql = """
    INSERT INTO block (blocker_id, blocked_id, blocked_at_ms) VALUES ($1, $2, $3)
    ON CONFLICT DO NOTHING
    """
}

private enum WithdrawFriendRequest: StoreStatement {
  static let sql = """
    DELETE FROM friend_request WHERE state = $1 AND sender_id = $2 AND recipient_id = $3
    """
}

private enum HideFriendRequest: StoreStatement {
  static let sql = """
    UPDATE friend_request SET hidden = 1 WHERE state = $1 AND sender_id = $2 AND recipient_id = $3
    """
}

private enum DeleteBlock: StoreStatement {
  static let sql = "DELETE FROM block WHERE blocker_id = $1 AND blocked_id = $2 RETURNING row_id"
  static let sqlite = "DELETE FROM block WHERE blocker_id = ?1 AND blocked_id = ?2 RETURNING rowid"
}

private enum BlocksBy: StoreStatement {
  static let sql = """
    SELECT blocked_id, blocked_at_ms FROM block WHERE blocker_id = $1
    ORDER BY blocked_at_ms DESC, blocked_id
    """
}

private enum BlockedEitherWay: StoreStatement {
  static let sql = """
    SELECT blocked_id FROM block WHERE blocker_id = $1
    UNION SELECT blocker_id FROM block WHERE blocked_id = $1
    """
}

private enum BlockExists: StoreStatement {
  static let sql = "SELECT 1 FROM block WHERE blocker_id = $1 AND blocked_id = $2"
}

private enum AllBlocks: StoreStatement {
  static let sql = "SELECT blocker_id, blocked_id FROM block"
}

private enum BlocksAfter: StoreStatement {
  static let sql = """
    SELECT row_id, blocker_id, blocked_id FROM block WHERE row_id > $1 ORDER BY row_id LIMIT $2
    """
  static let sqlite = """
    SELECT rowid, blocker_id, blocked_id FROM block WHERE rowid > ?1 ORDER BY rowid LIMIT ?2
    """
}

private enum SocialPlayerExists: StoreStatement {
  static let sql = "SELECT 1 FROM player WHERE id = $1"
}

extension StoredFriendRequestState {
  /// Where the request stands, as the rules read it.
  var rule: FriendRules.RequestState {
    switch self {
    case .pending: .pending
    case .accepted: .accepted
    case .declined: .declined
    }
  }
}
