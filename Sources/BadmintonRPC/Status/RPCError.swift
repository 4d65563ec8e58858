/// The error a call ends with: a status code, a stable reason, a localized message, the
/// request fields that broke a rule and, for a refusal for load or rate, how long to wait.
public struct RPCError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The status code.
  public var code: StatusCode
  /// Stable machine-readable reason, such as `MESSAGE_TOO_LONG`.
  public var reason: String
  /// The message, in every language.
  public var message: LocalizedText
  /// The request fields at fault.
  public var violations: [Violation]
  /// How long to wait before making the same call again (`Status.retry_after_ms`); nil when
  /// the error gives no hint. Sent in whole milliseconds, rounded up.
  public var retryAfter: Duration?

  /// One request field at fault.
  public struct Violation: Hashable, Sendable {
    /// Path of the field in the request, e.g. `slot.end_unix_ms`.
    public var field: String
    /// Stable machine-readable reason.
    public var reason: String
    /// What is wrong, in every language.
    public var description: LocalizedText

    /// A violation of `field`.
    public init(field: String, reason: String, description: LocalizedText) {
      self.field = field
      self.reason = reason
      self.description = description
    }
  }

  /// An error with a status code, a reason and a message.
  public init(
    code: StatusCode,
    reason: String,
    message: LocalizedText,
    violations: [Violation] = [],
    retryAfter: Duration? = nil
  ) {
    self.code = code
    self.reason = reason
    self.message = message
    self.violations = violations
    self.retryAfter = retryAfter
  }

  /// The error a peer sent as `status`.
  public init(status: Status) {
    self.code = status.code
    self.reason = status.reason
    self.message = LocalizedText(verbatim: status.message)
    self.violations = status.violations.map {
      Violation(
        field: $0.field, reason: $0.reason, description: LocalizedText(verbatim: $0.description))
    }
    self.retryAfter =
      status.retryAfterMs == 0 ? nil : .milliseconds(Int64(clamping: status.retryAfterMs))
  }

  /// This error with the hint to wait `wait` before trying again.
  public func retrying(after wait: Duration) -> RPCError {
    var error = self
    error.retryAfter = wait
    return error
  }

  /// The hint in whole milliseconds, rounded up; 0 when there is none (or it is not positive).
  public var retryAfterMs: UInt64 {
    guard let retryAfter, retryAfter > .zero else { return 0 }
    let (seconds, attoseconds) = retryAfter.components
    let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
    guard !milliseconds.overflow else { return .max }
    let roundedUp = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    return UInt64(milliseconds.partialValue) &+ UInt64(roundedUp)
  }

  /// The status that carries this error to a caller who asked for `locale`.
  public func status(in locale: RPCLocale) -> Status {
    Status(
      code: code,
      message: message.text(in: locale),
      reason: reason,
      violations: violations.map {
        FieldViolation(
          field: $0.field, reason: $0.reason, description: $0.description.text(in: locale))
      },
      retryAfterMs: retryAfterMs
    )
  }

  public var description: String {
    var text = "\(code.name) \(reason): \(message.en)"
    for violation in violations {
      text += " [\(violation.field): \(violation.reason)]"
    }
    if retryAfterMs > 0 { text += " (retry after \(retryAfterMs) ms)" }
    return text
  }
}

/// An error that knows which `RPCError` a caller should see for it.
public protocol RPCErrorConvertible: Error {
  /// The error as the caller sees it.
  var rpcError: RPCError { get }
}

extension RPCError: RPCErrorConvertible {
  public var rpcError: RPCError { self }
}
