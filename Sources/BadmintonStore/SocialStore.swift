/// Where a friend request stands.
public enum StoredFriendRequestState: Int, Hashable, Sendable {
  /// Waiting for the recipient.
  case pending = 1
  /// The recipient accepted; the two are friends.
  case accepted = 2
  /// The recipient declined.
  case declined = 3
}

/// A friend request as stored.
public struct FriendRequestRecord: Hashable, Sendable {
  public var id: Int64
  public var senderID: Int64
  public var recipientID: Int64
  public var state: StoredFriendRequestState
  /// Sent by a player the recipient has blocked: the sender sees it pending, the recipient never
  /// sees it at all.
  public var hidden: Bool
  /// Milliseconds since 1970-01-01 UTC.
  public var sentAtUnixMs: Int64
  /// Set once answered.
  public var answeredAtUnixMs: Int64?

  /// A record with the given fields.
  public init(
    id: Int64, senderID: Int64, recipientID: Int64, state: StoredFriendRequestState,
    hidden: Bool, sentAtUnixMs: Int64, answeredAtUnixMs: Int64?
  ) {
    self.id = id
    self.senderID = senderID
    self.recipientID = recipientID
    self.state = state
    self.hidden = hidden
    self.sentAtUnixMs = sentAtUnixMs
    self.answeredAtUnixMs = answeredAtUnixMs
  }
}

/// One of a player's friends.
public struct FriendRecord: Hashable, Sendable {
  /// The friend's id.
  public var friendID: Int64
  /// When the two became friends.
  public var sinceUnixMs: Int64

  /// A record with the given fields.
  public init(friendID: Int64, sinceUnixMs: Int64) {
    self.friendID = friendID
    self.sinceUnixMs = sinceUnixMs
  }
}

/// One player someone has blocked.
public struct BlockRecord: Hashable, Sendable {
  /// The blocked player's id.
  public var blockedID: Int64
  /// When they were blocked.
  public var blockedAtUnixMs: Int64

  /// A record with the given fields.
  public init(blockedID: Int64, blockedAtUnixMs: Int64) {
    self.blockedID = blockedID
    self.blockedAtUnixMs = blockedAtUnixMs
  }
}

/// Friends, friend requests and blocks, behind an interface of our own. Every method that writes
/// returns only after the write is committed.
public protocol SocialStore: Sendable {
  /// Sends a friend request from `senderID` to `recipientID`, checked in one transaction: an
  /// unknown recipient gives `PLAYER_NOT_FOUND`, friends `ALREADY_FRIENDS`, a request of the
  /// sender's still pending `FRIEND_REQUEST_PENDING`, and a sender who blocked the recipient
  /// `PLAYER_BLOCKED`. When the recipient has a pending request to the sender, that request is
  /// accepted instead and returned. When the recipient has blocked the sender, the request is
  /// stored hidden. The events `notify` makes of the result are written in the same transaction.
  func sendFriendRequest(
    from senderID: Int64, to recipientID: Int64, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord
  /// Accepts or declines a pending request sent to `recipientID`; accepting makes the two
  /// friends of each other in the same transaction. A request that is not the recipient's (or is
  /// hidden from them) gives `FRIEND_REQUEST_NOT_FOUND`. The same answer again returns the
  /// request unchanged, with no events; the other answer to an answered request gives
  /// `FRIEND_REQUEST_NOT_PENDING`.
  func answerFriendRequest(
    id: Int64, recipientID: Int64, accept: Bool, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord
  /// The friend request with `id`.
  func friendRequest(id: Int64) async throws -> FriendRequestRecord?
  /// Up to `limit` of the requests sent to `playerID` that are not hidden from them (`outgoing`
  /// false) or of those they sent (`outgoing` true), newest first (by id, which no two share),
  /// only those with an id below `beforeID` when it is given: one range of an index.
  func friendRequests(playerID: Int64, outgoing: Bool, beforeID: Int64?, limit: Int) async throws
    -> [FriendRequestRecord]
  /// `playerID`'s friends.
  func friends(playerID: Int64) async throws -> [FriendRecord]
  /// Up to `limit` of `playerID`'s friends by friend id, only those above `afterID` when it is
  /// given: one range of the friendship key.
  func friends(playerID: Int64, afterID: Int64?, limit: Int) async throws -> [FriendRecord]
  /// Whether the two are friends.
  func areFriends(_ playerID: Int64, _ otherID: Int64) async throws -> Bool
  /// Ends a friendship on both sides in one transaction; false when there was none.
  func removeFriend(playerID: Int64, friendID: Int64) async throws -> Bool
  /// Blocks `blockedID` for `blockerID` and, in the same transaction, ends their friendship,
  /// withdraws the blocker's pending request and hides the blocked player's from the blocker
  /// (it stays pending for its sender). Blocking twice keeps the first time.
  func block(blockerID: Int64, blockedID: Int64, now: Int64) async throws
  /// Lifts a block; the requests it kept back stay hidden. False when there was none.
  func unblock(blockerID: Int64, blockedID: Int64) async throws -> Bool
  /// The players `blockerID` has blocked, most recent first.
  func blocks(blockerID: Int64) async throws -> [BlockRecord]
  /// Every player `playerID` has blocked or was blocked by.
  func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64>
  /// Whether `blockerID` has blocked `playerID`.
  func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool
  /// Every block: who blocked whom.
  func allBlocks() async throws -> [(blockerID: Int64, blockedID: Int64)]
  /// Hands every block to `apply` as the change the feed would give for it (with its row id),
  /// all from one read.
  func replayBlocks(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws
}
