/// The errors that both the store and the services give about friends and blocks.
public enum SocialErrors {
  /// A player asked to befriend or block themselves.
  public static let notYourself = DomainError.invalidField(
    "user_id", "NOT_YOURSELF", en: "Choose another player, not yourself.",
    zhCN: "请选择其他球友，不能选择自己。")

  /// The two players are friends already.
  public static let alreadyFriends = DomainError(
    .alreadyExists, "ALREADY_FRIENDS", en: "You are friends already.", zhCN: "你们已经是好友。")

  /// The caller's earlier request to the same player still waits for an answer.
  public static let requestPending = DomainError(
    .alreadyExists, "FRIEND_REQUEST_PENDING",
    en: "Your friend request to this player is still waiting for an answer.",
    zhCN: "您发给该球友的好友申请仍在等待回复。")

  /// The request does not exist or was not sent to the caller.
  public static let requestNotFound = DomainError(
    .notFound, "FRIEND_REQUEST_NOT_FOUND", en: "There is no such friend request for you.",
    zhCN: "没有该好友申请。")

  /// The request was answered already.
  public static let requestNotPending = DomainError(
    .failedPrecondition, "FRIEND_REQUEST_NOT_PENDING",
    en: "This friend request was answered already.", zhCN: "该好友申请已处理。")

  /// The caller blocked the player they are reaching out to.
  public static let playerBlocked = DomainError(
    .failedPrecondition, "PLAYER_BLOCKED",
    en: "You blocked this player; unblock them first.", zhCN: "您已屏蔽该球友，请先解除屏蔽。")

  /// The two players are not friends.
  public static let notFriends = DomainError(
    .failedPrecondition, "NOT_FRIENDS", en: "You are not friends with this player.",
    zhCN: "您与该球友还不是好友。")
}
