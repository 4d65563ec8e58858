public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Friends`: friend requests, friends and blocks. A blocked player is never told:
/// a friend request they send to the blocker succeeds as any other, but the blocker never sees
/// it. Blocking also ends a friendship and the pending requests between the two.
public struct FriendsService: Friends.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock
  let events: EventPublisher
  let budget: ResponseBudget

  /// The kind of the page tokens of the requests a player received.
  static let receivedRequestsKind = "receivedrequests"
  /// The kind of the page tokens of the requests a player sent.
  static let sentRequestsKind = "sentrequests"

  /// The service over `store`; the blocks it stores reach the `BlockBook` through the store's
  /// feed. Every page fits `budget`.
  public init(
    store: any ServerStore, clock: any WallClock, events: EventPublisher,
    budget: ResponseBudget = ResponseBudget(maximumBodySize: WireConfiguration().maximumBodySize)
  ) {
    self.store = store
    self.clock = clock
    self.events = events
    self.budget = budget
  }

  public func sendFriendRequest(_ request: SendFriendRequestRequest, context: ServerContext)
    async throws -> FriendRequest
  {
    let caller = try context.requirePrincipal()
    let now = clock.nowUnixMs()
    let players = try await store.players(ids: [caller.userID, request.userID])
    let record = try await withKeyedAnswer({ Self.message($0, players: players) }) {
      try await store.sendFriendRequest(
        from: caller.userID, to: request.userID, now: now
      ) { record in
        let message = Self.message(record, players: players)
        // A request of the recipient's that this one accepted tells its sender, as an acceptance
        // would; a new request tells its recipient.
        let body: Event.Body =
          record.state == .accepted
          ? .friendRequestAccepted(message) : .friendRequestReceived(message)
        let to = record.state == .accepted ? record.senderID : record.recipientID
        return [(to, Event(body: body).serializedBytes())]
      }
    }
    return Self.message(record, players: players)
  }

  public func acceptFriendRequest(_ request: AnswerFriendRequestRequest, context: ServerContext)
    async throws -> FriendRequest
  {
    try await answer(request, accept: true, context: context)
  }

  public func declineFriendRequest(_ request: AnswerFriendRequestRequest, context: ServerContext)
    async throws -> FriendRequest
  {
    try await answer(request, accept: false, context: context)
  }

  /// Accepts or declines; an acceptance is an event to the sender, in the same transaction.
  private func answer(_ request: AnswerFriendRequestRequest, accept: Bool, context: ServerContext)
    async throws -> FriendRequest
  {
    let caller = try context.requirePrincipal()
    let now = clock.nowUnixMs()
    guard let found = try await store.friendRequest(id: request.requestID),
      found.recipientID == caller.userID, !found.hidden
    else { throw SocialErrors.requestNotFound }
    let players = try await store.players(ids: [found.senderID, found.recipientID])
    let record = try await withKeyedAnswer({ Self.message($0, players: players) }) {
      try await store.answerFriendRequest(
        id: found.id, recipientID: caller.userID, accept: accept, now: now
      ) { record in
        guard record.state == .accepted else { return [] }
        let body = Event.Body.friendRequestAccepted(Self.message(record, players: players))
        return [(record.senderID, Event(body: body).serializedBytes())]
      }
    }
    return Self.message(record, players: players)
  }

  public func listFriends(_ request: ListFriendsRequest, context: ServerContext) async throws
    -> ListFriendsResponse
  {
    let caller = try context.requirePrincipal()
    let friends = try await store.friends(playerID: caller.userID)
    let players = try await store.players(ids: friends.map(\.friendID))
    return ListFriendsResponse(
      friends: friends.compactMap { friend in
        players[friend.friendID].map {
          Friend(player: PlayerCard($0), sinceUnixMs: friend.sinceUnixMs)
        }
      }.sorted { ($0.player.nickname, $0.player.userID) < ($1.player.nickname, $1.player.userID) })
  }

  public func listFriendRequests(_ request: ListFriendRequestsRequest, context: ServerContext)
    async throws -> ListFriendRequestsResponse
  {
    let caller = try context.requirePrincipal()
    let pageSize = try PageRules.size(Int(request.pageSize))
    let kind = request.outgoing ? Self.sentRequestsKind : Self.receivedRequestsKind
    let before =
      try request.pageToken.isEmpty
      ? nil : PageToken.parse(request.pageToken, kind: kind, count: 1)[0]
    // One more than the page tells whether another page follows.
    let page = try await store.friendRequests(
      playerID: caller.userID, outgoing: request.outgoing, beforeID: before, limit: pageSize + 1)
    let listed = Array(page.prefix(pageSize))
    let ids = Set(listed.flatMap { [$0.senderID, $0.recipientID] })
    let players = try await store.players(ids: Array(ids))
    let requests = listed.map { Self.message($0, players: players) }
    let shown = Array(requests.prefix(budget.fitting(requests)))
    let next =
      page.count > shown.count ? PageToken(kind: kind, values: [shown.last!.id]).text : ""
    return request.outgoing
      ? ListFriendRequestsResponse(outgoing: shown, nextPageToken: next)
      : ListFriendRequestsResponse(incoming: shown, nextPageToken: next)
  }

  public func removeFriend(_ request: RemoveFriendRequest, context: ServerContext) async throws
    -> RemoveFriendResponse
  {
    let caller = try context.requirePrincipal()
    // Not being friends is the outcome asked for: a retry, or a removal by the other side first,
    // succeeds as well.
    _ = try await withKeyedAnswer({ (_: Bool) in RemoveFriendResponse() }) {
      try await store.removeFriend(playerID: caller.userID, friendID: request.userID)
    }
    return RemoveFriendResponse()
  }

  public func block(_ request: BlockRequest, context: ServerContext) async throws -> BlockResponse {
    let caller = try context.requirePrincipal()
    let now = clock.nowUnixMs()
    try await withKeyedAnswer({ (_: Void) in BlockResponse() }) {
      try await store.block(blockerID: caller.userID, blockedID: request.userID, now: now)
    }
    return BlockResponse()
  }

  public func unblock(_ request: UnblockRequest, context: ServerContext) async throws
    -> UnblockResponse
  {
    let caller = try context.requirePrincipal()
    _ = try await withKeyedAnswer({ (_: Bool) in UnblockResponse() }) {
      try await store.unblock(blockerID: caller.userID, blockedID: request.userID)
    }
    return UnblockResponse()
  }

  public func listBlocked(_ request: ListBlockedRequest, context: ServerContext) async throws
    -> ListBlockedResponse
  {
    let caller = try context.requirePrincipal()
    let blocked = try await store.blocks(blockerID: caller.userID)
    let players = try await store.players(ids: blocked.map(\.blockedID))
    return ListBlockedResponse(
      players: blocked.compactMap { block in
        players[block.blockedID].map {
          BlockedPlayer(player: PlayerCard($0), blockedAtUnixMs: block.blockedAtUnixMs)
        }
      })
  }

  /// A friend request as the API shows it.
  static func message(_ record: FriendRequestRecord, players: [Int64: PlayerRecord])
    -> FriendRequest
  {
    FriendRequest(
      id: record.id, sender: players[record.senderID].map(PlayerCard.init) ?? PlayerCard(),
      recipient: players[record.recipientID].map(PlayerCard.init) ?? PlayerCard(),
      state: FriendRequestState(rawValue: Int32(record.state.rawValue)),
      sentAtUnixMs: record.sentAtUnixMs, answeredAtUnixMs: record.answeredAtUnixMs ?? 0)
  }
}
