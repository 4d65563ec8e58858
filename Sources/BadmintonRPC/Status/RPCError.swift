/// The error a call ends with: a status code, a stable reason, a localized message and the
/// request fields that broke a rule.
public struct RPCError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The status code.
  public var code: StatusCode
  /// Stable machine-readable reason, such as `MESSAGE_TOO_LONG`.
  public var reason: String
  /// The message, in every language.
  public var message: LocalizedText
  /// The request fields at fault.
  public var violations: [Violation]

  /// One request field at fault.
  public struct Violation: Hashable, Sendable {
    /// Path of the field in the request, e.g. `slot.end_time`.
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
    violations: [Violation] = []
  ) {
    self.code = code
    self.reason = reason
    self.message = message
    self.violations = violations
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
      }
    )
  }

  public var description: String {
    var text = "\(code.name) \(reason): \(message.en)"
    for violation in violations {
      text += " [\(violation.field): \(violation.reason)]"
    }
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
