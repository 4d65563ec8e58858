public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Messages`: direct messages.
public struct MessagesService: Messages.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock
  let events: EventPublisher
  let blocks: BlockBook

  /// The service over `store`.
  public init(
    store: any ServerStore, clock: any WallClock, events: EventPublisher, blocks: BlockBook
  ) {
    self.store = store
    self.clock = clock
    self.events = events
    self.blocks = blocks
  }

  public func sendMessage(_ request: SendMessageRequest, context: ServerContext) async throws
    -> DirectMessage
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "sendMessage")
    )
  }

  public func ackDelivered(_ request: AckDeliveredRequest, context: ServerContext) async throws
    -> AckDeliveredResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "ackDelivered"))
  }

  public func markRead(_ request: MarkReadRequest, context: ServerContext) async throws
    -> MarkReadResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "markRead"))
  }

  public func loadMessages(_ request: LoadMessagesRequest, context: ServerContext) async throws
    -> LoadMessagesResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "loadMessages"))
  }

  public func listThreads(_ request: ListThreadsRequest, context: ServerContext) async throws
    -> ListThreadsResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "listThreads")
    )
  }

  public func syncMessages(_ request: SyncMessagesRequest, context: ServerContext) async throws
    -> SyncMessagesResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "syncMessages"))
  }

  public func deleteConversation(_ request: DeleteConversationRequest, context: ServerContext)
    async throws -> DeleteConversationResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "deleteConversation"))
  }

}
