import BadmintonDomain
public import BadmintonStore
import PostgresNIO

/// Direct messages on PostgreSQL: the embedded store's tables and rules (see
/// `SQLitePlayerStore`'s message migration). Every write is one serializable transaction; the
/// unique index on (sender, client message id) decides which of two sends of the same message
/// stores it, on one instance or on two. Message ids keep their order but may skip: an insert
/// that finds the message already stored, like a transaction run again, has drawn one.
extension PostgresStore: MessageStore {
  public func sendMessage(
    _ new: NewMessage, notify: @escaping @Sendable (MessageRecord) -> OutgoingEvents
  ) async throws -> MessageSendOutcome {
    // The recipient's event is numbered by their counter: sends to one player take turns. So do
    // sends from one player: every message a player sees is then drawn its id and committed
    // while no other of theirs is being written, so their messages commit in id order, and a
    // SyncMessages cursor never passes one that a transaction still in flight will commit
    // under a lower id.
    try await write(queueingEventsOf: [new.senderID, new.recipientID]) { db in
      // Everything a send checks, read in one statement before anything is written: a refused
      // send changes nothing. The sender's earlier message with the same client message id is
      // not read here but found by the insert itself (below): a read of that index before the
      // insert would have every send hold a predicate lock on the pages every other send
      // inserts into, and the database would refuse most sends made at the same time (to be run
      // again) for conflicts that are not there.
      let (low, high) = (min(new.senderID, new.recipientID), max(new.senderID, new.recipientID))
      guard let checks = try await db.row(SendChecks.self, new.senderID, new.recipientID, low, high)
      else { throw DomainError.playerNotFound }
      let (recipientExists, senderBlocked, recipientBlocked, existingThread) =
        try checks.decode((Bool, Bool, Bool, Int64?).self)
      let hidden: Bool
      do {
        guard new.senderID != new.recipientID else { throw MessageErrors.notYourself }
        guard recipientExists else { throw DomainError.playerNotFound }
        hidden =
          try BlockRules.contact(
            senderBlockedRecipient: senderBlocked, recipientBlockedSender: recipientBlocked)
          == .hidden
      } catch {
        // The same message sent before is returned, whatever has changed since, as in a store
        // that looks for it first.
        if let earlier = try await Self.earlier(db, new) {
          return MessageSendOutcome(message: earlier, created: false)
        }
        throw error
      }
      let threadID: Int64
      if let existingThread {
        threadID = existingThread
      } else if let earlier = try await Self.earlier(db, new) {
        // Not reached for the same message, whose pair has a thread; another message under the
        // same id is refused before a thread is made for it.
        return MessageSendOutcome(message: earlier, created: false)
      } else if let row = try await db.row(InsertThread.self, low, high, new.sentAtUnixMs) {
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
        let inserted = try await db.row(
          InsertMessage.self, threadID, new.senderID, new.recipientID, new.clientMessageID,
          new.text, new.sentAtUnixMs, Int64(hidden ? 1 : 0))
      else {
        // Its message is the answer; when it is another message, the id is refused.
        guard let earlier = try await Self.earlier(db, new) else {
          throw MessageErrors.clientMessageIDReused
        }
        return MessageSendOutcome(message: earlier, created: false)
      }
      if hidden {
        try await db.rows(JoinThread.self, new.senderID, threadID, new.recipientID)
      } else {
        try await db.rows(JoinThreadBoth.self, new.senderID, threadID, new.recipientID)
      }
      // The row as stored, made here rather than read back.
      let message = MessageRecord(
        id: try inserted.decode(Int64.self), threadID: threadID, senderID: new.senderID,
        recipientID: new.recipientID, clientMessageID: new.clientMessageID, text: new.text,
        sentAtUnixMs: new.sentAtUnixMs, hidden: hidden)
      if !hidden { try await Self.append(db, notify(message), atUnixMs: new.sentAtUnixMs) }
      return MessageSendOutcome(message: message, created: true)
    }
  }

  public func acknowledgeDelivered(
    messageIDs: [Int64], recipientID: Int64, now: Int64,
    notify: @escaping @Sendable ([MessageReceiptRecord]) -> OutgoingEvents
  ) async throws -> Int {
    let ids = Array(Set(messageIDs)).sorted()
    guard !ids.isEmpty else { return 0 }
    return try await write { db in
      let marked = try await db.rows(MarkDelivered.self, now, ids, recipientID)
      let receipts = try Self.receipts(marked)
      if !receipts.isEmpty { try await Self.append(db, notify(receipts), atUnixMs: now) }
      return marked.count
    }
  }

  public func markRead(
    threadID: Int64, playerID: Int64, upToMessageID: Int64?, now: Int64,
    notify: @escaping @Sendable (MessageReceiptRecord) -> OutgoingEvents
  ) async throws -> Int {
    try await write { db in
      guard let cleared = try await Self.clearedThrough(db, threadID: threadID, playerID: playerID)
      else { throw MessageErrors.threadNotFound }
      let marked = try await db.rows(
        MarkRead.self, now, threadID, playerID, cleared, upToMessageID ?? Int64.max)
      if let receipt = try Self.receipts(marked).first {
        try await Self.append(db, notify(receipt), atUnixMs: now)
      }
      return try await Self.unreadCount(db, playerID: playerID)
    }
  }

  public func messages(threadID: Int64, playerID: Int64, beforeMessageID: Int64?, limit: Int)
    async throws -> [MessageRecord]
  {
    try await snapshot { db in
      guard let cleared = try await Self.clearedThrough(db, threadID: threadID, playerID: playerID)
      else { throw MessageErrors.threadNotFound }
      return try await db.rows(
        ThreadPage.self, threadID, beforeMessageID ?? Int64.max, cleared, playerID,
        Self.limit(limit)
      ).map(Self.message(from:))
    }
  }

  public func messages(playerID: Int64, afterMessageID: Int64, limit: Int) async throws
    -> [MessageRecord]
  {
    try await read { db in
      try await db.rows(SyncPage.self, playerID, afterMessageID, Self.limit(limit))
        .map(Self.message(from:))
    }
  }

  public func threads(playerID: Int64, beforeLastMessageID: Int64?, limit: Int) async throws
    -> MessageThreadPage
  {
    try await snapshot { db in
      let threads = try await db.rows(
        ThreadList.self, playerID, beforeLastMessageID ?? Int64.max, Self.limit(limit)
      ).map { row in
        let (threadID, otherID, unread) = try row.decode((Int64, Int64, Int64).self)
        return MessageThreadRecord(
          threadID: threadID, otherID: otherID, lastMessage: try Self.message(from: row, at: 3),
          unreadCount: Int(unread))
      }
      return MessageThreadPage(
        threads: threads, totalUnread: try await Self.unreadCount(db, playerID: playerID))
    }
  }

  public func unreadCount(playerID: Int64) async throws -> Int {
    try await read { db in try await Self.unreadCount(db, playerID: playerID) }
  }

  public func deleteConversation(threadID: Int64, playerID: Int64) async throws {
    try await write { db in
      guard try await Self.clearedThrough(db, threadID: threadID, playerID: playerID) != nil else {
        throw MessageErrors.threadNotFound
      }
      try await db.rows(ClearThread.self, threadID, playerID)
    }
  }

  // MARK: Rows

  /// A page's `LIMIT`: a negative limit is no limit, as in SQLite.
  private static func limit(_ limit: Int) -> Int64? {
    limit < 0 ? nil : Int64(limit)
  }

  /// The sender's message with the same client message id: returned when it is the same
  /// message, refused when it is not; nil when there is none.
  private static func earlier(_ db: SQLConnection, _ new: NewMessage) async throws
    -> MessageRecord?
  {
    guard let row = try await db.row(MessageByClientID.self, new.senderID, new.clientMessageID)
    else { return nil }
    let earlier = try message(from: row)
    guard earlier.recipientID == new.recipientID, earlier.text == new.text else {
      throw MessageErrors.clientMessageIDReused
    }
    return earlier
  }

  /// The id `playerID` cleared the thread through, or nil when they are not in it.
  private static func clearedThrough(_ db: SQLConnection, threadID: Int64, playerID: Int64)
    async throws -> Int64?
  {
    try await db.row(ClearedThrough.self, playerID, threadID)?.decode(Int64.self)
  }

  private static func unreadCount(_ db: SQLConnection, playerID: Int64) async throws -> Int {
    Int(try await db.row(UnreadCount.self, playerID)?.decode(Int64.self) ?? 0)
  }

  /// The marked rows (id, thread_id, sender_id) as one receipt per thread, ids in order.
  private static func receipts(_ rows: [PostgresRow]) throws -> [MessageReceiptRecord] {
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

  /// The columns of a message, in the order `message(from:)` reads them.
  static let messageColumns = """
    id, thread_id, sender_id, recipient_id, client_message_id, text, sent_at_ms, delivered_at_ms,
    read_at_ms, hidden
    """

  /// The message whose columns (`messageColumns`) start at column `first` of `row`.
  private static func message(from row: PostgresRow, at first: Int) throws -> MessageRecord {
    var columns = Columns(row, from: first)
    return MessageRecord(
      id: try columns.next(Int64.self), threadID: try columns.next(Int64.self),
      senderID: try columns.next(Int64.self), recipientID: try columns.next(Int64.self),
      clientMessageID: try columns.next(String.self), text: try columns.next(String.self),
      sentAtUnixMs: try columns.next(Int64.self),
      deliveredAtUnixMs: try columns.next(Int64?.self),
      readAtUnixMs: try columns.next(Int64?.self), hidden: try columns.next(Int64.self) != 0)
  }

  private static func message(from row: PostgresRow) throws -> MessageRecord {
    try message(from: row, at: 0)
  }

  // MARK: Statements

  /// What a send checks, in one statement: whether the recipient ($2) exists, whether the
  /// sender ($1) blocked the recipient, whether the recipient blocked the sender, and the
  /// pair's thread (NULL when none; $3 the lower id, $4 the higher).
  enum SendChecks: SQLStatement {
    static let sql = """
      SELECT
        EXISTS (SELECT 1 FROM player WHERE id = $2),
        EXISTS (SELECT 1 FROM block WHERE blocker_id = $1 AND blocked_id = $2),
        EXISTS (SELECT 1 FROM block WHERE blocker_id = $2 AND blocked_id = $1),
        (SELECT id FROM message_thread WHERE low_player_id = $3 AND high_player_id = $4)
      """
  }

  enum InsertThread: SQLStatement {
    static let sql = """
      INSERT INTO message_thread (low_player_id, high_player_id, created_at_ms)
      VALUES ($1, $2, $3)
      ON CONFLICT (low_player_id, high_player_id) DO NOTHING
      RETURNING id
      """
  }

  /// Lets the sender ($1) see the thread.
  enum JoinThread: SQLStatement {
    static let sql = """
      INSERT INTO message_thread_member (player_id, thread_id, other_id) VALUES ($1, $2, $3)
      ON CONFLICT DO NOTHING
      """
  }

  /// Lets both the sender ($1) and the recipient ($3) see the thread.
  enum JoinThreadBoth: SQLStatement {
    static let sql = """
      INSERT INTO message_thread_member (player_id, thread_id, other_id)
      VALUES ($1, $2, $3), ($3, $2, $1)
      ON CONFLICT DO NOTHING
      """
  }

  enum InsertMessage: SQLStatement {
    static let sql = """
      INSERT INTO direct_message (thread_id, sender_id, recipient_id, client_message_id, text,
        sent_at_ms, hidden) VALUES ($1, $2, $3, $4, $5, $6, $7)
      ON CONFLICT (sender_id, client_message_id) DO NOTHING
      RETURNING id
      """
  }

  enum MessageByClientID: SQLStatement {
    static let sql = """
      SELECT \(messageColumns) FROM direct_message WHERE sender_id = $1 AND client_message_id = $2
      """
  }

  enum MarkDelivered: SQLStatement {
    static let sql = """
      UPDATE direct_message SET delivered_at_ms = $1
      WHERE id = ANY($2) AND recipient_id = $3 AND hidden = 0 AND delivered_at_ms IS NULL
      RETURNING id, thread_id, sender_id
      """
  }

  enum MarkRead: SQLStatement {
    static let sql = """
      UPDATE direct_message SET read_at_ms = $1, delivered_at_ms = coalesce(delivered_at_ms, $1)
      WHERE thread_id = $2 AND recipient_id = $3 AND read_at_ms IS NULL AND hidden = 0
        AND id > $4 AND id <= $5
      RETURNING id, thread_id, sender_id
      """
  }

  /// A page of one thread, newest first: a range of the index on (thread_id, id).
  enum ThreadPage: SQLStatement {
    static let sql = """
      SELECT \(messageColumns) FROM direct_message
      WHERE thread_id = $1 AND id < $2 AND id > $3 AND (sender_id = $4 OR hidden = 0)
      ORDER BY id DESC LIMIT $5
      """
  }

  /// A page of everything a player ($1) sent or can see, oldest first: the first `limit` ($3)
  /// of what they sent and the first `limit` of what they received, each walked in id order on
  /// its own index and stopped there, then merged.
  enum SyncPage: SQLStatement {
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
  }

  /// A page of a player's ($1) threads, latest message first: each thread's newest message the
  /// player can see (a thread of none is left out), below the page's cursor ($2), with the
  /// thread's unread count, then the message's columns.
  enum ThreadList: SQLStatement {
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

  enum ClearedThrough: SQLStatement {
    static let sql = """
      SELECT cleared_through_id FROM message_thread_member WHERE player_id = $1 AND thread_id = $2
      """
  }

  enum UnreadCount: SQLStatement {
    static let sql = """
      SELECT count(*) FROM direct_message
      JOIN message_thread_member AS member
        ON member.thread_id = direct_message.thread_id AND member.player_id = $1
      WHERE direct_message.recipient_id = $1 AND direct_message.read_at_ms IS NULL
        AND direct_message.hidden = 0 AND direct_message.id > member.cleared_through_id
      """
  }

  enum ClearThread: SQLStatement {
    static let sql = """
      UPDATE message_thread_member SET cleared_through_id = coalesce(
        (SELECT max(id) FROM direct_message WHERE thread_id = $1), cleared_through_id)
      WHERE player_id = $2 AND thread_id = $1
      """
  }
}

/// A row's columns read one after the other from a given one: for rows that hold a record's
/// columns after others.
struct Columns {
  /// The row has fewer columns than a reader asked for.
  struct Missing: Error {}

  private var cells: PostgresRow.Iterator

  /// The columns of `row` from the one at `first` (counted from 0).
  init(_ row: PostgresRow, from first: Int) {
    cells = row.makeIterator()
    for _ in 0..<first { _ = cells.next() }
  }

  /// The next column, as a `T`.
  mutating func next<T: PostgresDecodable>(_: T.Type) throws -> T {
    guard let cell = cells.next() else { throw Missing() }
    return try cell.decode(T.self)
  }
}
