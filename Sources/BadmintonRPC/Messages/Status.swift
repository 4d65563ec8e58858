public import CBadmintonProto

/// One request field at fault, as sent (`badminton.rpc.v1.FieldViolation`).
public struct FieldViolation: ProtobufMessage, Hashable {
  public typealias CMessage = Badminton__Rpc__V1__FieldViolation
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.FieldViolation")

  /// Path of the field in the request.
  public var field: String
  /// Stable machine-readable reason.
  public var reason: String
  /// Human description in the caller's locale.
  public var description: String

  public init() { self.init(field: "", reason: "", description: "") }

  /// A violation with the given fields.
  public init(field: String, reason: String, description: String) {
    self.field = field
    self.reason = reason
    self.description = description
  }

  public init(cMessage c: borrowing CMessage) {
    self.field = CField.string(c.field)
    self.reason = CField.string(c.reason)
    self.description = CField.string(c.description)
  }

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__field_violation__init(&c)
    c.field = arena.string(field)
    c.reason = arena.string(reason)
    c.description = arena.string(description)
    return c
  }
}

/// The status of a call or a connection, as sent (`badminton.rpc.v1.Status`).
public struct Status: ProtobufMessage, Hashable {
  public typealias CMessage = Badminton__Rpc__V1__Status
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.Status")

  /// The status code.
  public var code: StatusCode
  /// Human text in the caller's locale.
  public var message: String
  /// Stable machine-readable reason; empty for OK.
  public var reason: String
  /// The request fields at fault.
  public var violations: [FieldViolation]
  /// How long to wait before making the same call again, in milliseconds; 0 = no hint.
  public var retryAfterMs: UInt64

  /// The OK status.
  public static let ok = Status(code: .ok)

  public init() { self.init(code: .ok) }

  /// A status with the given fields.
  public init(
    code: StatusCode, message: String = "", reason: String = "", violations: [FieldViolation] = [],
    retryAfterMs: UInt64 = 0
  ) {
    self.code = code
    self.message = message
    self.reason = reason
    self.violations = violations
    self.retryAfterMs = retryAfterMs
  }

  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.code = StatusCode(rawValue: CField.enumValue(c.code))
    self.message = CField.string(c.message)
    self.reason = CField.string(c.reason)
    self.violations = try CField.messages(c.n_violations, c.violations, as: FieldViolation.self)
    self.retryAfterMs = c.retry_after_ms
  }

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__status__init(&c)
    c.code = CField.cEnum(code.rawValue, as: Badminton__Rpc__V1__Code.self)
    c.message = arena.string(message)
    c.reason = arena.string(reason)
    (c.n_violations, c.violations) = arena.messages(violations)
    c.retry_after_ms = retryAfterMs
    return c
  }
}
