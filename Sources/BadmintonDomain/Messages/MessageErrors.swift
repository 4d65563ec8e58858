/// The errors that both the store and the services give about direct messages.
public enum MessageErrors {
  /// The text has nothing but white space.
  public static let messageEmpty = DomainError.invalidField(
    "text", "MESSAGE_EMPTY", en: "Write something before sending.", zhCN: "消息不能为空")

  /// The text has more than 1000 characters.
  public static let messageTooLong = DomainError.invalidField(
    "text", "MESSAGE_TOO_LONG", en: "A message can have at most 1000 characters.",
    zhCN: "消息不能超过1000字")

  /// The client message id is empty or longer than 64 characters.
  public static let clientMessageIDInvalid = DomainError.invalidField(
    "client_message_id", "CLIENT_MESSAGE_ID_INVALID",
    en: "The client message id must have 1 to 64 characters.", zhCN: "客户端消息编号须为1-64个字符。")

  /// The caller sent an earlier message under the same client message id, to another player or
  /// with other text.
  public static let clientMessageIDReused = DomainError(
    .alreadyExists, "CLIENT_MESSAGE_ID_REUSED",
    en: "You already sent a different message with this client message id.",
    zhCN: "该客户端消息编号已用于另一条消息。")

  /// The caller wrote to themselves.
  public static let notYourself = DomainError.invalidField(
    "recipient_id", "NOT_YOURSELF", en: "Choose another player, not yourself.",
    zhCN: "请选择其他球友，不能选择自己。")

  /// The thread does not exist, or the caller is not in it.
  public static let threadNotFound = DomainError(
    .notFound, "THREAD_NOT_FOUND", en: "There is no such conversation.", zhCN: "没有该会话。")

  /// An AckDelivered call named more than 500 messages.
  public static let tooManyMessageIDs = DomainError.invalidField(
    "message_ids", "TOO_MANY_MESSAGE_IDS",
    en: "Acknowledge at most 500 messages at a time.", zhCN: "每次最多确认500条消息。")

  /// A page size outside 0 to `maximum`.
  public static func limitOutOfRange(maximum: Int) -> DomainError {
    DomainError.invalidField(
      "limit", "LIMIT_OUT_OF_RANGE", en: "The limit must be 0 (the default) or 1 to \(maximum).",
      zhCN: "数量须为0（默认）或1-\(maximum)。")
  }
}
