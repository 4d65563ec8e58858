/// A direct message as stored.
public struct MessageRecord: Hashable, Sendable {
  /// Increasing across the server: the cursor of every page of messages.
  public var id: Int64
  /// The thread of the sender and the recipient.
  public var threadID: Int64
  /// Who wrote it.
  public var senderID: Int64
  /// Who it was written to.
  public var recipientID: Int64
  /// Chosen by the sender's client; unique per sender.
  public var clientMessageID: String
  /// What it says: 1 to 1000 characters.
  public var text: String
  /// Milliseconds since 1970-01-01 UTC.
  public var sentAtUnixMs: Int64
  /// Set when the recipient's device acknowledged it.
  public var deliveredAtUnixMs: Int64?
  /// Set when the recipient marked the thread read up to it.
  public var readAtUnixMs: Int64?
  /// Sent while the recipient had blocked the sender: the sender sees it, the recipient never
  /// does, not even after an unblock.
  public var hidden: Bool

  /// A record with the given fields.
  public init(
    id: Int64, threadID: Int64, senderID: Int64, recipientID: Int64, clientMessageID: String,
    text: String, sentAtUnixMs: Int64, deliveredAtUnixMs: Int64? = nil,
    readAtUnixMs: Int64? = nil, hidden: Bool = false
  ) {
    self.id = id
    self.threadID = threadID
    self.senderID = senderID
    self.recipientID = recipientID
    self.clientMessageID = clientMessageID
    self.text = text
    self.sentAtUnixMs = sentAtUnixMs
    self.deliveredAtUnixMs = deliveredAtUnixMs
    self.readAtUnixMs = readAtUnixMs
    self.hidden = hidden
  }
}

/// A message to send, already validated.
public struct NewMessage: Hashable, Sendable {
  /// Who writes it.
  public var senderID: Int64
  /// Who it is written to.
  public var recipientID: Int64
  /// Chosen by the sender's client: a retry with the same id returns the first result.
  public var clientMessageID: String
  /// What it says.
  public var text: String
  /// Milliseconds since 1970-01-01 UTC.
  public var sentAtUnixMs: Int64

  /// A message with the given fields.
  public init(
    senderID: Int64, recipientID: Int64, clientMessageID: String, text: String,
    sentAtUnixMs: Int64
  ) {
    self.senderID = senderID
    self.recipientID = recipientID
    self.clientMessageID = clientMessageID
    self.text = text
    self.sentAtUnixMs = sentAtUnixMs
  }
}

/// What sending gave: the stored message, and whether this call stored it or an earlier call
/// with the same client message id did.
public struct MessageSendOutcome: Hashable, Sendable {
  /// The message as stored.
  public var message: MessageRecord
  /// False when the call was a retry and returned the first result.
  public var created: Bool

  /// An outcome with the given fields.
  public init(message: MessageRecord, created: Bool) {
    self.message = message
    self.created = created
  }
}

/// Messages of one thread that became delivered or read, for the receipt to their sender.
public struct MessageReceiptRecord: Hashable, Sendable {
  /// The thread the messages are in.
  public var threadID: Int64
  /// Who sent them and gets the receipt.
  public var senderID: Int64
  /// The messages, oldest first.
  public var messageIDs: [Int64]

  /// A record with the given fields.
  public init(threadID: Int64, senderID: Int64, messageIDs: [Int64]) {
    self.threadID = threadID
    self.senderID = senderID
    self.messageIDs = messageIDs
  }
}

/// One thread as one of its players sees it.
public struct MessageThreadRecord: Hashable, Sendable {
  /// The thread's id.
  public var threadID: Int64
  /// The other player of the thread.
  public var otherID: Int64
  /// The newest message the player can see.
  public var lastMessage: MessageRecord
  /// Messages to the player they can see and have not read.
  public var unreadCount: Int

  /// A record with the given fields.
  public init(threadID: Int64, otherID: Int64, lastMessage: MessageRecord, unreadCount: Int) {
    self.threadID = threadID
    self.otherID = otherID
    self.lastMessage = lastMessage
    self.unreadCount = unreadCount
  }
}

/// A page of a player's threads and the badge read with it.
public struct MessageThreadPage: Hashable, Sendable {
  /// The threads, latest message first.
  public var threads: [MessageThreadRecord]
  /// The player's unread messages across all threads, not only this page's.
  public var totalUnread: Int

  /// A page with the given fields.
  public init(threads: [MessageThreadRecord], totalUnread: Int) {
    self.threads = threads
    self.totalUnread = totalUnread
  }
}

/// Direct messages and their threads, behind an interface of our own. Every method that writes
/// returns only after the write is committed.
///
/// What a player can see of a thread: the messages they sent, and the messages to them that are
/// not hidden, newer than the point they cleared the thread through (DeleteConversation).
public protocol MessageStore: Sendable {
  /// Sends `new`, checked in one transaction. A message of the sender's with the same client
  /// message id is returned as it is when it has the same recipient and text (`created` false),
  /// and otherwise refused with `CLIENT_MESSAGE_ID_REUSED`; two such calls at once store one
  /// message. An unknown recipient gives `PLAYER_NOT_FOUND`, and a sender who blocked the
  /// recipient `PLAYER_BLOCKED`. The pair's thread is made on its first message. When the
  /// recipient has blocked the sender, the message is stored hidden and `notify` is not asked;
  /// otherwise the events `notify` makes of the new message are written in the same transaction.
  func sendMessage(
    _ new: NewMessage, notify: @escaping @Sendable (MessageRecord) -> OutgoingEvents
  ) async throws -> MessageSendOutcome

  /// Marks delivered those of `messageIDs` that were sent to `recipientID`, are not hidden and
  /// were not delivered yet; ignores the rest. The events `notify` makes of the receipts (one per
  /// thread) are written in the same transaction. Returns how many were newly marked.
  func acknowledgeDelivered(
    messageIDs: [Int64], recipientID: Int64, now: Int64,
    notify: @escaping @Sendable ([MessageReceiptRecord]) -> OutgoingEvents
  ) async throws -> Int

  /// Marks read every message to `playerID` in the thread that the player can see, up to
  /// `upToMessageID` (nil: the newest), and delivered too where it was not yet. A thread the
  /// player is not in gives `THREAD_NOT_FOUND`. The events `notify` makes of the receipt are
  /// written in the same transaction. Returns the player's unread messages across all threads
  /// afterwards.
  func markRead(
    threadID: Int64, playerID: Int64, upToMessageID: Int64?, now: Int64,
    notify: @escaping @Sendable (MessageReceiptRecord) -> OutgoingEvents
  ) async throws -> Int

  /// Up to `limit` messages of the thread that `playerID` can see, with ids below
  /// `beforeMessageID` (nil: from the newest), newest first. A thread the player is not in gives
  /// `THREAD_NOT_FOUND`. Reads only the rows it returns and the hidden ones between them.
  func messages(threadID: Int64, playerID: Int64, beforeMessageID: Int64?, limit: Int)
    async throws -> [MessageRecord]

  /// Up to `limit` messages that `playerID` sent or can see, in any thread, with ids above
  /// `afterMessageID`, oldest first.
  func messages(playerID: Int64, afterMessageID: Int64, limit: Int) async throws
    -> [MessageRecord]

  /// Up to `limit` of the threads in which `playerID` can see a message, latest message first
  /// (by the id of the newest message they can see, which no two threads share), only those
  /// whose newest message has an id below `beforeLastMessageID` (nil: from the latest), with
  /// the player's unread messages across all threads read in the same transaction.
  func threads(playerID: Int64, beforeLastMessageID: Int64?, limit: Int) async throws
    -> MessageThreadPage

  /// The messages to `playerID` they can see and have not read, across all threads.
  func unreadCount(playerID: Int64) async throws -> Int

  /// Clears the thread from `playerID`'s view through its newest message; the other player's
  /// view is unchanged. A thread the player is not in gives `THREAD_NOT_FOUND`.
  func deleteConversation(threadID: Int64, playerID: Int64) async throws
}
