public import BadmintonRPC

/// Messages (`badminton.v1.Messages`): every method needs authentication.
public enum Messages {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Messages"

  /// `SendMessage`: Idempotent per client message id.
  public static let sendMessage = MethodDescriptor<SendMessageRequest, DirectMessage>(
    service: serviceName, method: "SendMessage", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `AckDelivered`: The recipient only.
  public static let ackDelivered = MethodDescriptor<AckDeliveredRequest, AckDeliveredResponse>(
    service: serviceName, method: "AckDelivered", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `MarkRead`.
  public static let markRead = MethodDescriptor<MarkReadRequest, MarkReadResponse>(
    service: serviceName, method: "MarkRead", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `LoadMessages`.
  public static let loadMessages = MethodDescriptor<LoadMessagesRequest, LoadMessagesResponse>(
    service: serviceName, method: "LoadMessages", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `ListThreads`.
  public static let listThreads = MethodDescriptor<ListThreadsRequest, ListThreadsResponse>(
    service: serviceName, method: "ListThreads", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `SyncMessages`.
  public static let syncMessages = MethodDescriptor<SyncMessagesRequest, SyncMessagesResponse>(
    service: serviceName, method: "SyncMessages", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `DeleteConversation`: Hides the thread from the caller only, up to its newest message.
  public static let deleteConversation = MethodDescriptor<
    DeleteConversationRequest, DeleteConversationResponse
  >(
    service: serviceName, method: "DeleteConversation", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName,
    methods: [
      sendMessage.info, ackDelivered.info, markRead.info, loadMessages.info, listThreads.info,
      syncMessages.info, deleteConversation.info,
    ])

  /// What a `badminton.v1.Messages` service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `SendMessage`.
    func sendMessage(_ request: SendMessageRequest, context: ServerContext) async throws
      -> DirectMessage
    /// Answers `AckDelivered`.
    func ackDelivered(_ request: AckDeliveredRequest, context: ServerContext) async throws
      -> AckDeliveredResponse
    /// Answers `MarkRead`.
    func markRead(_ request: MarkReadRequest, context: ServerContext) async throws
      -> MarkReadResponse
    /// Answers `LoadMessages`.
    func loadMessages(_ request: LoadMessagesRequest, context: ServerContext) async throws
      -> LoadMessagesResponse
    /// Answers `ListThreads`.
    func listThreads(_ request: ListThreadsRequest, context: ServerContext) async throws
      -> ListThreadsResponse
    /// Answers `SyncMessages`.
    func syncMessages(_ request: SyncMessagesRequest, context: ServerContext) async throws
      -> SyncMessagesResponse
    /// Answers `DeleteConversation`.
    func deleteConversation(_ request: DeleteConversationRequest, context: ServerContext)
      async throws -> DeleteConversationResponse
  }

  /// The typed client of `badminton.v1.Messages`.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `SendMessage`.
    public func sendMessage(_ request: SendMessageRequest, options: CallOptions = CallOptions())
      async throws -> DirectMessage
    {
      try await client.unary(Messages.sendMessage, request, options: options)
    }

    /// Calls `AckDelivered`.
    public func ackDelivered(_ request: AckDeliveredRequest, options: CallOptions = CallOptions())
      async throws -> AckDeliveredResponse
    {
      try await client.unary(Messages.ackDelivered, request, options: options)
    }

    /// Calls `MarkRead`.
    public func markRead(_ request: MarkReadRequest, options: CallOptions = CallOptions())
      async throws -> MarkReadResponse
    {
      try await client.unary(Messages.markRead, request, options: options)
    }

    /// Calls `LoadMessages`.
    public func loadMessages(_ request: LoadMessagesRequest, options: CallOptions = CallOptions())
      async throws -> LoadMessagesResponse
    {
      try await client.unary(Messages.loadMessages, request, options: options)
    }

    /// Calls `ListThreads`.
    public func listThreads(_ request: ListThreadsRequest, options: CallOptions = CallOptions())
      async throws -> ListThreadsResponse
    {
      try await client.unary(Messages.listThreads, request, options: options)
    }

    /// Calls `SyncMessages`.
    public func syncMessages(_ request: SyncMessagesRequest, options: CallOptions = CallOptions())
      async throws -> SyncMessagesResponse
    {
      try await client.unary(Messages.syncMessages, request, options: options)
    }

    /// Calls `DeleteConversation`.
    public func deleteConversation(
      _ request: DeleteConversationRequest, options: CallOptions = CallOptions()
    ) async throws -> DeleteConversationResponse {
      try await client.unary(Messages.deleteConversation, request, options: options)
    }

  }
}

extension Messages.ServiceProtocol {
  /// Adds every method of `badminton.v1.Messages` to `registry`.
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Messages.sendMessage) { request, context in
      try await self.sendMessage(request, context: context)
    }
    registry.register(Messages.ackDelivered) { request, context in
      try await self.ackDelivered(request, context: context)
    }
    registry.register(Messages.markRead) { request, context in
      try await self.markRead(request, context: context)
    }
    registry.register(Messages.loadMessages) { request, context in
      try await self.loadMessages(request, context: context)
    }
    registry.register(Messages.listThreads) { request, context in
      try await self.listThreads(request, context: context)
    }
    registry.register(Messages.syncMessages) { request, context in
      try await self.syncMessages(request, context: context)
    }
    registry.register(Messages.deleteConversation) { request, context in
      try await self.deleteConversation(request, context: context)
    }
  }
}

extension RPCClient {
  /// The typed client of `badminton.v1.Messages`.
  public var messages: Messages.Client { Messages.Client(client: self) }
}
