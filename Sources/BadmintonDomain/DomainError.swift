/// A broken product rule: what kind of failure it is, a stable reason, the message in every
/// language, and the request fields at fault. The services turn it into the caller's status.
public struct DomainError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of failure; the services map each to a status code.
  public enum Kind: Hashable, Sendable {
    case invalidArgument
    case notFound
    case alreadyExists
    case permissionDenied
    case failedPrecondition
    case unauthenticated
    /// The service cannot serve the call now (its database is out of reach); the same call may
    /// succeed later.
    case unavailable
    /// The caller used up an allowance (kept keys, ...); the same call may succeed once some of
    /// it is free again, which `retryAfterMs` tells when known.
    case resourceExhausted
  }

  /// One request field at fault.
  public struct Violation: Hashable, Sendable {
    /// The field's name in the request, e.g. `nickname`.
    public var field: String
    /// Stable machine-readable reason.
    public var reason: String
    /// What is wrong, in English.
    public var en: String
    /// What is wrong, in Simplified Chinese.
    public var zhCN: String

    /// A violation of `field`.
    public init(field: String, reason: String, en: String, zhCN: String) {
      self.field = field
      self.reason = reason
      self.en = en
      self.zhCN = zhCN
    }
  }

  /// The kind of failure.
  public var kind: Kind
  /// Stable machine-readable reason, e.g. `SKILL_LEVEL_REQUIRES_VERIFICATION`.
  public var reason: String
  /// The message in English.
  public var en: String
  /// The message in Simplified Chinese.
  public var zhCN: String
  /// The fields at fault.
  public var violations: [Violation]
  /// How long the caller should wait before making the same call again; nil when waiting
  /// would not help.
  public var retryAfterMs: Int64?

  /// An error with the given fields.
  public init(
    _ kind: Kind, _ reason: String, en: String, zhCN: String, violations: [Violation] = [],
    retryAfterMs: Int64? = nil
  ) {
    self.kind = kind
    self.reason = reason
    self.en = en
    self.zhCN = zhCN
    self.violations = violations
    self.retryAfterMs = retryAfterMs
  }

  /// An INVALID_ARGUMENT error about one field, whose reason is also the error's.
  public static func invalidField(_ field: String, _ reason: String, en: String, zhCN: String)
    -> DomainError
  {
    DomainError(
      .invalidArgument, reason, en: en, zhCN: zhCN,
      violations: [Violation(field: field, reason: reason, en: en, zhCN: zhCN)])
  }

  public var description: String { "\(kind) \(reason): \(en)" }
}
