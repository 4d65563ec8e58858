import BadmintonDomain
public import BadmintonStore
import GRDB

extension SQLitePlayerStore: SocialStore {
  /// The tables of friends, friend requests and blocks.
  /// Blocks get row ids, so that the change feed sees them made and lifted (SQLite tells
  /// nothing of the rows of a table without them).
  static func registerBlockRowIDMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v12: blocks with row ids") { db in
      try db.execute(
        sql: """
          CREATE TABLE block_new (
            blocker_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            blocked_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            blocked_at_ms INTEGER NOT NULL,
            PRIMARY KEY (blocker_id, blocked_id)
          );
          INSERT INTO block_new (blocker_id, blocked_id, blocked_at_ms)
            SELECT blocker_id, blocked_id, blocked_at_ms FROM block;
          DROP TABLE block;
          ALTER TABLE block_new RENAME TO block;
          CREATE INDEX block_blocked ON block(blocked_id);
          """)
    }
  }

  static func registerSocialMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v5: friends, friend requests and blocks") { db in
      try db.execute(
        sql: """
          CREATE TABLE friend_request (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            sender_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            recipient_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            state INTEGER NOT NULL,
            hidden INTEGER NOT NULL DEFAULT 0,
            sent_at_ms INTEGER NOT NULL,
            answered_at_ms INTEGER,
            CHECK (sender_id <> recipient_id)
          );
          CREATE UNIQUE INDEX friend_request_pending ON friend_request(sender_id, recipient_id)
            WHERE state = 1;
          CREATE INDEX friend_request_recipient ON friend_request(recipient_id, id);
          CREATE INDEX friend_request_sender ON friend_request(sender_id, id);
          CREATE TABLE friendship (
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            friend_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            since_ms INTEGER NOT NULL,
            PRIMARY KEY (player_id, friend_id)
          ) WITHOUT ROWID;
          CREATE TABLE block (
            blocker_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            blocked_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            blocked_at_ms INTEGER NOT NULL,
            PRIMARY KEY (blocker_id, blocked_id)
          ) WITHOUT ROWID;
          CREATE INDEX block_blocked ON block(blocked_id);
          """)
    }
  }

  public func sendFriendRequest(
    from senderID: Int64, to recipientID: Int64, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord {
    try await grouped.write { db in
      guard senderID != recipientID else { throw SocialErrors.notYourself }
      guard try Self.exists(db, "SELECT 1 FROM player WHERE id = ?", [recipientID]) else {
        throw DomainError.playerNotFound
      }
      let delivery = try BlockRules.contact(
        senderBlockedRecipient: try Self.blocked(db, senderID, recipientID),
        recipientBlockedSender: try Self.blocked(db, recipientID, senderID))
      if try Self.friends(db, senderID, recipientID) { throw SocialErrors.alreadyFriends }
      if let theirs = try Self.pendingRequest(db, from: recipientID, to: senderID),
        !theirs.hidden
      {
        // Each asked the other: the second request accepts the first.
        let accepted = try Self.accept(db, theirs, now: now)
        try Self.append(db, notify(accepted), atUnixMs: now)
        return accepted
      }
      if try Self.pendingRequest(db, from: senderID, to: recipientID) != nil {
        throw SocialErrors.requestPending
      }
      let hidden = delivery == .hidden
      try db.execute(
        sql: """
          INSERT INTO friend_request (sender_id, recipient_id, state, hidden, sent_at_ms)
          VALUES (?, ?, ?, ?, ?)
          """,
        arguments: [
          senderID, recipientID, StoredFriendRequestState.pending.rawValue, hidden, now,
        ])
      let request = try Self.fetchRequest(db, id: db.lastInsertedRowID)!
      if !hidden { try Self.append(db, notify(request), atUnixMs: now) }
      return request
    }
  }

  public func answerFriendRequest(
    id: Int64, recipientID: Int64, accept: Bool, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord {
    try await grouped.write { db in
      guard let request = try Self.fetchRequest(db, id: id), request.recipientID == recipientID,
        !request.hidden
      else { throw SocialErrors.requestNotFound }
      // The same answer again (a retry whose first answer committed) returns the request as it is.
      if request.state == (accept ? .accepted : .declined) { return request }
      guard request.state == .pending else { throw SocialErrors.requestNotPending }
      if accept {
        let accepted = try Self.accept(db, request, now: now)
        try Self.append(db, notify(accepted), atUnixMs: now)
        return accepted
      }
      try db.execute(
        sql: "UPDATE friend_request SET state = ?, answered_at_ms = ? WHERE id = ?",
        arguments: [StoredFriendRequestState.declined.rawValue, now, id])
      let declined = try Self.fetchRequest(db, id: id)!
      try Self.append(db, notify(declined), atUnixMs: now)
      return declined
    }
  }

  public func friendRequest(id: Int64) async throws -> FriendRequestRecord? {
    try await writer.read { db in try Self.fetchRequest(db, id: id) }
  }

  public func friendRequests(playerID: Int64, outgoing: Bool, beforeID: Int64?, limit: Int)
    async throws -> [FriendRequestRecord]
  {
    // The (recipient, id) and (sender, id) indexes, read backwards from below `beforeID`.
    let sql =
      outgoing
      ? "SELECT * FROM friend_request WHERE sender_id = ? AND id < ? ORDER BY id DESC LIMIT ?"
      : """
      SELECT * FROM friend_request WHERE recipient_id = ? AND id < ? AND hidden = 0
      ORDER BY id DESC LIMIT ?
      """
    return try await writer.read { db in
      try Row.fetchAll(
        db, sql: sql, arguments: [playerID, beforeID ?? Int64.max, max(limit, 0)]
      ).map(Self.request(from:))
    }
  }

  public func friends(playerID: Int64) async throws -> [FriendRecord] {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(
          sql: "SELECT friend_id, since_ms FROM friendship WHERE player_id = ?"),
        arguments: [playerID]
      ).map { FriendRecord(friendID: $0["friend_id"], sinceUnixMs: $0["since_ms"]) }
    }
  }

  public func friends(playerID: Int64, afterID: Int64?, limit: Int) async throws
    -> [FriendRecord]
  {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(
          sql: """
            SELECT friend_id, since_ms FROM friendship WHERE player_id = ? AND friend_id > ?
            ORDER BY friend_id LIMIT ?
            """),
        arguments: [playerID, afterID ?? Int64.min, max(limit, 0)]
      ).map { FriendRecord(friendID: $0["friend_id"], sinceUnixMs: $0["since_ms"]) }
    }
  }

  public func areFriends(_ playerID: Int64, _ otherID: Int64) async throws -> Bool {
    try await writer.read { db in try Self.friends(db, playerID, otherID) }
  }

  public func removeFriend(playerID: Int64, friendID: Int64) async throws -> Bool {
    try await grouped.write { db in
      try Self.unfriend(db, playerID, friendID)
    }
  }

  public func block(blockerID: Int64, blockedID: Int64, now: Int64) async throws {
    try await grouped.write { db in
      guard blockerID != blockedID else { throw SocialErrors.notYourself }
      guard try Self.exists(db, "SELECT 1 FROM player WHERE id = ?", [blockedID]) else {
        throw DomainError.playerNotFound
      }
      try db.execute(
        sql: "INSERT OR IGNORE INTO block (blocker_id, blocked_id, blocked_at_ms) VALUES (?, ?, ?)",
        arguments: [blockerID, blockedID, now])
      _ = try Self.unfriend(db, blockerID, blockedID)
      // The blocker's own pending request is withdrawn. The blocked player's request is taken
      // from the blocker's view but stays pending in its sender's, so it tells them nothing.
      try db.execute(
        sql: "DELETE FROM friend_request WHERE state = ? AND sender_id = ? AND recipient_id = ?",
        arguments: [StoredFriendRequestState.pending.rawValue, blockerID, blockedID])
      try db.execute(
        sql: """
          UPDATE friend_request SET hidden = 1 WHERE state = ? AND sender_id = ? AND recipient_id = ?
          """,
        arguments: [StoredFriendRequestState.pending.rawValue, blockedID, blockerID])
    }
  }

  public func unblock(blockerID: Int64, blockedID: Int64) async throws -> Bool {
    try await grouped.write { db in
      try db.execute(
        sql: "DELETE FROM block WHERE blocker_id = ? AND blocked_id = ?",
        arguments: [blockerID, blockedID])
      // What the block kept back stays unseen by the blocker and pending for its sender, as a
      // request never answered.
      return db.changesCount > 0
    }
  }

  public func blocks(blockerID: Int64) async throws -> [BlockRecord] {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(
          sql: """
            SELECT blocked_id, blocked_at_ms FROM block WHERE blocker_id = ?
            ORDER BY blocked_at_ms DESC, blocked_id
            """),
        arguments: [blockerID]
      ).map { BlockRecord(blockedID: $0["blocked_id"], blockedAtUnixMs: $0["blocked_at_ms"]) }
    }
  }

  public func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64> {
    try await writer.read { db in
      Set(
        try Int64.fetchAll(
          try db.cachedStatement(
            sql: """
              SELECT blocked_id FROM block WHERE blocker_id = ?
              UNION SELECT blocker_id FROM block WHERE blocked_id = ?
              """),
          arguments: [playerID, playerID]))
    }
  }

  public func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool {
    try await writer.read { db in try Self.blocked(db, blockerID, playerID) }
  }

  public func allBlocks() async throws -> [(blockerID: Int64, blockedID: Int64)] {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(sql: "SELECT blocker_id, blocked_id FROM block")
      ).map {
        (blockerID: $0["blocker_id"], blockedID: $0["blocked_id"])
      }
    }
  }

  public func replayBlocks(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    try await writer.read { db in
      try Self.replayChunks(
        db, sql: "SELECT rowid AS row_id, blocker_id, blocked_id FROM block", key: "rowid"
      ) { row in
        apply(
          .block(
            rowID: row["row_id"],
            BlockChange(blockerID: row["blocker_id"], blockedID: row["blocked_id"])))
      }
    }
  }

  // MARK: Inside a transaction

  /// Whether `sql` finds a row, inside the caller's transaction.
  static func exists(_ db: Database, _ sql: String, _ arguments: StatementArguments)
    throws -> Bool
  {
    try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) != nil
  }

  static func blocked(_ db: Database, _ blockerID: Int64, _ playerID: Int64) throws -> Bool {
    try exists(
      db, "SELECT 1 FROM block WHERE blocker_id = ? AND blocked_id = ?", [blockerID, playerID])
  }

  static func friends(_ db: Database, _ playerID: Int64, _ otherID: Int64) throws -> Bool {
    try exists(
      db, "SELECT 1 FROM friendship WHERE player_id = ? AND friend_id = ?", [playerID, otherID])
  }

  private static func unfriend(_ db: Database, _ playerID: Int64, _ friendID: Int64) throws
    -> Bool
  {
    try db.execute(
      sql: """
        DELETE FROM friendship
        WHERE (player_id = ? AND friend_id = ?) OR (player_id = ? AND friend_id = ?)
        """,
      arguments: [playerID, friendID, friendID, playerID])
    return db.changesCount > 0
  }

  private static func pendingRequest(_ db: Database, from senderID: Int64, to recipientID: Int64)
    throws -> FriendRequestRecord?
  {
    try Row.fetchOne(
      try db.cachedStatement(
        sql: "SELECT * FROM friend_request WHERE sender_id = ? AND recipient_id = ? AND state = ?"),
      arguments: [senderID, recipientID, StoredFriendRequestState.pending.rawValue]
    ).map(request(from:))
  }

  /// Accepts a pending request: both players become friends of each other.
  private static func accept(_ db: Database, _ request: FriendRequestRecord, now: Int64) throws
    -> FriendRequestRecord
  {
    try db.execute(
      sql: "UPDATE friend_request SET state = ?, answered_at_ms = ? WHERE id = ?",
      arguments: [StoredFriendRequestState.accepted.rawValue, now, request.id])
    // A request the other way that a block kept hidden is settled by the friendship as well.
    try db.execute(
      sql: """
        UPDATE friend_request SET state = ?, answered_at_ms = ?
        WHERE state = ? AND sender_id = ? AND recipient_id = ?
        """,
      arguments: [
        StoredFriendRequestState.accepted.rawValue, now, StoredFriendRequestState.pending.rawValue,
        request.recipientID, request.senderID,
      ])
    for (player, friend) in [
      (request.senderID, request.recipientID), (request.recipientID, request.senderID),
    ] {
      try db.execute(
        sql: "INSERT OR IGNORE INTO friendship (player_id, friend_id, since_ms) VALUES (?, ?, ?)",
        arguments: [player, friend, now])
    }
    return try fetchRequest(db, id: request.id)!
  }

  private static func fetchRequest(_ db: Database, id: Int64) throws -> FriendRequestRecord? {
    try Row.fetchOne(
      try db.cachedStatement(sql: "SELECT * FROM friend_request WHERE id = ?"), arguments: [id]
    )
    .map(request(from:))
  }

  private static func request(from row: Row) -> FriendRequestRecord {
    FriendRequestRecord(
      id: row["id"], senderID: row["sender_id"], recipientID: row["recipient_id"],
      state: StoredFriendRequestState(rawValue: row["state"]) ?? .pending,
      hidden: row["hidden"], sentAtUnixMs: row["sent_at_ms"],
      answeredAtUnixMs: row["answered_at_ms"])
  }
}
