public import BadmintonRPC
public import CBadmintonProto

/// `badminton.v1.DirectMessage`.
public struct DirectMessage: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.DirectMessage`.
  public typealias CMessage = Badminton__V1__DirectMessage
  /// protoc-c's descriptor of `badminton.v1.DirectMessage`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.DirectMessage")

  /// Increasing across the server: the cursor of LoadMessages and SyncMessages.
  public var id: Int64
  /// Thread id.
  public var threadID: Int64
  /// Sender id.
  public var senderID: Int64
  /// Recipient id.
  public var recipientID: Int64
  /// Client message id.
  public var clientMessageID: String
  /// 1 to 1000 characters (grapheme clusters).
  public var text: String
  /// Sent at unix ms.
  public var sentAtUnixMs: Int64
  /// Set when the recipient's device acknowledged it.
  public var deliveredAtUnixMs: Int64
  /// Set when the recipient marked the thread read up to it.
  public var readAtUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(id: 0) }

  /// A message with the given fields.
  public init(
    id: Int64 = 0,
    threadID: Int64 = 0,
    senderID: Int64 = 0,
    recipientID: Int64 = 0,
    clientMessageID: String = "",
    text: String = "",
    sentAtUnixMs: Int64 = 0,
    deliveredAtUnixMs: Int64 = 0,
    readAtUnixMs: Int64 = 0
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
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.id = c.id
    self.threadID = c.thread_id
    self.senderID = c.sender_id
    self.recipientID = c.recipient_id
    self.clientMessageID = CField.string(c.client_message_id)
    self.text = CField.string(c.text)
    self.sentAtUnixMs = c.sent_at_unix_ms
    self.deliveredAtUnixMs = c.delivered_at_unix_ms
    self.readAtUnixMs = c.read_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__direct_message__init(&c)
    c.id = id
    c.thread_id = threadID
    c.sender_id = senderID
    c.recipient_id = recipientID
    c.client_message_id = arena.string(clientMessageID)
    c.text = arena.string(text)
    c.sent_at_unix_ms = sentAtUnixMs
    c.delivered_at_unix_ms = deliveredAtUnixMs
    c.read_at_unix_ms = readAtUnixMs
    return c
  }
}

/// `badminton.v1.SendMessageRequest`.
public struct SendMessageRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SendMessageRequest`.
  public typealias CMessage = Badminton__V1__SendMessageRequest
  /// protoc-c's descriptor of `badminton.v1.SendMessageRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SendMessageRequest")

  /// Recipient id.
  public var recipientID: Int64
  /// Chosen by the client, 1 to 64 characters: a retry with the same id returns the first result.
  public var clientMessageID: String
  /// Text.
  public var text: String

  /// The message with every field at its default.
  public init() { self.init(recipientID: 0) }

  /// A message with the given fields.
  public init(
    recipientID: Int64 = 0,
    clientMessageID: String = "",
    text: String = ""
  ) {
    self.recipientID = recipientID
    self.clientMessageID = clientMessageID
    self.text = text
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.recipientID = c.recipient_id
    self.clientMessageID = CField.string(c.client_message_id)
    self.text = CField.string(c.text)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__send_message_request__init(&c)
    c.recipient_id = recipientID
    c.client_message_id = arena.string(clientMessageID)
    c.text = arena.string(text)
    return c
  }
}

/// `badminton.v1.AckDeliveredRequest`.
public struct AckDeliveredRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.AckDeliveredRequest`.
  public typealias CMessage = Badminton__V1__AckDeliveredRequest
  /// protoc-c's descriptor of `badminton.v1.AckDeliveredRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.AckDeliveredRequest")

  /// Messages sent to the caller; up to 500.
  public var messageIDs: [Int64]

  /// The message with every field at its default.
  public init() { self.init(messageIDs: []) }

  /// A message with the given fields.
  public init(
    messageIDs: [Int64] = []
  ) {
    self.messageIDs = messageIDs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    if let ids = c.message_ids {
      self.messageIDs = Array(UnsafeBufferPointer(start: ids, count: c.n_message_ids))
    } else {
      self.messageIDs = []
    }
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__ack_delivered_request__init(&c)
    (c.n_message_ids, c.message_ids) = arena.scalars(messageIDs)
    return c
  }
}

/// `badminton.v1.AckDeliveredResponse`.
public struct AckDeliveredResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.AckDeliveredResponse`.
  public typealias CMessage = Badminton__V1__AckDeliveredResponse
  /// protoc-c's descriptor of `badminton.v1.AckDeliveredResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.AckDeliveredResponse")

  /// How many were newly marked delivered.
  public var acknowledged: Int32

  /// The message with every field at its default.
  public init() { self.init(acknowledged: 0) }

  /// A message with the given fields.
  public init(
    acknowledged: Int32 = 0
  ) {
    self.acknowledged = acknowledged
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.acknowledged = c.acknowledged
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__ack_delivered_response__init(&c)
    c.acknowledged = acknowledged
    return c
  }
}

/// `badminton.v1.MarkReadRequest`.
public struct MarkReadRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.MarkReadRequest`.
  public typealias CMessage = Badminton__V1__MarkReadRequest
  /// protoc-c's descriptor of `badminton.v1.MarkReadRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.MarkReadRequest")

  /// Thread id.
  public var threadID: Int64
  /// Every message to the caller in the thread up to this one is read; 0: up to the newest.
  public var upToMessageID: Int64

  /// The message with every field at its default.
  public init() { self.init(threadID: 0) }

  /// A message with the given fields.
  public init(
    threadID: Int64 = 0,
    upToMessageID: Int64 = 0
  ) {
    self.threadID = threadID
    self.upToMessageID = upToMessageID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.threadID = c.thread_id
    self.upToMessageID = c.up_to_message_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__mark_read_request__init(&c)
    c.thread_id = threadID
    c.up_to_message_id = upToMessageID
    return c
  }
}

/// `badminton.v1.MarkReadResponse`.
public struct MarkReadResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.MarkReadResponse`.
  public typealias CMessage = Badminton__V1__MarkReadResponse
  /// protoc-c's descriptor of `badminton.v1.MarkReadResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.MarkReadResponse")

  /// The caller's unread messages across all threads, after marking.
  public var totalUnread: Int32

  /// The message with every field at its default.
  public init() { self.init(totalUnread: 0) }

  /// A message with the given fields.
  public init(
    totalUnread: Int32 = 0
  ) {
    self.totalUnread = totalUnread
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.totalUnread = c.total_unread
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__mark_read_response__init(&c)
    c.total_unread = totalUnread
    return c
  }
}

/// `badminton.v1.LoadMessagesRequest`.
public struct LoadMessagesRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LoadMessagesRequest`.
  public typealias CMessage = Badminton__V1__LoadMessagesRequest
  /// protoc-c's descriptor of `badminton.v1.LoadMessagesRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LoadMessagesRequest")

  /// Thread id.
  public var threadID: Int64
  /// Only messages with a smaller id; 0: from the newest.
  public var beforeMessageID: Int64
  /// 1-50; 0 = 50.
  public var limit: Int32

  /// The message with every field at its default.
  public init() { self.init(threadID: 0) }

  /// A message with the given fields.
  public init(
    threadID: Int64 = 0,
    beforeMessageID: Int64 = 0,
    limit: Int32 = 0
  ) {
    self.threadID = threadID
    self.beforeMessageID = beforeMessageID
    self.limit = limit
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.threadID = c.thread_id
    self.beforeMessageID = c.before_message_id
    self.limit = c.limit
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__load_messages_request__init(&c)
    c.thread_id = threadID
    c.before_message_id = beforeMessageID
    c.limit = limit
    return c
  }
}

/// `badminton.v1.LoadMessagesResponse`.
public struct LoadMessagesResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LoadMessagesResponse`.
  public typealias CMessage = Badminton__V1__LoadMessagesResponse
  /// protoc-c's descriptor of `badminton.v1.LoadMessagesResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LoadMessagesResponse")

  /// Newest first.
  public var messages: [DirectMessage]
  /// The `before_message_id` of the next page; 0 when there is none.
  public var nextBeforeMessageID: Int64

  /// The message with every field at its default.
  public init() { self.init(messages: []) }

  /// A message with the given fields.
  public init(
    messages: [DirectMessage] = [],
    nextBeforeMessageID: Int64 = 0
  ) {
    self.messages = messages
    self.nextBeforeMessageID = nextBeforeMessageID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.messages = try CField.messages(c.n_messages, c.messages, as: DirectMessage.self)
    self.nextBeforeMessageID = c.next_before_message_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__load_messages_response__init(&c)
    (c.n_messages, c.messages) = arena.messages(messages)
    c.next_before_message_id = nextBeforeMessageID
    return c
  }
}

/// `badminton.v1.ListThreadsRequest`.
public struct ListThreadsRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListThreadsRequest`.
  public typealias CMessage = Badminton__V1__ListThreadsRequest
  /// protoc-c's descriptor of `badminton.v1.ListThreadsRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListThreadsRequest")

  /// 1-100; 0 = 20.
  public var pageSize: Int32
  /// The previous page's `nextPageToken`; empty for the first page.
  public var pageToken: String

  /// The message with every field at its default.
  public init() { self.init(pageSize: 0) }

  /// A message with the given fields.
  public init(pageSize: Int32 = 0, pageToken: String = "") {
    self.pageSize = pageSize
    self.pageToken = pageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.pageSize = c.page_size
    self.pageToken = CField.string(c.page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_threads_request__init(&c)
    c.page_size = pageSize
    c.page_token = arena.string(pageToken)
    return c
  }
}

/// `badminton.v1.MessageThread`.
public struct MessageThread: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.MessageThread`.
  public typealias CMessage = Badminton__V1__MessageThread
  /// protoc-c's descriptor of `badminton.v1.MessageThread`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.MessageThread")

  /// Id.
  public var id: Int64
  /// Other. Always encoded; all defaults when absent on the wire.
  public var other: PlayerCard
  /// Last message. Always encoded; all defaults when absent on the wire.
  public var lastMessage: DirectMessage
  /// Unread count.
  public var unreadCount: Int32

  /// The message with every field at its default.
  public init() { self.init(id: 0) }

  /// A message with the given fields.
  public init(
    id: Int64 = 0,
    other: PlayerCard = PlayerCard(),
    lastMessage: DirectMessage = DirectMessage(),
    unreadCount: Int32 = 0
  ) {
    self.id = id
    self.other = other
    self.lastMessage = lastMessage
    self.unreadCount = unreadCount
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.id = c.id
    self.other = try CField.message(c.other, as: PlayerCard.self) ?? PlayerCard()
    self.lastMessage = try CField.message(c.last_message, as: DirectMessage.self) ?? DirectMessage()
    self.unreadCount = c.unread_count
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__message_thread__init(&c)
    c.id = id
    c.other = arena.pointer(to: other.cMessage(in: arena))
    c.last_message = arena.pointer(to: lastMessage.cMessage(in: arena))
    c.unread_count = unreadCount
    return c
  }
}

/// `badminton.v1.ListThreadsResponse`.
public struct ListThreadsResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListThreadsResponse`.
  public typealias CMessage = Badminton__V1__ListThreadsResponse
  /// protoc-c's descriptor of `badminton.v1.ListThreadsResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListThreadsResponse")

  /// Latest message first.
  public var threads: [MessageThread]
  /// The badge: unread messages across all threads, not only this page's.
  public var totalUnread: Int32
  /// The `pageToken` of the next page; empty when this page is the last.
  public var nextPageToken: String

  /// The message with every field at its default.
  public init() { self.init(threads: []) }

  /// A message with the given fields.
  public init(
    threads: [MessageThread] = [],
    totalUnread: Int32 = 0,
    nextPageToken: String = ""
  ) {
    self.threads = threads
    self.totalUnread = totalUnread
    self.nextPageToken = nextPageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.threads = try CField.messages(c.n_threads, c.threads, as: MessageThread.self)
    self.totalUnread = c.total_unread
    self.nextPageToken = CField.string(c.next_page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_threads_response__init(&c)
    (c.n_threads, c.threads) = arena.messages(threads)
    c.total_unread = totalUnread
    c.next_page_token = arena.string(nextPageToken)
    return c
  }
}

/// `badminton.v1.SyncMessagesRequest`.
public struct SyncMessagesRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SyncMessagesRequest`.
  public typealias CMessage = Badminton__V1__SyncMessagesRequest
  /// protoc-c's descriptor of `badminton.v1.SyncMessagesRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SyncMessagesRequest")

  /// Messages with a larger id; 0: from the start.
  public var afterMessageID: Int64
  /// 1-500; 0 = 500.
  public var limit: Int32

  /// The message with every field at its default.
  public init() { self.init(afterMessageID: 0) }

  /// A message with the given fields.
  public init(
    afterMessageID: Int64 = 0,
    limit: Int32 = 0
  ) {
    self.afterMessageID = afterMessageID
    self.limit = limit
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.afterMessageID = c.after_message_id
    self.limit = c.limit
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__sync_messages_request__init(&c)
    c.after_message_id = afterMessageID
    c.limit = limit
    return c
  }
}

/// `badminton.v1.SyncMessagesResponse`.
public struct SyncMessagesResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SyncMessagesResponse`.
  public typealias CMessage = Badminton__V1__SyncMessagesResponse
  /// protoc-c's descriptor of `badminton.v1.SyncMessagesResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SyncMessagesResponse")

  /// Oldest first: every message the caller sent or can see.
  public var messages: [DirectMessage]
  /// The cursor for the next call.
  public var nextAfterMessageID: Int64
  /// More messages wait after this page.
  public var more: Bool

  /// The message with every field at its default.
  public init() { self.init(messages: []) }

  /// A message with the given fields.
  public init(
    messages: [DirectMessage] = [],
    nextAfterMessageID: Int64 = 0,
    more: Bool = false
  ) {
    self.messages = messages
    self.nextAfterMessageID = nextAfterMessageID
    self.more = more
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.messages = try CField.messages(c.n_messages, c.messages, as: DirectMessage.self)
    self.nextAfterMessageID = c.next_after_message_id
    self.more = c.more != 0
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__sync_messages_response__init(&c)
    (c.n_messages, c.messages) = arena.messages(messages)
    c.next_after_message_id = nextAfterMessageID
    c.more = more ? 1 : 0
    return c
  }
}

/// `badminton.v1.DeleteConversationRequest`.
public struct DeleteConversationRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.DeleteConversationRequest`.
  public typealias CMessage = Badminton__V1__DeleteConversationRequest
  /// protoc-c's descriptor of `badminton.v1.DeleteConversationRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.DeleteConversationRequest")

  /// Thread id.
  public var threadID: Int64

  /// The message with every field at its default.
  public init() { self.init(threadID: 0) }

  /// A message with the given fields.
  public init(
    threadID: Int64 = 0
  ) {
    self.threadID = threadID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.threadID = c.thread_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__delete_conversation_request__init(&c)
    c.thread_id = threadID
    return c
  }
}

/// `badminton.v1.DeleteConversationResponse`.
public struct DeleteConversationResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.DeleteConversationResponse`.
  public typealias CMessage = Badminton__V1__DeleteConversationResponse
  /// protoc-c's descriptor of `badminton.v1.DeleteConversationResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.DeleteConversationResponse")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__delete_conversation_response__init(&c)
    return c
  }
}

/// `badminton.v1.ReceiptKind`. (`badminton.v1.ReceiptKind`).
public struct ReceiptKind: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `RECEIPT_KIND_UNSPECIFIED`.
  public static let unspecified = ReceiptKind(rawValue: 0)
  /// `RECEIPT_DELIVERED`.
  public static let delivered = ReceiptKind(rawValue: 1)
  /// `RECEIPT_READ`.
  public static let read = ReceiptKind(rawValue: 2)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "RECEIPT_KIND_UNSPECIFIED"
    case 1: "RECEIPT_DELIVERED"
    case 2: "RECEIPT_READ"
    default: "RECEIPT_KIND_\(rawValue)"
    }
  }
}

/// Event body: the recipient's device got, or the recipient read, messages the player sent. (`badminton.v1.MessageReceipt`).
public struct MessageReceipt: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.MessageReceipt`.
  public typealias CMessage = Badminton__V1__MessageReceipt
  /// protoc-c's descriptor of `badminton.v1.MessageReceipt`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.MessageReceipt")

  /// Thread id.
  public var threadID: Int64
  /// Kind.
  public var kind: ReceiptKind
  /// Message ids.
  public var messageIDs: [Int64]
  /// At unix ms.
  public var atUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(threadID: 0) }

  /// A message with the given fields.
  public init(
    threadID: Int64 = 0,
    kind: ReceiptKind = .unspecified,
    messageIDs: [Int64] = [],
    atUnixMs: Int64 = 0
  ) {
    self.threadID = threadID
    self.kind = kind
    self.messageIDs = messageIDs
    self.atUnixMs = atUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.threadID = c.thread_id
    self.kind = ReceiptKind(rawValue: CField.enumValue(c.kind))
    if let ids = c.message_ids {
      self.messageIDs = Array(UnsafeBufferPointer(start: ids, count: c.n_message_ids))
    } else {
      self.messageIDs = []
    }
    self.atUnixMs = c.at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__message_receipt__init(&c)
    c.thread_id = threadID
    c.kind = CField.cEnum(kind.rawValue, as: Badminton__V1__ReceiptKind.self)
    (c.n_message_ids, c.message_ids) = arena.scalars(messageIDs)
    c.at_unix_ms = atUnixMs
    return c
  }
}
