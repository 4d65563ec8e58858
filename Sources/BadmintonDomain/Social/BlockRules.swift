/// What becomes of something one player sends another: a friend request, a message, a room
/// invitation.
public enum Delivery: Hashable, Sendable {
  /// The recipient gets it.
  case delivered
  /// It is stored, and the sender sees it like any other, but the recipient never does: the
  /// recipient has blocked the sender, and the sender is never told.
  case hidden
}

/// What a block does. A blocked player is never told they are blocked; the player who blocked
/// is told plainly when they reach out to the player they blocked.
public enum BlockRules {
  /// What becomes of something a sender sends a recipient: refused with `PLAYER_BLOCKED` when
  /// the sender has blocked the recipient; hidden when the recipient has blocked the sender;
  /// else delivered.
  public static func contact(senderBlockedRecipient: Bool, recipientBlockedSender: Bool)
    throws(DomainError) -> Delivery
  {
    guard !senderBlockedRecipient else { throw SocialErrors.playerBlocked }
    return recipientBlockedSender ? .hidden : .delivered
  }

  /// Checks a player joining a group (a room): refused as though the group did not exist
  /// (`unknown`) when anyone in it has blocked the joiner, so that the joiner learns nothing of
  /// the block, whatever else holds; else refused with `PLAYER_BLOCKED` when the joiner has
  /// blocked anyone in it.
  public static func checkJoin(
    blockedByMember: Bool, blockedMember: Bool, unknown: DomainError
  ) throws(DomainError) {
    guard !blockedByMember else { throw unknown }
    guard !blockedMember else { throw SocialErrors.playerBlocked }
  }
}
