public import BadmintonRPC
public import CBadmintonProto

/// `badminton.v1.FriendRequestState`. (`badminton.v1.FriendRequestState`).
public struct FriendRequestState: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `FRIEND_REQUEST_STATE_UNSPECIFIED`.
  public static let unspecified = FriendRequestState(rawValue: 0)
  /// `FRIEND_REQUEST_PENDING`: Waiting for the recipient's answer.
  public static let pending = FriendRequestState(rawValue: 1)
  /// `FRIEND_REQUEST_ACCEPTED`.
  public static let accepted = FriendRequestState(rawValue: 2)
  /// `FRIEND_REQUEST_DECLINED`.
  public static let declined = FriendRequestState(rawValue: 3)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "FRIEND_REQUEST_STATE_UNSPECIFIED"
    case 1: "FRIEND_REQUEST_PENDING"
    case 2: "FRIEND_REQUEST_ACCEPTED"
    case 3: "FRIEND_REQUEST_DECLINED"
    default: "FRIEND_REQUEST_STATE_\(rawValue)"
    }
  }
}

/// `badminton.v1.FriendRequest`.
public struct FriendRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.FriendRequest`.
  public typealias CMessage = Badminton__V1__FriendRequest
  /// protoc-c's descriptor of `badminton.v1.FriendRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.FriendRequest")

  /// Id.
  public var id: Int64
  /// Sender. Always encoded; all defaults when absent on the wire.
  public var sender: PlayerCard
  /// Recipient. Always encoded; all defaults when absent on the wire.
  public var recipient: PlayerCard
  /// State.
  public var state: FriendRequestState
  /// Sent at unix ms.
  public var sentAtUnixMs: Int64
  /// Set once answered.
  public var answeredAtUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(id: 0) }

  /// A message with the given fields.
  public init(
    id: Int64 = 0,
    sender: PlayerCard = PlayerCard(),
    recipient: PlayerCard = PlayerCard(),
    state: FriendRequestState = .unspecified,
    sentAtUnixMs: Int64 = 0,
    answeredAtUnixMs: Int64 = 0
  ) {
    self.id = id
    self.sender = sender
    self.recipient = recipient
    self.state = state
    self.sentAtUnixMs = sentAtUnixMs
    self.answeredAtUnixMs = answeredAtUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.id = c.id
    self.sender = try CField.message(c.sender, as: PlayerCard.self) ?? PlayerCard()
    self.recipient = try CField.message(c.recipient, as: PlayerCard.self) ?? PlayerCard()
    self.state = FriendRequestState(rawValue: CField.enumValue(c.state))
    self.sentAtUnixMs = c.sent_at_unix_ms
    self.answeredAtUnixMs = c.answered_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__friend_request__init(&c)
    c.id = id
    c.sender = arena.pointer(to: sender.cMessage(in: arena))
    c.recipient = arena.pointer(to: recipient.cMessage(in: arena))
    c.state = CField.cEnum(state.rawValue, as: Badminton__V1__FriendRequestState.self)
    c.sent_at_unix_ms = sentAtUnixMs
    c.answered_at_unix_ms = answeredAtUnixMs
    return c
  }
}

/// `badminton.v1.SendFriendRequestRequest`.
public struct SendFriendRequestRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SendFriendRequestRequest`.
  public typealias CMessage = Badminton__V1__SendFriendRequestRequest
  /// protoc-c's descriptor of `badminton.v1.SendFriendRequestRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SendFriendRequestRequest")

  /// User id.
  public var userID: Int64

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0
  ) {
    self.userID = userID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__send_friend_request_request__init(&c)
    c.user_id = userID
    return c
  }
}

/// `badminton.v1.AnswerFriendRequestRequest`.
public struct AnswerFriendRequestRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.AnswerFriendRequestRequest`.
  public typealias CMessage = Badminton__V1__AnswerFriendRequestRequest
  /// protoc-c's descriptor of `badminton.v1.AnswerFriendRequestRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.AnswerFriendRequestRequest")

  /// Request id.
  public var requestID: Int64

  /// The message with every field at its default.
  public init() { self.init(requestID: 0) }

  /// A message with the given fields.
  public init(
    requestID: Int64 = 0
  ) {
    self.requestID = requestID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.requestID = c.request_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__answer_friend_request_request__init(&c)
    c.request_id = requestID
    return c
  }
}

/// `badminton.v1.Friend`.
public struct Friend: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Friend`.
  public typealias CMessage = Badminton__V1__Friend
  /// protoc-c's descriptor of `badminton.v1.Friend`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Friend")

  /// Player. Always encoded; all defaults when absent on the wire.
  public var player: PlayerCard
  /// Since unix ms.
  public var sinceUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(player: PlayerCard()) }

  /// A message with the given fields.
  public init(
    player: PlayerCard = PlayerCard(),
    sinceUnixMs: Int64 = 0
  ) {
    self.player = player
    self.sinceUnixMs = sinceUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.player = try CField.message(c.player, as: PlayerCard.self) ?? PlayerCard()
    self.sinceUnixMs = c.since_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__friend__init(&c)
    c.player = arena.pointer(to: player.cMessage(in: arena))
    c.since_unix_ms = sinceUnixMs
    return c
  }
}

/// `badminton.v1.ListFriendsRequest`.
public struct ListFriendsRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListFriendsRequest`.
  public typealias CMessage = Badminton__V1__ListFriendsRequest
  /// protoc-c's descriptor of `badminton.v1.ListFriendsRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListFriendsRequest")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_friends_request__init(&c)
    return c
  }
}

/// `badminton.v1.ListFriendsResponse`.
public struct ListFriendsResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListFriendsResponse`.
  public typealias CMessage = Badminton__V1__ListFriendsResponse
  /// protoc-c's descriptor of `badminton.v1.ListFriendsResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListFriendsResponse")

  /// By nickname.
  public var friends: [Friend]

  /// The message with every field at its default.
  public init() { self.init(friends: []) }

  /// A message with the given fields.
  public init(
    friends: [Friend] = []
  ) {
    self.friends = friends
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.friends = try CField.messages(c.n_friends, c.friends, as: Friend.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_friends_response__init(&c)
    (c.n_friends, c.friends) = arena.messages(friends)
    return c
  }
}

/// `badminton.v1.ListFriendRequestsRequest`.
public struct ListFriendRequestsRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListFriendRequestsRequest`.
  public typealias CMessage = Badminton__V1__ListFriendRequestsRequest
  /// protoc-c's descriptor of `badminton.v1.ListFriendRequestsRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListFriendRequestsRequest")

  /// 1-100; 0 = 20.
  public var pageSize: Int32
  /// The previous page's `nextPageToken`, of the same list; empty for the first page.
  public var pageToken: String
  /// False: the requests sent to the caller. True: those the caller sent.
  public var outgoing: Bool

  /// The message with every field at its default.
  public init() { self.init(pageSize: 0) }

  /// A message with the given fields.
  public init(pageSize: Int32 = 0, pageToken: String = "", outgoing: Bool = false) {
    self.pageSize = pageSize
    self.pageToken = pageToken
    self.outgoing = outgoing
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.pageSize = c.page_size
    self.pageToken = CField.string(c.page_token)
    self.outgoing = c.outgoing != 0
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_friend_requests_request__init(&c)
    c.page_size = pageSize
    c.page_token = arena.string(pageToken)
    c.outgoing = outgoing ? 1 : 0
    return c
  }
}

/// `badminton.v1.ListFriendRequestsResponse`.
public struct ListFriendRequestsResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListFriendRequestsResponse`.
  public typealias CMessage = Badminton__V1__ListFriendRequestsResponse
  /// protoc-c's descriptor of `badminton.v1.ListFriendRequestsResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListFriendRequestsResponse")

  /// Sent to the caller, newest first; filled when incoming requests were asked for.
  public var incoming: [FriendRequest]
  /// Sent by the caller, newest first; filled when outgoing requests were asked for.
  public var outgoing: [FriendRequest]
  /// The `pageToken` of the next page of the same list; empty when this page is the last.
  public var nextPageToken: String

  /// The message with every field at its default.
  public init() { self.init(incoming: []) }

  /// A message with the given fields.
  public init(
    incoming: [FriendRequest] = [],
    outgoing: [FriendRequest] = [],
    nextPageToken: String = ""
  ) {
    self.incoming = incoming
    self.outgoing = outgoing
    self.nextPageToken = nextPageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.incoming = try CField.messages(c.n_incoming, c.incoming, as: FriendRequest.self)
    self.outgoing = try CField.messages(c.n_outgoing, c.outgoing, as: FriendRequest.self)
    self.nextPageToken = CField.string(c.next_page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_friend_requests_response__init(&c)
    (c.n_incoming, c.incoming) = arena.messages(incoming)
    (c.n_outgoing, c.outgoing) = arena.messages(outgoing)
    c.next_page_token = arena.string(nextPageToken)
    return c
  }
}

/// `badminton.v1.RemoveFriendRequest`.
public struct RemoveFriendRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RemoveFriendRequest`.
  public typealias CMessage = Badminton__V1__RemoveFriendRequest
  /// protoc-c's descriptor of `badminton.v1.RemoveFriendRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RemoveFriendRequest")

  /// User id.
  public var userID: Int64

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0
  ) {
    self.userID = userID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__remove_friend_request__init(&c)
    c.user_id = userID
    return c
  }
}

/// `badminton.v1.RemoveFriendResponse`.
public struct RemoveFriendResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RemoveFriendResponse`.
  public typealias CMessage = Badminton__V1__RemoveFriendResponse
  /// protoc-c's descriptor of `badminton.v1.RemoveFriendResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RemoveFriendResponse")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__remove_friend_response__init(&c)
    return c
  }
}

/// `badminton.v1.BlockRequest`.
public struct BlockRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.BlockRequest`.
  public typealias CMessage = Badminton__V1__BlockRequest
  /// protoc-c's descriptor of `badminton.v1.BlockRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.BlockRequest")

  /// User id.
  public var userID: Int64

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0
  ) {
    self.userID = userID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__block_request__init(&c)
    c.user_id = userID
    return c
  }
}

/// `badminton.v1.BlockResponse`.
public struct BlockResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.BlockResponse`.
  public typealias CMessage = Badminton__V1__BlockResponse
  /// protoc-c's descriptor of `badminton.v1.BlockResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.BlockResponse")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__block_response__init(&c)
    return c
  }
}

/// `badminton.v1.UnblockRequest`.
public struct UnblockRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.UnblockRequest`.
  public typealias CMessage = Badminton__V1__UnblockRequest
  /// protoc-c's descriptor of `badminton.v1.UnblockRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.UnblockRequest")

  /// User id.
  public var userID: Int64

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0
  ) {
    self.userID = userID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__unblock_request__init(&c)
    c.user_id = userID
    return c
  }
}

/// `badminton.v1.UnblockResponse`.
public struct UnblockResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.UnblockResponse`.
  public typealias CMessage = Badminton__V1__UnblockResponse
  /// protoc-c's descriptor of `badminton.v1.UnblockResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.UnblockResponse")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__unblock_response__init(&c)
    return c
  }
}

/// `badminton.v1.ListBlockedRequest`.
public struct ListBlockedRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListBlockedRequest`.
  public typealias CMessage = Badminton__V1__ListBlockedRequest
  /// protoc-c's descriptor of `badminton.v1.ListBlockedRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListBlockedRequest")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_blocked_request__init(&c)
    return c
  }
}

/// `badminton.v1.BlockedPlayer`.
public struct BlockedPlayer: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.BlockedPlayer`.
  public typealias CMessage = Badminton__V1__BlockedPlayer
  /// protoc-c's descriptor of `badminton.v1.BlockedPlayer`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.BlockedPlayer")

  /// Player. Always encoded; all defaults when absent on the wire.
  public var player: PlayerCard
  /// Blocked at unix ms.
  public var blockedAtUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(player: PlayerCard()) }

  /// A message with the given fields.
  public init(
    player: PlayerCard = PlayerCard(),
    blockedAtUnixMs: Int64 = 0
  ) {
    self.player = player
    self.blockedAtUnixMs = blockedAtUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.player = try CField.message(c.player, as: PlayerCard.self) ?? PlayerCard()
    self.blockedAtUnixMs = c.blocked_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__blocked_player__init(&c)
    c.player = arena.pointer(to: player.cMessage(in: arena))
    c.blocked_at_unix_ms = blockedAtUnixMs
    return c
  }
}

/// `badminton.v1.ListBlockedResponse`.
public struct ListBlockedResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListBlockedResponse`.
  public typealias CMessage = Badminton__V1__ListBlockedResponse
  /// protoc-c's descriptor of `badminton.v1.ListBlockedResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListBlockedResponse")

  /// Most recently blocked first.
  public var players: [BlockedPlayer]

  /// The message with every field at its default.
  public init() { self.init(players: []) }

  /// A message with the given fields.
  public init(
    players: [BlockedPlayer] = []
  ) {
    self.players = players
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.players = try CField.messages(c.n_players, c.players, as: BlockedPlayer.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_blocked_response__init(&c)
    (c.n_players, c.players) = arena.messages(players)
    return c
  }
}
