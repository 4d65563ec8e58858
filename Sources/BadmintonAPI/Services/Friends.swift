public import BadmintonRPC

/// Friends (`badminton.v1.Friends`): every method needs authentication.
public enum Friends {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Friends"

  /// `SendFriendRequest`: Asks a player to be friends; if they already asked the caller, the two become friends.
  public static let sendFriendRequest = MethodDescriptor<SendFriendRequestRequest, FriendRequest>(
    service: serviceName, method: "SendFriendRequest", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `AcceptFriendRequest`: The recipient only: both become friends of each other in one transaction.
  public static let acceptFriendRequest = MethodDescriptor<
    AnswerFriendRequestRequest, FriendRequest
  >(
    service: serviceName, method: "AcceptFriendRequest", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `DeclineFriendRequest`: The recipient only.
  public static let declineFriendRequest = MethodDescriptor<
    AnswerFriendRequestRequest, FriendRequest
  >(
    service: serviceName, method: "DeclineFriendRequest", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `ListFriends`.
  public static let listFriends = MethodDescriptor<ListFriendsRequest, ListFriendsResponse>(
    service: serviceName, method: "ListFriends", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `ListFriendRequests`.
  public static let listFriendRequests = MethodDescriptor<
    ListFriendRequestsRequest, ListFriendRequestsResponse
  >(
    service: serviceName, method: "ListFriendRequests", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `RemoveFriend`: Ends the friendship on both sides.
  public static let removeFriend = MethodDescriptor<RemoveFriendRequest, RemoveFriendResponse>(
    service: serviceName, method: "RemoveFriend", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `Block`: Also ends a friendship and pending requests between the two.
  public static let block = MethodDescriptor<BlockRequest, BlockResponse>(
    service: serviceName, method: "Block", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `Unblock`.
  public static let unblock = MethodDescriptor<UnblockRequest, UnblockResponse>(
    service: serviceName, method: "Unblock", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `ListBlocked`.
  public static let listBlocked = MethodDescriptor<ListBlockedRequest, ListBlockedResponse>(
    service: serviceName, method: "ListBlocked", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName,
    methods: [
      sendFriendRequest.info, acceptFriendRequest.info, declineFriendRequest.info, listFriends.info,
      listFriendRequests.info, removeFriend.info, block.info, unblock.info, listBlocked.info,
    ])

  /// What a `badminton.v1.Friends` service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `SendFriendRequest`.
    func sendFriendRequest(_ request: SendFriendRequestRequest, context: ServerContext) async throws
      -> FriendRequest
    /// Answers `AcceptFriendRequest`.
    func acceptFriendRequest(_ request: AnswerFriendRequestRequest, context: ServerContext)
      async throws -> FriendRequest
    /// Answers `DeclineFriendRequest`.
    func declineFriendRequest(_ request: AnswerFriendRequestRequest, context: ServerContext)
      async throws -> FriendRequest
    /// Answers `ListFriends`.
    func listFriends(_ request: ListFriendsRequest, context: ServerContext) async throws
      -> ListFriendsResponse
    /// Answers `ListFriendRequests`.
    func listFriendRequests(_ request: ListFriendRequestsRequest, context: ServerContext)
      async throws -> ListFriendRequestsResponse
    /// Answers `RemoveFriend`.
    func removeFriend(_ request: RemoveFriendRequest, context: ServerContext) async throws
      -> RemoveFriendResponse
    /// Answers `Block`.
    func block(_ request: BlockRequest, context: ServerContext) async throws -> BlockResponse
    /// Answers `Unblock`.
    func unblock(_ request: UnblockRequest, context: ServerContext) async throws -> UnblockResponse
    /// Answers `ListBlocked`.
    func listBlocked(_ request: ListBlockedRequest, context: ServerContext) async throws
      -> ListBlockedResponse
  }

  /// The typed client of `badminton.v1.Friends`.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `SendFriendRequest`.
    public func sendFriendRequest(
      _ request: SendFriendRequestRequest, options: CallOptions = CallOptions()
    ) async throws -> FriendRequest {
      try await client.unary(Friends.sendFriendRequest, request, options: options)
    }

    /// Calls `AcceptFriendRequest`.
    public func acceptFriendRequest(
      _ request: AnswerFriendRequestRequest, options: CallOptions = CallOptions()
    ) async throws -> FriendRequest {
      try await client.unary(Friends.acceptFriendRequest, request, options: options)
    }

    /// Calls `DeclineFriendRequest`.
    public func declineFriendRequest(
      _ request: AnswerFriendRequestRequest, options: CallOptions = CallOptions()
    ) async throws -> FriendRequest {
      try await client.unary(Friends.declineFriendRequest, request, options: options)
    }

    /// Calls `ListFriends`.
    public func listFriends(_ request: ListFriendsRequest, options: CallOptions = CallOptions())
      async throws -> ListFriendsResponse
    {
      try await client.unary(Friends.listFriends, request, options: options)
    }

    /// Calls `ListFriendRequests`.
    public func listFriendRequests(
      _ request: ListFriendRequestsRequest, options: CallOptions = CallOptions()
    ) async throws -> ListFriendRequestsResponse {
      try await client.unary(Friends.listFriendRequests, request, options: options)
    }

    /// Calls `RemoveFriend`.
    public func removeFriend(_ request: RemoveFriendRequest, options: CallOptions = CallOptions())
      async throws -> RemoveFriendResponse
    {
      try await client.unary(Friends.removeFriend, request, options: options)
    }

    /// Calls `Block`.
    public func block(_ request: BlockRequest, options: CallOptions = CallOptions()) async throws
      -> BlockResponse
    {
      try await client.unary(Friends.block, request, options: options)
    }

    /// Calls `Unblock`.
    public func unblock(_ request: UnblockRequest, options: CallOptions = CallOptions())
      async throws -> UnblockResponse
    {
      try await client.unary(Friends.unblock, request, options: options)
    }

    /// Calls `ListBlocked`.
    public func listBlocked(_ request: ListBlockedRequest, options: CallOptions = CallOptions())
      async throws -> ListBlockedResponse
    {
      try await client.unary(Friends.listBlocked, request, options: options)
    }

  }
}

extension Friends.ServiceProtocol {
  /// Adds every method of `badminton.v1.Friends` to `registry`.
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Friends.sendFriendRequest) { request, context in
      try await self.sendFriendRequest(request, context: context)
    }
    registry.register(Friends.acceptFriendRequest) { request, context in
      try await self.acceptFriendRequest(request, context: context)
    }
    registry.register(Friends.declineFriendRequest) { request, context in
      try await self.declineFriendRequest(request, context: context)
    }
    registry.register(Friends.listFriends) { request, context in
      try await self.listFriends(request, context: context)
    }
    registry.register(Friends.listFriendRequests) { request, context in
      try await self.listFriendRequests(request, context: context)
    }
    registry.register(Friends.removeFriend) { request, context in
      try await self.removeFriend(request, context: context)
    }
    registry.register(Friends.block) { request, context in
      try await self.block(request, context: context)
    }
    registry.register(Friends.unblock) { request, context in
      try await self.unblock(request, context: context)
    }
    registry.register(Friends.listBlocked) { request, context in
      try await self.listBlocked(request, context: context)
    }
  }
}

extension RPCClient {
  /// The typed client of `badminton.v1.Friends`.
  public var friends: Friends.Client { Friends.Client(client: self) }
}
