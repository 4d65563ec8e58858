/// The rules of suspending a player: an administrator stops an abusive player until a given
/// time. While suspended, a player cannot log in or use an existing session, their event streams
/// end, and other players do not find them nearby, in match searches or in rooms.
public enum SuspensionRules {
  /// Longest reason or note, in characters.
  public static let maximumTextLength = 500
  /// Longest reason or note, in UTF-8 bytes.
  public static let maximumTextBytes = 2000
  /// The longest suspension: ten years of 365 days.
  public static let maximumDurationMs: Int64 = 10 * 365 * 24 * 3600 * 1000

  /// Whether a suspension that ends at `untilUnixMs` still holds at `nowUnixMs`.
  public static func holds(untilUnixMs: Int64, nowUnixMs: Int64) -> Bool {
    untilUnixMs > nowUnixMs
  }

  /// Checks a suspension about to be made at `nowUnixMs`: a reason of 1 to 500 characters that is
  /// not only spaces, and an end after now and at most ten years ahead. Returns the reason with
  /// its surrounding white space removed.
  public static func validate(reason: String, untilUnixMs: Int64, nowUnixMs: Int64)
    throws(DomainError) -> String
  {
    let trimmed = reason.trimmingWhiteSpace
    var violations: [DomainError.Violation] = []
    if trimmed.isEmpty || trimmed.count > maximumTextLength
      || trimmed.utf8.count > maximumTextBytes
    {
      violations.append(
        DomainError.Violation(
          field: "reason", reason: "SUSPENSION_REASON_INVALID",
          en: "Give a reason of 1 to 500 characters (2000 bytes in UTF-8).",
          zhCN: "请填写 1 到 500 个字符的原因（UTF-8 编码不超过 2000 字节）。"))
    }
    if untilUnixMs <= nowUnixMs || untilUnixMs - nowUnixMs > maximumDurationMs {
      violations.append(
        DomainError.Violation(
          field: "until", reason: "SUSPENSION_END_INVALID",
          en: "A suspension must end in the future and within ten years.",
          zhCN: "停用的结束时间必须晚于现在，且不超过十年。"))
    }
    guard violations.isEmpty else {
      throw DomainError(
        .invalidArgument, violations.count == 1 ? violations[0].reason : "SUSPENSION_INVALID",
        en: violations.map(\.en).joined(separator: " "),
        zhCN: violations.map(\.zhCN).joined(), violations: violations)
    }
    return trimmed
  }

  /// Checks an administrator's note on lifting a suspension or ending sessions: at most 500
  /// characters and 2000 UTF-8 bytes.
  public static func validateNote(_ note: String) throws(DomainError) {
    guard note.count <= maximumTextLength, note.utf8.count <= maximumTextBytes else {
      throw .invalidField(
        "note", "NOTE_TOO_LONG",
        en: "The note must have at most 500 characters (2000 bytes in UTF-8).",
        zhCN: "备注最多 500 个字符（UTF-8 编码不超过 2000 字节）。")
    }
  }

  /// The error a suspended player gets for Login and for every call with a session, saying
  /// when the suspension ends (in UTC).
  public static func accountSuspended(untilUnixMs: Int64) -> DomainError {
    let until = utcText(untilUnixMs)
    return DomainError(
      .permissionDenied, "ACCOUNT_SUSPENDED",
      en: "This account is suspended until \(until) UTC.",
      zhCN: "此账号已被停用，直至 \(until)（UTC）。")
  }

  /// The player has no suspension to lift.
  public static let notSuspended = DomainError(
    .failedPrecondition, "PLAYER_NOT_SUSPENDED", en: "This player is not suspended.",
    zhCN: "该球友未被停用。")

  /// An administrator named themself to suspend, to lift a suspension of or to end the
  /// sessions of: another administrator must, so that a suspended administrator cannot undo
  /// their own suspension.
  public static let administratorActsOnSelf = DomainError(
    .permissionDenied, "ADMINISTRATOR_ACTS_ON_SELF",
    en:
      "Administrators cannot suspend themselves, lift their own suspension or end their own "
      + "sessions; another administrator must do it.",
    zhCN: "管理员不能停用自己、解除自己的停用或结束自己的会话；须由另一位管理员操作。")

  /// `unixMs` as `YYYY-MM-DD HH:MM` in UTC.
  public static func utcText(_ unixMs: Int64) -> String {
    let minutes = unixMs >= 0 ? unixMs / 60_000 : (unixMs - 59_999) / 60_000
    let days = minutes >= 0 ? minutes / 1440 : (minutes - 1439) / 1440
    let minuteOfDay = Int(minutes - days * 1440)
    let date = LocalDate(daysSinceEpoch: Int(days))
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(date) \(two(minuteOfDay / 60)):\(two(minuteOfDay % 60))"
  }
}

extension String {
  /// The text without the white space and line breaks around it.
  fileprivate var trimmingWhiteSpace: String {
    let isSpace: (Character) -> Bool = { $0.isWhitespace || $0.isNewline }
    guard let first = firstIndex(where: { !isSpace($0) }),
      let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(self[first...last])
  }
}
