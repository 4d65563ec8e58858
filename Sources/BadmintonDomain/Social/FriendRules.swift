/// The rules of friend requests and blocks, which the store applies inside its transaction.
public enum FriendRules {
  /// A request from `senderID` to `recipientID`: never to oneself, never to a friend.
  public static func checkRequest(senderID: Int64, recipientID: Int64, areFriends: Bool) throws {
    guard senderID != recipientID else { throw SocialErrors.notYourself }
    if areFriends { throw SocialErrors.alreadyFriends }
  }

  /// A block of `blockedID` by `blockerID`: never of oneself.
  public static func checkBlock(blockerID: Int64, blockedID: Int64) throws {
    guard blockerID != blockedID else { throw SocialErrors.notYourself }
  }

  /// Where a request stands.
  public enum RequestState: Sendable {
    case pending, accepted, declined
  }

  /// Whether an answer (`accept` or decline) to a request in `state` is a repeat of the answer
  /// already given, which returns the request as it is (a retry whose first answer committed).
  /// Any other answer to a request no longer pending is refused.
  public static func isRepeatedAnswer(state: RequestState, accept: Bool) throws -> Bool {
    if state == (accept ? .accepted : .declined) { return true }
    guard state == .pending else { throw SocialErrors.requestNotPending }
    return false
  }
}
