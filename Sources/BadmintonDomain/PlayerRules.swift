/// The rules a player's account data must follow.
public enum PlayerRules {
  /// Longest nickname, in characters, after trimming.
  public static let maximumNicknameLength = 30
  /// Longest nickname in UTF-8 bytes: one character may hold many code points, so characters
  /// alone would not bound what is stored.
  public static let maximumNicknameBytes = 240
  /// Shortest password, in characters.
  public static let minimumPasswordLength = 8
  /// Longest password, in characters; bounds the work one login asks of the server.
  public static let maximumPasswordLength = 256
  /// Longest password in UTF-8 bytes; bounds the bytes hashed whatever the characters.
  public static let maximumPasswordBytes = 1024
  /// The levels a player may give themselves without verification.
  public static let selfAssignableLevels = 1...7
  /// Every skill level.
  public static let allLevels = 1...9
  /// The locales a player may choose.
  public static let locales = ["en", "zh-CN"]

  /// The phone number if it is in E.164 form (`+` then 2 to 15 digits, the first not 0).
  public static func validatePhone(_ phone: String) throws(DomainError) -> String {
    let digits = phone.utf8.dropFirst()
    // Bytes only: the length is checked before any byte is looked at.
    guard phone.utf8.count <= 16, phone.utf8.first == UInt8(ascii: "+"),
      (2...15).contains(digits.count),
      digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
      digits.first != UInt8(ascii: "0")
    else {
      throw .invalidField(
        "phone", "PHONE_INVALID",
        en: "The phone number must be in E.164 form, for example +8613800138000.",
        zhCN: "手机号须为 E.164 格式，例如 +8613800138000。")
    }
    return phone
  }

  /// The most UTF-8 bytes a nickname may arrive with, white space around it included. Checked
  /// before anything that works character by character, so a huge nickname costs one
  /// comparison.
  public static let maximumNicknameInputBytes = 1024

  /// The nickname trimmed, if it has 1 to 30 characters, at most 240 UTF-8 bytes, no control,
  /// format or separator characters, and something visible.
  public static func validateNickname(_ nickname: String) throws(DomainError) -> String {
    // Bytes first: everything after this works per character or per scalar.
    guard nickname.utf8.count <= maximumNicknameInputBytes else { throw nicknameLength }
    let trimmed = String(
      nickname.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    guard trimmed.utf8.count <= maximumNicknameBytes,
      (1...maximumNicknameLength).contains(trimmed.count)
    else { throw nicknameLength }
    guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
      throw .invalidField(
        "nickname", "NICKNAME_INVALID_CHARACTERS",
        en: "The nickname must not contain control characters.",
        zhCN: "昵称不能包含控制字符。")
    }
    // Anywhere in what was sent, even at an end that trimming would drop.
    guard !nickname.unicodeScalars.contains(where: NameRules.isFormatOrSeparator) else {
      throw .invalidField(
        "nickname", "NICKNAME_FORMAT_CHARACTERS",
        en: "The nickname must not contain invisible formatting characters or line separators "
          + "(such as zero-width joiners, direction overrides or byte order marks).",
        zhCN: "昵称不能包含不可见的格式字符或分行符（例如零宽连接符、方向覆盖符或字节顺序标记）。")
    }
    guard trimmed.unicodeScalars.contains(where: NameRules.isVisible) else {
      throw .invalidField(
        "nickname", "NICKNAME_INVISIBLE",
        en: "The nickname must contain at least one visible character.",
        zhCN: "昵称须至少包含一个可见字符。")
    }
    return trimmed
  }

  /// The error for a nickname that is empty, too long or too large.
  static let nicknameLength = DomainError.invalidField(
    "nickname", "NICKNAME_LENGTH",
    en: "The nickname must have 1 to 30 characters (at most 240 bytes in UTF-8).",
    zhCN: "昵称须为 1 到 30 个字符（UTF-8 编码不超过 240 字节）。")

  /// Checks that a new password has 8 to 256 characters and at most 1024 UTF-8 bytes.
  public static func validatePassword(_ password: String) throws(DomainError) {
    // Bytes first: a huge password is refused before its characters are counted.
    guard password.utf8.count <= maximumPasswordBytes else { throw passwordTooLong }
    guard password.count >= minimumPasswordLength else {
      throw .invalidField(
        "password", "PASSWORD_TOO_SHORT",
        en: "The password must have at least 8 characters.",
        zhCN: "密码至少需要 8 个字符。")
    }
    guard isWithinPasswordLimits(password) else { throw passwordTooLong }
  }

  /// The error for a password over 256 characters or 1024 UTF-8 bytes.
  static let passwordTooLong = DomainError.invalidField(
    "password", "PASSWORD_TOO_LONG",
    en: "The password must have at most 256 characters (1024 bytes in UTF-8).",
    zhCN: "密码最多 256 个字符（UTF-8 编码不超过 1024 字节）。")

  /// True when `password` is no longer than a password may be, in characters and in bytes.
  public static func isWithinPasswordLimits(_ password: String) -> Bool {
    password.utf8.count <= maximumPasswordBytes && password.count <= maximumPasswordLength
  }

  /// Checks a new player's phone: refused when `registered` (another player has it).
  public static func checkPhoneFree(registered: Bool) throws(DomainError) {
    if registered { throw phoneTaken }
  }

  /// The error for a phone another player registered.
  public static let phoneTaken = DomainError(
    .alreadyExists, "PHONE_TAKEN", en: "This phone number is already registered.",
    zhCN: "该手机号已注册。")

  /// Checks a self-reported level: 1-7 always; 8 and 9 only up to `verifiedMaximum`, the level
  /// the player's approved championship verification allows (7 without one).
  public static func validateSelfLevel(_ level: Int, verifiedMaximum: Int = 7) throws(DomainError) {
    guard allLevels.contains(level) else {
      throw .invalidField(
        "self_level", "SKILL_LEVEL_OUT_OF_RANGE",
        en: "The skill level must be between 1 and 9.",
        zhCN: "技术等级须在 1 到 9 之间。")
    }
    guard level <= max(verifiedMaximum, selfAssignableLevels.upperBound) else {
      throw .invalidField(
        "self_level", "SKILL_LEVEL_REQUIRES_VERIFICATION",
        en: "Levels 8-9 need a verified championship: submit a regional (level 8) or national "
          + "(level 9) championship certificate for review, or choose a level from 1 to 7.",
        zhCN: "8-9级需要赛事认证，请选择1-7级")
    }
  }

  /// The locale, `en` when empty, if it is one the product supports.
  public static func validateLocale(_ locale: String) throws(DomainError) -> String {
    if locale.isEmpty { return "en" }
    // Bytes first: comparing strings works per character.
    guard locale.utf8.count <= 8, locales.contains(locale) else {
      throw .invalidField(
        "locale", "LOCALE_UNSUPPORTED",
        en: "The locale must be en or zh-CN.",
        zhCN: "语言须为 en 或 zh-CN。")
    }
    return locale
  }
}
