public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Messages`: direct messages between two players, one thread per pair.
///
/// A message from a player the recipient has blocked is stored hidden: the sender sees it like
/// any other, the recipient never does. Each write, with the events it causes, is one
/// transaction; the change feed hands the events to their players' subscribers once it commits.
/// Sends, receipts and reads commit together with the other such writes waiting at the same time
/// (group commit); each is answered only after its transaction has committed.
public struct MessagesService: Messages.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock
  let budget: ResponseBudget

  /// The kind of ListThreads' page tokens.
  static let threadListKind = "threads"

  /// The service over `store`. Blocks are read by the store inside each send's transaction, so a
  /// block committed a moment earlier always counts. Every page fits `budget`.
  public init(
    store: any ServerStore, clock: any WallClock,
    budget: ResponseBudget = ResponseBudget(maximumBodySize: WireConfiguration().maximumBodySize)
  ) {
    self.store = store
    self.clock = clock
    self.budget = budget
  }

  public func sendMessage(_ request: SendMessageRequest, context: ServerContext) async throws
    -> DirectMessage
  {
    let caller = try context.requirePrincipal().userID
    let text = try MessageRules.validateText(request.text)
    let clientMessageID = try MessageRules.validateClientMessageID(request.clientMessageID)
    let outcome = try await withKeyedAnswer({ Self.message($0.message) }) {
      try await store.sendMessage(
        NewMessage(
          senderID: caller, recipientID: request.recipientID, clientMessageID: clientMessageID,
          text: text, sentAtUnixMs: clock.nowUnixMs())
      ) { message in
        let payload = Event(body: .messageReceived(Self.message(message))).serializedBytes()
        return [(message.recipientID, payload)]
      }
    }
    return Self.message(outcome.message)
  }

  public func ackDelivered(_ request: AckDeliveredRequest, context: ServerContext) async throws
    -> AckDeliveredResponse
  {
    let caller = try context.requirePrincipal().userID
    guard request.messageIDs.count <= MessageRules.maximumAcknowledged else {
      throw MessageErrors.tooManyMessageIDs
    }
    let now = clock.nowUnixMs()
    let acknowledged = try await withKeyedAnswer({
      AckDeliveredResponse(acknowledged: Int32($0))
    }) {
      try await store.acknowledgeDelivered(
        messageIDs: request.messageIDs, recipientID: caller, now: now
      ) { receipts in
        receipts.map { Self.receiptEvent($0, kind: .delivered, at: now) }
      }
    }
    return AckDeliveredResponse(acknowledged: Int32(acknowledged))
  }

  public func markRead(_ request: MarkReadRequest, context: ServerContext) async throws
    -> MarkReadResponse
  {
    let caller = try context.requirePrincipal().userID
    let now = clock.nowUnixMs()
    let unread = try await withKeyedAnswer({ MarkReadResponse(totalUnread: Int32(clamping: $0)) }) {
      try await store.markRead(
        threadID: request.threadID, playerID: caller,
        upToMessageID: request.upToMessageID == 0 ? nil : request.upToMessageID, now: now
      ) { receipt in
        [Self.receiptEvent(receipt, kind: .read, at: now)]
      }
    }
    return MarkReadResponse(totalUnread: Int32(clamping: unread))
  }

  public func loadMessages(_ request: LoadMessagesRequest, context: ServerContext) async throws
    -> LoadMessagesResponse
  {
    let caller = try context.requirePrincipal().userID
    let limit = try MessageRules.pageLimit(request.limit, maximum: MessageRules.loadPageLimit)
    // One more than the page tells whether another page follows.
    let page = try await store.messages(
      threadID: request.threadID, playerID: caller,
      beforeMessageID: request.beforeMessageID == 0 ? nil : request.beforeMessageID,
      limit: limit + 1)
    let messages = page.map(Self.message)
    let shown = messages.prefix(budget.fitting(messages.prefix(limit)))
    return LoadMessagesResponse(
      messages: Array(shown), nextBeforeMessageID: page.count > shown.count ? shown.last!.id : 0)
  }

  public func listThreads(_ request: ListThreadsRequest, context: ServerContext) async throws
    -> ListThreadsResponse
  {
    let caller = try context.requirePrincipal().userID
    let pageSize = try PageRules.size(Int(request.pageSize))
    let before =
      try request.pageToken.isEmpty
      ? nil : PageToken.parse(request.pageToken, kind: Self.threadListKind, count: 1)[0]
    // One more than the page tells whether another page follows.
    let page = try await store.threads(
      playerID: caller, beforeLastMessageID: before, limit: pageSize + 1)
    let listed = Array(page.threads.prefix(pageSize))
    let players = try await store.players(ids: listed.map(\.otherID))
    let threads = listed.map { thread in
      MessageThread(
        id: thread.threadID,
        other: players[thread.otherID].map(PlayerCard.init) ?? PlayerCard(userID: thread.otherID),
        lastMessage: Self.message(thread.lastMessage),
        unreadCount: Int32(clamping: thread.unreadCount))
    }
    let shown = threads.prefix(budget.fitting(threads))
    let next =
      page.threads.count > shown.count
      ? PageToken(kind: Self.threadListKind, values: [shown.last!.lastMessage.id]).text : ""
    return ListThreadsResponse(
      threads: Array(shown), totalUnread: Int32(clamping: page.totalUnread), nextPageToken: next)
  }

  public func syncMessages(_ request: SyncMessagesRequest, context: ServerContext) async throws
    -> SyncMessagesResponse
  {
    let caller = try context.requirePrincipal().userID
    let limit = try MessageRules.pageLimit(request.limit, maximum: MessageRules.syncPageLimit)
    let after = max(request.afterMessageID, 0)
    let page = try await store.messages(playerID: caller, afterMessageID: after, limit: limit + 1)
    let messages = page.map(Self.message)
    let shown = messages.prefix(budget.fitting(messages.prefix(limit)))
    return SyncMessagesResponse(
      messages: Array(shown), nextAfterMessageID: shown.last?.id ?? after,
      more: page.count > shown.count)
  }

  public func deleteConversation(_ request: DeleteConversationRequest, context: ServerContext)
    async throws -> DeleteConversationResponse
  {
    let caller = try context.requirePrincipal().userID
    try await withKeyedAnswer({ (_: Void) in DeleteConversationResponse() }) {
      try await store.deleteConversation(threadID: request.threadID, playerID: caller)
    }
    return DeleteConversationResponse()
  }

  // MARK: Messages

  /// A stored message as its players see it.
  static func message(_ record: MessageRecord) -> DirectMessage {
    DirectMessage(
      id: record.id, threadID: record.threadID, senderID: record.senderID,
      recipientID: record.recipientID, clientMessageID: record.clientMessageID, text: record.text,
      sentAtUnixMs: record.sentAtUnixMs, deliveredAtUnixMs: record.deliveredAtUnixMs ?? 0,
      readAtUnixMs: record.readAtUnixMs ?? 0)
  }

  /// The receipt event for the messages' sender.
  private static func receiptEvent(
    _ receipt: MessageReceiptRecord, kind: ReceiptKind, at now: Int64
  )
    -> (playerID: Int64, payload: [UInt8])
  {
    let body = MessageReceipt(
      threadID: receipt.threadID, kind: kind, messageIDs: receipt.messageIDs, atUnixMs: now)
    return (receipt.senderID, Event(body: .messageReceipt(body)).serializedBytes())
  }
}
