public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Friends`: friends and blocking.
public struct FriendsService: Friends.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock
  let events: EventPublisher
  let blocks: BlockBook

  /// The service over `store`; blocks are also recorded in `blocks`.
  public init(
    store: any ServerStore, clock: any WallClock, events: EventPublisher, blocks: BlockBook
  ) {
    self.store = store
    self.clock = clock
    self.events = events
    self.blocks = blocks
  }

  public func block(_ request: BlockRequest, context: ServerContext) async throws -> BlockResponse {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "block"))
  }

  public func unblock(_ request: UnblockRequest, context: ServerContext) async throws
    -> UnblockResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "unblock"))
  }

  public func sendFriendRequest(_ request: SendFriendRequestRequest, context: ServerContext)
    async throws -> FriendRequest
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "sendFriendRequest"))
  }

  public func acceptFriendRequest(_ request: AnswerFriendRequestRequest, context: ServerContext)
    async throws -> FriendRequest
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "acceptFriendRequest"))
  }

  public func declineFriendRequest(_ request: AnswerFriendRequestRequest, context: ServerContext)
    async throws -> FriendRequest
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "declineFriendRequest"))
  }

  public func listFriends(_ request: ListFriendsRequest, context: ServerContext) async throws
    -> ListFriendsResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "listFriends")
    )
  }

  public func listFriendRequests(_ request: ListFriendRequestsRequest, context: ServerContext)
    async throws -> ListFriendRequestsResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "listFriendRequests"))
  }

  public func removeFriend(_ request: RemoveFriendRequest, context: ServerContext) async throws
    -> RemoveFriendResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "removeFriend"))
  }

  public func listBlocked(_ request: ListBlockedRequest, context: ServerContext) async throws
    -> ListBlockedResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "listBlocked")
    )
  }

}
