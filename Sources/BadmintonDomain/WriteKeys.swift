/// The rules of idempotency keys: a player's write may carry a key (`idempotency-key`
/// metadata), and a repeat of the write with the same key and the same request within a day
/// gets the first call's answer and writes nothing (docs/protocol.md, section 18).
public enum WriteKeyRules {
  /// The longest key, in characters (all of them ASCII).
  public static let maximumKeyLength = 128
  /// How long a key is kept after its first call: 24 hours.
  public static let lifetimeMs: Int64 = 24 * 3600 * 1000
  /// How many keys one player may hold at once (those of the last 24 hours until housekeeping
  /// removes them): a key a minute for a week, far above what an app sends in a day.
  public static let maximumKeysPerPlayer = 10_000

  /// Whether `key` may be used: 1 to 128 printable ASCII characters (space to tilde).
  public static func isValid(_ key: String) -> Bool {
    let bytes = key.utf8
    return !bytes.isEmpty && bytes.count <= maximumKeyLength
      && bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
  }

  /// Checks `key`, before any work.
  public static func validate(_ key: String) throws(DomainError) {
    guard isValid(key) else { throw keyInvalid }
  }

  /// Whether a refusal is a keyed write's answer for good, kept with its key: not one that a
  /// later try may not get (the database out of reach, an allowance used up for now, a session
  /// refused).
  public static func isFinal(_ error: DomainError) -> Bool {
    switch error.kind {
    case .unavailable, .resourceExhausted, .unauthenticated: false
    case .invalidArgument, .notFound, .alreadyExists, .permissionDenied, .failedPrecondition: true
    }
  }

  /// Whether a key first used at `createdAtUnixMs` still answers for its write at `nowUnixMs`.
  public static func isLive(createdAtUnixMs: Int64, nowUnixMs: Int64) -> Bool {
    nowUnixMs - createdAtUnixMs < lifetimeMs
  }

  /// The key is not 1 to 128 printable ASCII characters.
  public static let keyInvalid = DomainError(
    .invalidArgument, "IDEMPOTENCY_KEY_INVALID",
    en: "The idempotency key must be 1 to 128 printable ASCII characters.",
    zhCN: "幂等键必须是 1 到 128 个可打印的 ASCII 字符。",
    violations: [
      DomainError.Violation(
        field: "idempotency-key", reason: "IDEMPOTENCY_KEY_INVALID",
        en: "The idempotency key must be 1 to 128 printable ASCII characters.",
        zhCN: "幂等键必须是 1 到 128 个可打印的 ASCII 字符。")
    ])

  /// The key was used in the last 24 hours for another method or another request.
  public static let keyReused = DomainError(
    .failedPrecondition, "IDEMPOTENCY_KEY_REUSED",
    en:
      "This idempotency key was already used for a different request; use a new key for a new write.",
    zhCN: "此幂等键已用于另一个请求；新的写入请使用新的键。")

  /// The player holds as many keys as allowed; the oldest is free again `retryAfterMs` later.
  public static func keysExhausted(retryAfterMs: Int64) -> DomainError {
    DomainError(
      .resourceExhausted, "IDEMPOTENCY_KEYS_EXHAUSTED",
      en:
        "You have made too many writes with idempotency keys in the last 24 hours; try again later.",
      zhCN: "过去 24 小时内带幂等键的写入过多，请稍后再试。",
      retryAfterMs: max(1, retryAfterMs))
  }
}
