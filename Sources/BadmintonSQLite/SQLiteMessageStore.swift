import BadmintonDomain
public import BadmintonStore
import GRDB

extension SQLitePlayerStore: MessageStore {
  /// The tables of direct messages.
  ///
  /// `message_thread` holds one row per pair of players (lower id first). `message_thread_member`
  /// holds one row per player who can see the thread, with the message id they cleared it
  /// through; a recipient gets theirs with the first message they can see, so a thread of hidden
  /// messages only does not exist for them. `direct_message` is indexed by thread and id (a page
  /// of a thread reads only its own rows), by sender and by recipient with id (SyncMessages), by
  /// sender and client message id (unique: the idempotency of SendMessage), and by the unread
  /// messages of each recipient.
  static func registerMessageMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v7: direct messages") { db in
      try db.execute(
        sql: """
          CREATE TABLE message_thread (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            low_player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            high_player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            created_at_ms INTEGER NOT NULL,
            CHECK (low_player_id < high_player_id),
            UNIQUE (low_player_id, high_player_id)
          );
          CREATE INDEX message_thread_high ON message_thread(high_player_id);
          CREATE TABLE message_thread_member (
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            thread_id INTEGER NOT NULL REFERENCES message_thread(id) ON DELETE CASCADE,
            other_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            cleared_through_id INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (player_id, thread_id)
          ) WITHOUT ROWID;
          CREATE INDEX message_thread_member_thread ON message_thread_member(thread_id);
          CREATE TABLE direct_message (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            thread_id INTEGER NOT NULL REFERENCES message_thread(id) ON DELETE CASCADE,
            sender_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            recipient_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            client_message_id TEXT NOT NULL,
            text TEXT NOT NULL,
            sent_at_ms INTEGER NOT NULL,
            delivered_at_ms INTEGER,
            read_at_ms INTEGER,
            hidden INTEGER NOT NULL DEFAULT 0,
            CHECK (sender_id <> recipient_id)
          );
          CREATE UNIQUE INDEX direct_message_client_id
            ON direct_message(sender_id, client_message_id);
          CREATE INDEX direct_message_thread ON direct_message(thread_id, id);
          CREATE INDEX direct_message_sender ON direct_message(sender_id, id);
          CREATE INDEX direct_message_recipient ON direct_message(recipient_id, id);
          CREATE INDEX direct_message_unread ON direct_message(recipient_id, thread_id)
            WHERE read_at_ms IS NULL AND hidden = 0;
          """)
    }
  }

  public func sendMessage(
    _ new: NewMessage, notify: @escaping @Sendable (MessageRecord) -> OutgoingEvents
  ) async throws -> MessageSendOutcome {
    try await grouped.write { db in
      // Everything a send checks, read in one statement before anything is written: a refused
      // send changes nothing.
      let (low, high) = (min(new.senderID, new.recipientID), max(new.senderID, new.recipientID))
      let checks = try Row.fetchOne(
        db.cachedStatement(sql: Self.sendChecksSQL),
        arguments: [
          new.senderID, new.clientMessageID, new.recipientID, new.senderID, new.recipientID,
          new.recipientID, new.senderID, low, high,
        ])!
      if (checks[0] as Int64?) != nil, let earlier = try Self.earlierMessage(db, new) {
        return MessageSendOutcome(message: earlier, created: false)
      }
      guard new.senderID != new.recipientID else { throw MessageErrors.notYourself }
      guard checks[1] as Bool else { throw DomainError.playerNotFound }
      let hidden =
        try BlockRules.contact(
          senderBlockedRecipient: checks[2], recipientBlockedSender: checks[3]) == .hidden
      let threadID: Int64
      if let existing = checks[4] as Int64? {
        threadID = existing
      } else {
        try db.cachedStatement(
          sql: """
            INSERT INTO message_thread (low_player_id, high_player_id, created_at_ms)
            VALUES (?, ?, ?)
            """
        ).execute(arguments: [low, high, new.sentAtUnixMs])
        threadID = db.lastInsertedRowID
      }
      try Self.join(
        db, threadID: threadID, playerID: new.senderID, otherID: new.recipientID,
        andOther: !hidden)
      try db.cachedStatement(
        sql: """
          INSERT INTO direct_message (thread_id, sender_id, recipient_id, client_message_id, text,
            sent_at_ms, hidden) VALUES (?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (sender_id, client_message_id) DO NOTHING
          """
      ).execute(
        arguments: [
          threadID, new.senderID, new.recipientID, new.clientMessageID, new.text,
          new.sentAtUnixMs, hidden,
        ])
      guard db.changesCount == 1 else {
        // Another call stored the same client message id first: its message is the answer.
        guard let earlier = try Self.earlierMessage(db, new) else {
          throw MessageErrors.clientMessageIDReused
        }
        return MessageSendOutcome(message: earlier, created: false)
      }
      // The row as stored, made here rather than read back.
      let message = MessageRecord(
        id: db.lastInsertedRowID, threadID: threadID, senderID: new.senderID,
        recipientID: new.recipientID, clientMessageID: new.clientMessageID, text: new.text,
        sentAtUnixMs: new.sentAtUnixMs, hidden: hidden)
      if !hidden { try Self.append(db, notify(message), atUnixMs: new.sentAtUnixMs) }
      return MessageSendOutcome(message: message, created: true)
    }
  }

  public func acknowledgeDelivered(
    messageIDs: [Int64], recipientID: Int64, now: Int64,
    notify: @escaping @Sendable ([MessageReceiptRecord]) -> OutgoingEvents
  ) async throws -> Int {
    let ids = Array(Set(messageIDs)).sorted()
    guard !ids.isEmpty else { return 0 }
    return try await grouped.write { db in
      let marked = try Row.fetchAll(
        db,
        sql: """
          UPDATE direct_message SET delivered_at_ms = ?
          WHERE id IN (\(databaseQuestionMarks(count: ids.count))) AND recipient_id = ?
            AND hidden = 0 AND delivered_at_ms IS NULL
          RETURNING id, thread_id, sender_id
          """,
        arguments: StatementArguments([now] + ids + [recipientID]))
      let receipts = Self.receipts(marked)
      if !receipts.isEmpty { try Self.append(db, notify(receipts), atUnixMs: now) }
      return marked.count
    }
  }

  public func markRead(
    threadID: Int64, playerID: Int64, upToMessageID: Int64?, now: Int64,
    notify: @escaping @Sendable (MessageReceiptRecord) -> OutgoingEvents
  ) async throws -> Int {
    try await grouped.write { db in
      guard let cleared = try Self.clearedThrough(db, threadID: threadID, playerID: playerID) else {
        throw MessageErrors.threadNotFound
      }
      let marked = try Row.fetchAll(
        try db.cachedStatement(
          sql: """
            UPDATE direct_message SET read_at_ms = ?, delivered_at_ms = coalesce(delivered_at_ms, ?)
            WHERE thread_id = ? AND recipient_id = ? AND read_at_ms IS NULL AND hidden = 0
              AND id > ? AND id <= ?
            RETURNING id, thread_id, sender_id
            """),
        arguments: [now, now, threadID, playerID, cleared, upToMessageID ?? Int64.max])
      if let receipt = Self.receipts(marked).first {
        try Self.append(db, notify(receipt), atUnixMs: now)
      }
      return try Self.unreadCount(db, playerID: playerID)
    }
  }

  public func messages(threadID: Int64, playerID: Int64, beforeMessageID: Int64?, limit: Int)
    async throws -> [MessageRecord]
  {
    try await writer.read { db in
      guard let cleared = try Self.clearedThrough(db, threadID: threadID, playerID: playerID) else {
        throw MessageErrors.threadNotFound
      }
      return try Row.fetchAll(
        try db.cachedStatement(sql: Self.threadPageSQL),
        arguments: [threadID, beforeMessageID ?? Int64.max, cleared, playerID, limit]
      ).map(Self.message(from:))
    }
  }

  /// A page of one thread, newest first: a range of the index on (thread_id, id).
  static let threadPageSQL = """
    SELECT * FROM direct_message
    WHERE thread_id = ? AND id < ? AND id > ? AND (sender_id = ? OR hidden = 0)
    ORDER BY id DESC LIMIT ?
    """

  public func messages(playerID: Int64, afterMessageID: Int64, limit: Int) async throws
    -> [MessageRecord]
  {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(sql: Self.syncPageSQL),
        arguments: [
          playerID, playerID, afterMessageID, limit, playerID, playerID, afterMessageID, limit,
          limit,
        ]
      ).map(Self.message(from:))
    }
  }

  /// A page of everything a player sent or can see, oldest first: the first `limit` of what they
  /// sent and the first `limit` of what they received, each walked in id order on its own index
  /// and stopped there, then merged.
  static let syncPageSQL = """
    SELECT * FROM (
      SELECT * FROM (
        SELECT direct_message.* FROM direct_message
        JOIN message_thread_member AS member
          ON member.thread_id = direct_message.thread_id AND member.player_id = ?
        WHERE direct_message.sender_id = ? AND direct_message.id > ?
          AND direct_message.id > member.cleared_through_id
        ORDER BY direct_message.id LIMIT ?)
      UNION ALL
      SELECT * FROM (
        SELECT direct_message.* FROM direct_message
        JOIN message_thread_member AS member
          ON member.thread_id = direct_message.thread_id AND member.player_id = ?
        WHERE direct_message.recipient_id = ? AND direct_message.id > ?
          AND direct_message.hidden = 0 AND direct_message.id > member.cleared_through_id
        ORDER BY direct_message.id LIMIT ?))
    ORDER BY id LIMIT ?
    """

  public func threads(playerID: Int64, beforeLastMessageID: Int64?, limit: Int) async throws
    -> MessageThreadPage
  {
    try await writer.read { db in
      let rows = try Row.fetchAll(
        try db.cachedStatement(sql: Self.threadListSQL),
        arguments: [playerID, beforeLastMessageID ?? Int64.max, limit])
      let threads = try rows.compactMap { row -> MessageThreadRecord? in
        guard let last = try Self.fetchMessage(db, id: row["last_id"]) else { return nil }
        return MessageThreadRecord(
          threadID: row["thread_id"], otherID: row["other_id"], lastMessage: last,
          unreadCount: row["unread"])
      }
      return MessageThreadPage(
        threads: threads, totalUnread: try Self.unreadCount(db, playerID: playerID))
    }
  }

  /// A page of a player's threads, latest message first: each thread's newest message the
  /// player can see (a thread of none is left out), below the page's cursor.
  static let threadListSQL = """
    SELECT * FROM (
      SELECT member.thread_id, member.other_id,
        (SELECT id FROM direct_message
          WHERE thread_id = member.thread_id AND id > member.cleared_through_id
            AND (sender_id = member.player_id OR hidden = 0)
          ORDER BY id DESC LIMIT 1) AS last_id,
        (SELECT count(*) FROM direct_message
          WHERE recipient_id = member.player_id AND thread_id = member.thread_id
            AND read_at_ms IS NULL AND hidden = 0 AND id > member.cleared_through_id) AS unread
      FROM message_thread_member AS member WHERE member.player_id = ?)
    WHERE last_id IS NOT NULL AND last_id < ?
    ORDER BY last_id DESC LIMIT ?
    """

  public func unreadCount(playerID: Int64) async throws -> Int {
    try await writer.read { db in try Self.unreadCount(db, playerID: playerID) }
  }

  public func deleteConversation(threadID: Int64, playerID: Int64) async throws {
    try await grouped.write { db in
      guard try Self.clearedThrough(db, threadID: threadID, playerID: playerID) != nil else {
        throw MessageErrors.threadNotFound
      }
      try db.execute(
        sql: """
          UPDATE message_thread_member SET cleared_through_id = coalesce(
            (SELECT max(id) FROM direct_message WHERE thread_id = ?), cleared_through_id)
          WHERE player_id = ? AND thread_id = ?
          """,
        arguments: [threadID, playerID, threadID])
    }
  }

  // MARK: Rows

  /// The sender's message with the same client message id: returned when it is the same
  /// message, refused when it is not.
  private static func earlierMessage(_ db: Database, _ new: NewMessage) throws -> MessageRecord? {
    guard
      let row = try Row.fetchOne(
        db.cachedStatement(
          sql: "SELECT * FROM direct_message WHERE sender_id = ? AND client_message_id = ?"),
        arguments: [new.senderID, new.clientMessageID])
    else { return nil }
    let earlier = message(from: row)
    guard earlier.recipientID == new.recipientID, earlier.text == new.text else {
      throw MessageErrors.clientMessageIDReused
    }
    return earlier
  }

  /// What a send checks, in one statement: the id of the sender's message with the same client
  /// message id (NULL when none), whether the recipient exists, whether the sender blocked the
  /// recipient, whether the recipient blocked the sender, and the pair's thread (NULL when none).
  static let sendChecksSQL = """
    SELECT
      (SELECT id FROM direct_message WHERE sender_id = ? AND client_message_id = ?),
      EXISTS (SELECT 1 FROM player WHERE id = ?),
      EXISTS (SELECT 1 FROM block WHERE blocker_id = ? AND blocked_id = ?),
      EXISTS (SELECT 1 FROM block WHERE blocker_id = ? AND blocked_id = ?),
      (SELECT id FROM message_thread WHERE low_player_id = ? AND high_player_id = ?)
    """

  /// Lets `playerID` see the thread, and with `andOther` the other player too, where they could
  /// not yet: one statement either way.
  private static func join(
    _ db: Database, threadID: Int64, playerID: Int64, otherID: Int64, andOther: Bool
  ) throws {
    if andOther {
      try db.cachedStatement(
        sql: """
          INSERT OR IGNORE INTO message_thread_member (player_id, thread_id, other_id)
          VALUES (?, ?, ?), (?, ?, ?)
          """
      ).execute(arguments: [playerID, threadID, otherID, otherID, threadID, playerID])
    } else {
      try db.cachedStatement(
        sql: """
          INSERT OR IGNORE INTO message_thread_member (player_id, thread_id, other_id)
          VALUES (?, ?, ?)
          """
      ).execute(arguments: [playerID, threadID, otherID])
    }
  }

  /// The id `playerID` cleared the thread through, or nil when they are not in it.
  private static func clearedThrough(_ db: Database, threadID: Int64, playerID: Int64) throws
    -> Int64?
  {
    try Int64.fetchOne(
      try db.cachedStatement(
        sql: """
          SELECT cleared_through_id FROM message_thread_member WHERE player_id = ? AND thread_id = ?
          """),
      arguments: [playerID, threadID])
  }

  private static func unreadCount(_ db: Database, playerID: Int64) throws -> Int {
    try Int.fetchOne(
      try db.cachedStatement(
        sql: """
          SELECT count(*) FROM direct_message
          JOIN message_thread_member AS member
            ON member.thread_id = direct_message.thread_id AND member.player_id = ?
          WHERE direct_message.recipient_id = ? AND direct_message.read_at_ms IS NULL
            AND direct_message.hidden = 0 AND direct_message.id > member.cleared_through_id
          """),
      arguments: [playerID, playerID]) ?? 0
  }

  /// The marked rows (id, thread_id, sender_id) as one receipt per thread, ids in order.
  private static func receipts(_ rows: [Row]) -> [MessageReceiptRecord] {
    var byThread: [Int64: MessageReceiptRecord] = [:]
    for row in rows {
      let threadID: Int64 = row["thread_id"]
      byThread[
        threadID,
        default: MessageReceiptRecord(
          threadID: threadID, senderID: row["sender_id"], messageIDs: [])
      ].messageIDs.append(row["id"])
    }
    return byThread.values.map { receipt in
      var receipt = receipt
      receipt.messageIDs.sort()
      return receipt
    }
    .sorted { $0.threadID < $1.threadID }
  }

  private static func fetchMessage(_ db: Database, id: Int64) throws -> MessageRecord? {
    try Row.fetchOne(
      db.cachedStatement(sql: "SELECT * FROM direct_message WHERE id = ?"), arguments: [id]
    ).map(message(from:))
  }

  private static func message(from row: Row) -> MessageRecord {
    MessageRecord(
      id: row["id"], threadID: row["thread_id"], senderID: row["sender_id"],
      recipientID: row["recipient_id"], clientMessageID: row["client_message_id"],
      text: row["text"], sentAtUnixMs: row["sent_at_ms"],
      deliveredAtUnixMs: row["delivered_at_ms"], readAtUnixMs: row["read_at_ms"],
      hidden: row["hidden"])
  }
}
