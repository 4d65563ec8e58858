import BadmintonDomain
public import BadmintonStore

/// Direct messages, on either engine. On PostgreSQL every write is serializable, and the
/// unique index on (sender, client message id) decides which of two sends of the same message
/// stores it, on one instance or on two. Message ids keep their order but may skip: an insert
/// that finds the message already stored, like a transaction run again, has drawn one.
extension MessageStore where Self: StoreEngine {
  public func sendMessage(
    _ new: NewMessage, notify: @escaping @Sendable (MessageRecord) -> OutgoingEvents
  ) async throws -> MessageSendOutcome {
    // The recipient's event is numbered by their counter: sends to one player take turns. So do
    // sends from one player: every message a player sees is then drawn its id and committed
    // while no other of theirs is being written, so their messages commit in id order, and a
    // SyncMessages cursor never passes one that a transaction still in flight will commit
    // under a lower id.
    try await writeTransaction(queueingEventsOf: [new.senderID, new.recipientID]) { db in
      // Everything a send checks, read in one statement before anything is written: a refused
      // send changes nothing. The sender's earlier message with the same client message id is
      // not read here but found by the insert itself (below): a read of that index before the
      // insert would have every send hold a predicate lock on the pages every other send
      // inserts into, and the database would refuse most sends made at the same time (to be run
      // again) for conflicts that are not there.
      let (low, high) = (min(new.senderID, new.recipientID), max(new.senderID, new.recipientID))
      guard let checks = try db.row(SendChecks.self, new.senderID, new.recipientID, low, high)
      else { throw DomainError.playerNotFound }
      let (recipientExists, senderBlocked, recipientBlocked, existingThread) =
        try checks.decode((Bool, Bool, Bool, Int64?).self)
      let hidden: Bool
      do {
        try MessageRules.checkRecipient(senderID: new.senderID, recipientID: new.recipientID)
        guard recipientExists else { throw DomainError.playerNotFound }
        hidden =
          try BlockRules.contact(
            senderBlockedRecipient: senderBlocked, recipientBlockedSender: recipientBlocked)
          == .hidden
      } catch {
        // The same message sent before is returned, whatever has changed since, as in a store
        // that looks for it first.
        if let earlier = try Self.earlier(db, new) {
          return MessageSendOutcome(message: earlier, created: false)
        }
        throw error
      }
      let threadID: Int64
      if let existingThread {
        threadID = existingThread
      } else if let earlier = try Self.earlier(db, new) {
        // Not reached for the same message, whose pair has a thread; another message under the
        // same id is refused before a thread is made for it.
        return MessageSendOutcome(message: earlier, created: false)
      } else if let row = try db.row(InsertThread.self, low, high, new.sentAtUnixMs) {
        threadID = try row.decode(Int64.self)
      } else {
        // Not reached: a thread made by a transaction this one cannot see refuses this one
        // (run again, it finds the thread), and one it can see the checks found.
        throw MessageErrors.threadNotFound
      }
      // The unique index on (sender, client message id) decides: a message stored before,
      // seen by this transaction, leaves nothing inserted; one stored by a transaction at the
      // same time refuses this one, which, run again, sees it.
      guard
        let inserted = try db.row(
          InsertMessage.self, threadID, new.senderID, new.recipientID, new.clientMessageID,
          new.text, new.sentAtUnixMs, Int64(hidden ? 1 : 0))
      else {
        // Its message is the answer; when it is another message, the id is refused.
        guard let earlier = try Self.earlier(db, new) else {
          throw MessageErrors.clientMessageIDReused
        }
        return MessageSendOutcome(message: earlier, created: false)
      }
      if hidden {
        try db.rows(JoinThread.self, new.senderID, threadID, new.recipientID)
      } else {
        try db.rows(JoinThreadBoth.self, new.senderID, threadID, new.recipientID)
      }
      // The row as stored, made here rather than read back.
      let message = MessageRecord(
        id: try inserted.decode(Int64.self), threadID: threadID, senderID: new.senderID,
        recipientID: new.recipientID, clientMessageID: new.clientMessageID, text: new.text,
        sentAtUnixMs: new.sentAtUnixMs, hidden: hidden)
      if !hidden { try Shared.append(db, notify(message), atUnixMs: new.sentAtUnixMs) }
      return MessageSendOutcome(message: message, created: true)
    }
  }

  public func acknowledgeDelivered(
    messageIDs: [Int64], recipientID: Int64, now: Int64,
    notify: @escaping @Sendable ([MessageReceiptRecord]) -> OutgoingEvents
  ) async throws -> Int {
    let ids = Array(Set(messageIDs)).sorted()
    guard !ids.isEmpty else { return 0 }
    return try await writeTransaction { db in
      let marked = try db.rows(MarkDelivered.self, now, ids, recipientID)
      let receipts = try Self.receipts(marked)
      if !receipts.isEmpty { try Shared.append(db, notify(receipts), atUnixMs: now) }
      return marked.count
    }
  }

  public func markRead(
    threadID: Int64, playerID: Int64, upToMessageID: Int64?, now: Int64,
    notify: @escaping @Sendable (MessageReceiptRecord) -> OutgoingEvents
  ) async throws -> Int {
    try await writeTransaction { db in
      guard let cleared = try Self.clearedThrough(db, threadID: threadID, playerID: playerID)
      else { throw MessageErrors.threadNotFound }
      let marked = try db.rows(
        MarkRead.self, now, threadID, playerID, cleared, upToMessageID ?? Int64.max)
      if let receipt = try Self.receipts(marked).first {
        try Shared.append(db, notify(receipt), atUnixMs: now)
      }
      return try Self.unreadCount(db, playerID: playerID)
    }
  }

  public func messages(threadID: Int64, playerID: Int64, beforeMessageID: Int64?, limit: Int)
    async throws -> [MessageRecord]
  {
    try await readSnapshot { db in
      guard let cleared = try Self.clearedThrough(db, threadID: threadID, playerID: playerID)
      else { throw MessageErrors.threadNotFound }
      return try db.rows(
        ThreadPage.self, threadID, beforeMessageID ?? Int64.max, cleared, playerID,
        Self.limit(limit, db)
      ).map(Self.message(from:))
    }
  }

  public func messages(playerID: Int64, afterMessageID: Int64, limit: Int) async throws
    -> [MessageRecord]
  {
    try await readEach { db in
      try db.rows(SyncPage.self, playerID, afterMessageID, Self.limit(limit, db))
        .map(Self.message(from:))
    }
  }

  public func threads(playerID: Int64, beforeLastMessageID: Int64?, limit: Int) async throws
    -> MessageThreadPage
  {
    try await readSnapshot { db in
      let threads = try db.rows(
        ThreadList.self, playerID, beforeLastMessageID ?? Int64.max, Self.limit(limit, db)
      ).map { row in
        let (threadID, otherID, unread) = try row.decode((Int64, Int64, Int64).self)
        return MessageThreadRecord(
          threadID: threadID, otherID: otherID, lastMessage: try Self.message(from: row, at: 3),
          unreadCount: Int(unread))
      }
      return MessageThreadPage(
        threads: threads, totalUnread: try Self.unreadCount(db, playerID: playerID))
    }
  }

  public func unreadCount(playerID: Int64) async throws -> Int {
    try await readEach { db in try Self.unreadCount(db, playerID: playerID) }
  }

  public func deleteConversation(threadID: Int64, playerID: Int64) async throws {
    try await writeTransaction { db in
      guard try Self.clearedThrough(db, threadID: threadID, playerID: playerID) != nil else {
        throw MessageErrors.threadNotFound
      }
      try db.rows(ClearThread.self, threadID, playerID)
    }
  }

  // MARK: Rows

  /// A page's `LIMIT`: a negative limit is no limit (NULL on PostgreSQL, -1 on SQLite).
  private static func limit(_ limit: Int, _ db: any StoreSession) -> Int64? {
    limit >= 0 ? Int64(limit) : db.kind == .sqlite ? -1 : nil
  }

  /// The sender's message with the same client message id: returned when it is the same
  /// message, refused when it is not; nil when there is none.
  private static func earlier(_ db: any StoreSession, _ new: NewMessage) throws
    -> MessageRecord?
  {
    guard let row = try db.row(MessageByClientID.self, new.senderID, new.clientMessageID)
    else { return nil }
    let earlier = try message(from: row)
    guard earlier.recipientID == new.recipientID, earlier.text == new.text else {
      throw MessageErrors.clientMessageIDReused
    }
    return earlier
  }

  /// The id `playerID` cleared the thread through, or nil when they are not in it.
  private static func clearedThrough(_ db: any StoreSession, threadID: Int64, playerID: Int64)
    throws -> Int64?
  {
    try db.row(ClearedThrough.self, playerID, threadID)?.decode(Int64.self)
  }

  private static func unreadCount(_ db: any StoreSession, playerID: Int64) throws -> Int {
    let count: Int64? = try db.row(UnreadCount.self, playerID)?.decode(Int64.self)
    return Int(count ?? 0)
  }

  /// The marked rows (id, thread_id, sender_id) as one receipt per thread, ids in order.
  private static func receipts(_ rows: [StoreRow]) throws -> [MessageReceiptRecord] {
    var byThread: [Int64: MessageReceiptRecord] = [:]
    for row in rows {
      let (id, threadID, senderID) = try row.decode((Int64, Int64, Int64).self)
      byThread[
        threadID,
        default: MessageReceiptRecord(threadID: threadID, senderID: senderID, messageIDs: [])
      ].messageIDs.append(id)
    }
    return byThread.values.map { receipt in
      var receipt = receipt
      receipt.messageIDs.sort()
      return receipt
    }
    .sorted { $0.threadID < $1.threadID }
  }

  /// The message whose columns (`MessageRows.columns`) start at column `first` of `row`.
  private static func message(from row: StoreRow, at first: Int) throws -> MessageRecord {
    let columns = StoreRow(Array(row.values[first...]))
    let (id, threadID, senderID, recipientID, clientMessageID, text, sentAt, deliveredAt) =
      try columns.decode((Int64, Int64, Int64, Int64, String, String, Int64, Int64?).self)
    let (readAt, hidden) = try StoreRow(Array(row.values[(first + 8)...])).decode(
      (Int64?, Bool).self)
    return MessageRecord(
      id: id, threadID: threadID, senderID: senderID, recipientID: recipientID,
      clientMessageID: clientMessageID, text: text, sentAtUnixMs: sentAt,
      deliveredAtUnixMs: deliveredAt, readAtUnixMs: readAt, hidden: hidden)
  }

  private static func message(from row: StoreRow) throws -> MessageRecord {
    try message(from: row, at: 0)
  }
}

/// What the message statements share.
enum MessageRows {
  /// The columns of a message, in the order `message(from:)` reads them.
  static let columns = """
    id, thread_id, sender_id, recipient_id, client_message_id, text, sent_at_ms, delivered_at_ms,
    read_at_ms, hidden
    """
}

// MARK: Statements

/// What a send checks, in one statement: whether the recipient ($2) exists, whether the
/// sender ($1) blocked the recipient, whether the recipient blocked the sender, and the
/// pair's thread (NULL when none; $3 the lower id, $4 the higher).
private enum SendChecks: StoreStatement {
  static let sql = """
    SELECT
      EXISTS (SELECT 1 FROM player WHERE id = $2),
      EXISTS (SELECT 1 FROM block WHERE blocker_id = $1 AND blocked_id = $2),
      EXISTS (SELECT 1 FROM block WHERE blocker_id = $2 AND blocked_id = $1),
      (SELECT id FROM message_thread WHERE low_player_id = $3 AND high_player_id = $4)
    """
}

private enum InsertThread: StoreStatement {
  static let sql = """
    INSERT INTO message_thread (low_player_id, high_player_id, created_at_ms)
    VALUES ($1, $2, $3)
    ON CONFLICT (low_player_id, high_player_id) DO NOTHING
    RETURNING id
    """
}

/// Lets the sender ($1) see the thread.
private enum JoinThread: StoreStatement {
  static let sql = """
    INSERT INTO message_thread_member (player_id, thread_id, other_id) VALUES ($1, $2, $3)
    ON CONFLICT DO NOTHING
    """
}

/// Lets both the sender ($1) and the recipient ($3) see the thread.
private enum JoinThreadBoth: StoreStatement {
  static let sql = """
    INSERT INTO message_thread_member (player_id, thread_id, other_id)
    VALUES ($1, $2, $3), ($3, $2, $1)
    ON CONFLICT DO NOTHING
    """
}

private enum InsertMessage: StoreStatement {
  static let sql = """
    INSERT INTO direct_message (thread_id, sender_id, recipient_id, client_message_id, text,
      sent_at_ms, hidden) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (sender_id, client_message_id) DO NOTHING
    RETURNING id
    """
}

private enum MessageByClientID: StoreStatement {
  static let sql = """
    SELECT \(MessageRows.columns) FROM direct_message WHERE sender_id = $1 AND client_message_id = $2
    """
}

private enum MarkDelivered: StoreStatement {
  static let sql = """
    UPDATE direct_message SET delivered_at_ms = $1
    WHERE id = ANY($2) AND recipient_id = $3 AND hidden = 0 AND delivered_at_ms IS NULL
    RETURNING id, thread_id, sender_id
    """
}

private enum MarkRead: StoreStatement {
  static let sql = """
    UPDATE direct_message SET read_at_ms = $1, delivered_at_ms = coalesce(delivered_at_ms, $1)
    WHERE thread_id = $2 AND recipient_id = $3 AND read_at_ms IS NULL AND hidden = 0
      AND id > $4 AND id <= $5
    RETURNING id, thread_id, sender_id
    """
}

/// A page of one thread, newest first: a range of the index on (thread_id, id).
enum ThreadPage: StoreStatement {
  static let sql = """
    SELECT \(MessageRows.columns) FROM direct_message
    WHERE thread_id = $1 AND id < $2 AND id > $3 AND (sender_id = $4 OR hidden = 0)
    ORDER BY id DESC LIMIT $5
    """
}

/// A page of everything a player ($1) sent or can see, oldest first: the first `limit` ($3)
/// of what they sent and the first `limit` of what they received, each walked in id order on
/// its own index and stopped there, then merged.
enum SyncPage: StoreStatement {
  static let columns = """
    m.id, m.thread_id, m.sender_id, m.recipient_id, m.client_message_id, m.text, m.sent_at_ms,
    m.delivered_at_ms, m.read_at_ms, m.hidden
    """
  static let sql = """
    SELECT * FROM (
      (SELECT \(columns) FROM direct_message AS m
        JOIN message_thread_member AS member
          ON member.thread_id = m.thread_id AND member.player_id = $1
        WHERE m.sender_id = $1 AND m.id > $2 AND m.id > member.cleared_through_id
        ORDER BY m.id LIMIT $3)
      UNION ALL
      (SELECT \(columns) FROM direct_message AS m
        JOIN message_thread_member AS member
          ON member.thread_id = m.thread_id AND member.player_id = $1
        WHERE m.recipient_id = $1 AND m.id > $2 AND m.hidden = 0
          AND m.id > member.cleared_through_id
        ORDER BY m.id LIMIT $3)) AS page
    ORDER BY id LIMIT $3
    """
  /// SQLite takes no parentheses around a compound query's parts: each is a subquery.
  static let sqlite = """
    SELECT * FROM (
      SELECT * FROM (SELECT \(columns) FROM direct_message AS m
        JOIN message_thread_member AS member
          ON member.thread_id = m.thread_id AND member.player_id = ?1
        WHERE m.sender_id = ?1 AND m.id > ?2 AND m.id > member.cleared_through_id
        ORDER BY m.id LIMIT ?3)
      UNION ALL
      SELECT * FROM (SELECT \(columns) FROM direct_message AS m
        JOIN message_thread_member AS member
          ON member.thread_id = m.thread_id AND member.player_id = ?1
        WHERE m.recipient_id = ?1 AND m.id > ?2 AND m.hidden = 0
          AND m.id > member.cleared_through_id
        ORDER BY m.id LIMIT ?3))
    ORDER BY id LIMIT ?3
    """
}

/// A page of a player's ($1) threads, latest message first: each thread's newest message the
/// player can see (a thread of none is left out), below the page's cursor ($2), with the
/// thread's unread count, then the message's columns.
private enum ThreadList: StoreStatement {
  static let sql = """
    SELECT t.thread_id, t.other_id, t.unread,
      m.id, m.thread_id, m.sender_id, m.recipient_id, m.client_message_id, m.text,
      m.sent_at_ms, m.delivered_at_ms, m.read_at_ms, m.hidden
    FROM (
      SELECT member.thread_id, member.other_id,
        (SELECT id FROM direct_message
          WHERE thread_id = member.thread_id AND id > member.cleared_through_id
            AND (sender_id = member.player_id OR hidden = 0)
          ORDER BY id DESC LIMIT 1) AS last_id,
        (SELECT count(*) FROM direct_message
          WHERE recipient_id = member.player_id AND thread_id = member.thread_id
            AND read_at_ms IS NULL AND hidden = 0 AND id > member.cleared_through_id) AS unread
      FROM message_thread_member AS member WHERE member.player_id = $1) AS t
    JOIN direct_message AS m ON m.id = t.last_id
    WHERE t.last_id < $2
    ORDER BY t.last_id DESC LIMIT $3
    """
}

private enum ClearedThrough: StoreStatement {
  static let sql = """
    SELECT cleared_through_id FROM message_thread_member WHERE player_id = $1 AND thread_id = $2
    """
}

private enum UnreadCount: StoreStatement {
  static let sql = """
    SELECT count(*) FROM direct_message
    JOIN message_thread_member AS member
      ON member.thread_id = direct_message.thread_id AND member.player_id = $1
    WHERE direct_message.recipient_id = $1 AND direct_message.read_at_ms IS NULL
      AND direct_message.hidden = 0 AND direct_message.id > member.cleared_through_id
    """
}

private enum ClearThread: StoreStatement {
  static let sql = """
    UPDATE message_thread_member SET cleared_through_id = coalesce(
      (SELECT max(id) FROM direct_message WHERE thread_id = $1), cleared_through_id)
    WHERE player_id = $2 AND thread_id = $1
    """
}
