/// The errors that both the store and the services give about game rooms.
public enum RoomErrors {
  /// The code is not 6 characters of the code alphabet, or names no room that can be joined.
  public static let codeInvalid = DomainError.invalidField(
    "code", "ROOM_CODE_INVALID", en: "This room code is not valid; check it and try again.",
    zhCN: "房间码无效，请检查后重试")

  /// The room went 30 minutes without activity.
  public static let expired = DomainError(
    .failedPrecondition, "ROOM_EXPIRED", en: "This room has expired.", zhCN: "房间已过期")

  /// The room holds the players its mode needs.
  public static let full = DomainError(
    .failedPrecondition, "ROOM_FULL", en: "This room is full.", zhCN: "房间已满")

  /// Only the room's owner may do this.
  public static let notOwner = DomainError(
    .permissionDenied, "NOT_ROOM_OWNER", en: "Only the room owner can do this.",
    zhCN: "只有房主可以执行此操作")

  /// The caller is in an open room already.
  public static let alreadyInRoom = DomainError(
    .failedPrecondition, "ALREADY_IN_ROOM", en: "You are already in a room.", zhCN: "您已在房间中")

  /// The caller is in no open room.
  public static let notInRoom = DomainError(
    .failedPrecondition, "NOT_IN_ROOM", en: "You are not in a room.", zhCN: "您不在任何房间中。")

  /// No room with this id has the caller among its players.
  public static let notFound = DomainError(
    .notFound, "ROOM_NOT_FOUND", en: "There is no such room for you.", zhCN: "没有该房间。")

  /// The room does not hold exactly the players its mode needs.
  public static let notReady = DomainError(
    .failedPrecondition, "ROOM_NOT_READY",
    en: "The room needs exactly 2 players for singles or 4 for doubles to start.",
    zhCN: "单打需要 2 人、双打需要 4 人才能开始。")

  /// The player named is not in the caller's room.
  public static let notParticipant = DomainError.invalidField(
    "user_id", "NOT_ROOM_PARTICIPANT", en: "This player is not in your room.",
    zhCN: "该球友不在您的房间中。")

  /// The player invited is in the room already.
  public static let alreadyParticipant = DomainError.invalidField(
    "user_id", "ALREADY_ROOM_PARTICIPANT", en: "This player is already in your room.",
    zhCN: "该球友已在您的房间中。")

  /// A player of the room has a confirmed match at some of the requested time.
  public static let playerBusy = DomainError(
    .failedPrecondition, "ROOM_PLAYER_BUSY",
    en: "A player in the room already has a match at this time.",
    zhCN: "房间中有球友在该时段已有比赛。")
}
