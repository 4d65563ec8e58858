public import BadmintonDomain
public import BadmintonStore
import PostgresNIO

/// Friends, friend requests and blocks on PostgreSQL: the embedded store's rules, each write one
/// serializable transaction, so that two instances answering the same players at once end as one
/// instance would have, one call after the other (a request each way becomes one friendship, a
/// request sent twice stays one pending request).
extension PostgresStore: SocialStore {
  public func sendFriendRequest(
    from senderID: Int64, to recipientID: Int64, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord {
    try await write { db in
      guard senderID != recipientID else { throw SocialErrors.notYourself }
      guard let checks = try await db.row(FriendRequestChecks.self, senderID, recipientID) else {
        throw DomainError.playerNotFound
      }
      let (recipientExists, senderBlocked, recipientBlocked, friends) = try checks.decode(
        (Bool, Bool, Bool, Bool).self)
      guard recipientExists else { throw DomainError.playerNotFound }
      let delivery = try BlockRules.contact(
        senderBlockedRecipient: senderBlocked, recipientBlockedSender: recipientBlocked)
      if friends { throw SocialErrors.alreadyFriends }
      if let theirs = try await Self.pendingRequest(db, from: recipientID, to: senderID),
        !theirs.hidden
      {
        // Each asked the other: the second request accepts the first.
        let accepted = try await Self.accept(db, theirs, now: now)
        try await Self.append(db, notify(accepted), atUnixMs: now)
        return accepted
      }
      if try await Self.pendingRequest(db, from: senderID, to: recipientID) != nil {
        throw SocialErrors.requestPending
      }
      let hidden = delivery == .hidden
      guard
        let row = try await db.row(
          InsertFriendRequest.self, senderID, recipientID,
          Int64(StoredFriendRequestState.pending.rawValue), Int64(hidden ? 1 : 0), now)
      else { throw SocialErrors.requestPending }
      let request = try Self.request(from: row)
      if !hidden { try await Self.append(db, notify(request), atUnixMs: now) }
      return request
    }
  }

  public func answerFriendRequest(
    id: Int64, recipientID: Int64, accept: Bool, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord {
    try await write { db in
      guard let request = try await Self.fetchRequest(db, id: id),
        request.recipientID == recipientID, !request.hidden
      else { throw SocialErrors.requestNotFound }
      // The same answer again (a retry whose first answer committed) returns the request as it is.
      if request.state == (accept ? .accepted : .declined) { return request }
      guard request.state == .pending else { throw SocialErrors.requestNotPending }
      if accept {
        let accepted = try await Self.accept(db, request, now: now)
        try await Self.append(db, notify(accepted), atUnixMs: now)
        return accepted
      }
      guard
        let row = try await db.row(
          AnswerFriendRequest.self, Int64(StoredFriendRequestState.declined.rawValue), now, id)
      else { throw SocialErrors.requestNotFound }
      let declined = try Self.request(from: row)
      try await Self.append(db, notify(declined), atUnixMs: now)
      return declined
    }
  }

  public func friendRequest(id: Int64) async throws -> FriendRequestRecord? {
    try await read { db in try await Self.fetchRequest(db, id: id) }
  }

  public func friendRequests(playerID: Int64, outgoing: Bool, beforeID: Int64?, limit: Int)
    async throws -> [FriendRequestRecord]
  {
    // The (recipient, id) and (sender, id) indexes, read backwards from below `beforeID`.
    try await read { db in
      let values: [(any PostgresThrowingDynamicTypeEncodable)?] = [
        playerID, beforeID ?? Int64.max, Int64(max(limit, 0)),
      ]
      let rows =
        outgoing
        ? try await db.rows(OutgoingFriendRequests.self, values: values)
        : try await db.rows(IncomingFriendRequests.self, values: values)
      return try rows.map(Self.request(from:))
    }
  }

  public func friends(playerID: Int64) async throws -> [FriendRecord] {
    try await read { db in
      try await db.rows(Friends.self, playerID).map(Self.friend(from:))
    }
  }

  public func friends(playerID: Int64, afterID: Int64?, limit: Int) async throws
    -> [FriendRecord]
  {
    try await read { db in
      try await db.rows(FriendsPage.self, playerID, afterID ?? Int64.min, Int64(max(limit, 0)))
        .map(Self.friend(from:))
    }
  }

  public func areFriends(_ playerID: Int64, _ otherID: Int64) async throws -> Bool {
    try await read { db in try await db.row(FriendshipExists.self, playerID, otherID) != nil }
  }

  public func removeFriend(playerID: Int64, friendID: Int64) async throws -> Bool {
    try await write { db in try await Self.unfriend(db, playerID, friendID) }
  }

  public func block(blockerID: Int64, blockedID: Int64, now: Int64) async throws {
    try await write { db in
      guard blockerID != blockedID else { throw SocialErrors.notYourself }
      guard try await db.row(PlayerExists.self, blockedID) != nil else {
        throw DomainError.playerNotFound
      }
      try await db.rows(InsertBlock.self, blockerID, blockedID, now)
      _ = try await Self.unfriend(db, blockerID, blockedID)
      // The blocker's own pending request is withdrawn. The blocked player's request is taken
      // from the blocker's view but stays pending in its sender's, so it tells them nothing.
      let pending = Int64(StoredFriendRequestState.pending.rawValue)
      try await db.rows(WithdrawFriendRequest.self, pending, blockerID, blockedID)
      try await db.rows(HideFriendRequest.self, pending, blockedID, blockerID)
    }
  }

  public func unblock(blockerID: Int64, blockedID: Int64) async throws -> Bool {
    try await write { db in
      // What the block kept back stays unseen by the blocker and pending for its sender, as a
      // request never answered.
      try await !db.rows(DeleteBlock.self, blockerID, blockedID).isEmpty
    }
  }

  public func blocks(blockerID: Int64) async throws -> [BlockRecord] {
    try await read { db in
      try await db.rows(BlocksBy.self, blockerID).map { row in
        let (blocked, at) = try row.decode((Int64, Int64).self)
        return BlockRecord(blockedID: blocked, blockedAtUnixMs: at)
      }
    }
  }

  public func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64> {
    try await read { db in
      Set(try await db.rows(BlockedEitherWay.self, playerID).map { try $0.decode(Int64.self) })
    }
  }

  public func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool {
    try await read { db in try await db.row(BlockExists.self, blockerID, playerID) != nil }
  }

  public func allBlocks() async throws -> [(blockerID: Int64, blockedID: Int64)] {
    try await read { db in
      try await db.rows(AllBlocks.self).map { row in
        let (blocker, blocked) = try row.decode((Int64, Int64).self)
        return (blockerID: blocker, blockedID: blocked)
      }
    }
  }

  public func replayBlocks(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    // One snapshot, read in chunks of the row id: the row id is the one the change tail names.
    try await snapshot { db in
      var after = Int64.min
      while true {
        let rows = try await db.rows(BlocksAfter.self, after, Int64(Self.blockReplayChunk))
        for row in rows {
          let (rowID, blocker, blocked) = try row.decode((Int64, Int64, Int64).self)
          apply(.block(rowID: rowID, BlockChange(blockerID: blocker, blockedID: blocked)))
          after = rowID
        }
        guard rows.count == Self.blockReplayChunk else { return }
      }
    }
  }

  /// Blocks read in one statement of a replay.
  static let blockReplayChunk = 1000

  // MARK: Inside a transaction

  /// Ends the friendship both ways; false when there was none.
  private static func unfriend(_ db: SQLConnection, _ playerID: Int64, _ friendID: Int64)
    async throws -> Bool
  {
    try await !db.rows(DeleteFriendship.self, playerID, friendID).isEmpty
  }

  private static func pendingRequest(
    _ db: SQLConnection, from senderID: Int64, to recipientID: Int64
  ) async throws -> FriendRequestRecord? {
    try await db.row(
      PendingFriendRequest.self, senderID, recipientID,
      Int64(StoredFriendRequestState.pending.rawValue)
    ).map(request(from:))
  }

  /// Accepts a pending request: both players become friends of each other.
  private static func accept(_ db: SQLConnection, _ request: FriendRequestRecord, now: Int64)
    async throws -> FriendRequestRecord
  {
    let accepted = Int64(StoredFriendRequestState.accepted.rawValue)
    guard let row = try await db.row(AnswerFriendRequest.self, accepted, now, request.id) else {
      throw SocialErrors.requestNotFound
    }
    // A request the other way that a block kept hidden is settled by the friendship as well.
    try await db.rows(
      SettleReverseRequest.self, accepted, now, Int64(StoredFriendRequestState.pending.rawValue),
      request.recipientID, request.senderID)
    try await db.rows(InsertFriendship.self, request.senderID, request.recipientID, now)
    return try Self.request(from: row)
  }

  private static func fetchRequest(_ db: SQLConnection, id: Int64) async throws
    -> FriendRequestRecord?
  {
    try await db.row(FriendRequestByID.self, id).map(request(from:))
  }

  /// The columns of a friend request, in the order `request(from:)` reads them.
  static let requestColumns =
    "id, sender_id, recipient_id, state, hidden, sent_at_ms, answered_at_ms"

  private static func request(from row: PostgresRow) throws -> FriendRequestRecord {
    let (id, sender, recipient, state, hidden, sent, answered) = try row.decode(
      (Int64, Int64, Int64, Int64, Int64, Int64, Int64?).self)
    return FriendRequestRecord(
      id: id, senderID: sender, recipientID: recipient,
      state: StoredFriendRequestState(rawValue: Int(state)) ?? .pending, hidden: hidden != 0,
      sentAtUnixMs: sent, answeredAtUnixMs: answered)
  }

  private static func friend(from row: PostgresRow) throws -> FriendRecord {
    let (friendID, since) = try row.decode((Int64, Int64).self)
    return FriendRecord(friendID: friendID, sinceUnixMs: since)
  }

  // MARK: Statements

  /// What a friend request checks before anything else, in one statement: whether the
  /// recipient ($2) exists, whether the sender ($1) blocked them, whether they blocked the
  /// sender, and whether the two are friends.
  enum FriendRequestChecks: SQLStatement {
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
  enum InsertFriendRequest: SQLStatement {
    static let sql = """
      INSERT INTO friend_request (sender_id, recipient_id, state, hidden, sent_at_ms)
      VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (sender_id, recipient_id) WHERE state = 1 DO NOTHING
      RETURNING \(requestColumns)
      """
  }

  enum AnswerFriendRequest: SQLStatement {
    static let sql = """
      UPDATE friend_request SET state = $1, answered_at_ms = $2 WHERE id = $3
      RETURNING \(requestColumns)
      """
  }

  enum SettleReverseRequest: SQLStatement {
    static let sql = """
      UPDATE friend_request SET state = $1, answered_at_ms = $2
      WHERE state = $3 AND sender_id = $4 AND recipient_id = $5
      """
  }

  enum InsertFriendship: SQLStatement {
    static let sql = """
      INSERT INTO friendship (player_id, friend_id, since_ms) VALUES ($1, $2, $3), ($2, $1, $3)
      ON CONFLICT DO NOTHING
      """
  }

  enum FriendRequestByID: SQLStatement {
    static let sql = "SELECT \(requestColumns) FROM friend_request WHERE id = $1"
  }

  enum PendingFriendRequest: SQLStatement {
    static let sql = """
      SELECT \(requestColumns) FROM friend_request
      WHERE sender_id = $1 AND recipient_id = $2 AND state = $3
      """
  }

  enum OutgoingFriendRequests: SQLStatement {
    static let sql = """
      SELECT \(requestColumns) FROM friend_request WHERE sender_id = $1 AND id < $2
      ORDER BY id DESC LIMIT $3
      """
  }

  enum IncomingFriendRequests: SQLStatement {
    static let sql = """
      SELECT \(requestColumns) FROM friend_request WHERE recipient_id = $1 AND id < $2
        AND hidden = 0
      ORDER BY id DESC LIMIT $3
      """
  }

  /// In the key's order, as the embedded store's table (clustered on its key) gives them.
  enum Friends: SQLStatement {
    static let sql = """
      SELECT friend_id, since_ms FROM friendship WHERE player_id = $1 ORDER BY friend_id
      """
  }

  enum FriendsPage: SQLStatement {
    static let sql = """
      SELECT friend_id, since_ms FROM friendship WHERE player_id = $1 AND friend_id > $2
      ORDER BY friend_id LIMIT $3
      """
  }

  enum FriendshipExists: SQLStatement {
    static let sql = "SELECT 1 FROM friendship WHERE player_id = $1 AND friend_id = $2"
  }

  enum DeleteFriendship: SQLStatement {
    static let sql = """
      DELETE FROM friendship
      WHERE (player_id = $1 AND friend_id = $2) OR (player_id = $2 AND friend_id = $1)
      RETURNING player_id
      """
  }

  enum InsertBlock: SQLStatement {
    static let sql = """
      INSERT INTO block (blocker_id, blocked_id, blocked_at_ms) VALUES ($1, $2, $3)
      ON CONFLICT DO NOTHING
      """
  }

  enum WithdrawFriendRequest: SQLStatement {
    static let sql = """
      DELETE FROM friend_request WHERE state = $1 AND sender_id = $2 AND recipient_id = $3
      """
  }

  enum HideFriendRequest: SQLStatement {
    static let sql = """
      UPDATE friend_request SET hidden = 1 WHERE state = $1 AND sender_id = $2 AND recipient_id = $3
      """
  }

  enum DeleteBlock: SQLStatement {
    static let sql = "DELETE FROM block WHERE blocker_id = $1 AND blocked_id = $2 RETURNING row_id"
  }

  enum BlocksBy: SQLStatement {
    static let sql = """
      SELECT blocked_id, blocked_at_ms FROM block WHERE blocker_id = $1
      ORDER BY blocked_at_ms DESC, blocked_id
      """
  }

  enum BlockedEitherWay: SQLStatement {
    static let sql = """
      SELECT blocked_id FROM block WHERE blocker_id = $1
      UNION SELECT blocker_id FROM block WHERE blocked_id = $1
      """
  }

  enum BlockExists: SQLStatement {
    static let sql = "SELECT 1 FROM block WHERE blocker_id = $1 AND blocked_id = $2"
  }

  enum AllBlocks: SQLStatement {
    static let sql = "SELECT blocker_id, blocked_id FROM block"
  }

  enum BlocksAfter: SQLStatement {
    static let sql = """
      SELECT row_id, blocker_id, blocked_id FROM block WHERE row_id > $1 ORDER BY row_id LIMIT $2
      """
  }
}
