import BadmintonDomain
import HTTPTypes

/// What a page says in its `message` element: an error or a done action.
struct Message: Sendable, Equatable {
  /// Whether the message reports an error or something done.
  enum Kind: String, Sendable {
    case error
    case done
  }

  /// A field at fault, as a violation lists it.
  struct Violation: Sendable, Equatable {
    var field: String
    var text: String
    var reason: String
  }

  var kind: Kind
  var text: String
  /// The stable reason, e.g. `CSRF_INVALID`, shown beside the text.
  var reason: String?
  var violations: [Violation] = []

  /// An error message.
  static func error(_ text: String, reason: String? = nil) -> Message {
    Message(kind: .error, text: text, reason: reason)
  }

  /// A message saying something was done.
  static func done(_ text: String) -> Message {
    Message(kind: .done, text: text, reason: nil)
  }

  /// The message of an error from the product: its English text, reason and violations.
  init(_ error: DomainError) {
    self.kind = .error
    self.text = error.en
    self.reason = error.reason
    self.violations = error.violations.map {
      Violation(field: $0.field, text: $0.en, reason: $0.reason)
    }
  }

  init(kind: Kind, text: String, reason: String?, violations: [Violation] = []) {
    self.kind = kind
    self.text = text
    self.reason = reason
    self.violations = violations
  }
}

extension DomainError {
  /// The HTTP status a page reporting this error answers with.
  var pageStatus: HTTPResponse.Status {
    switch kind {
    case .notFound: .notFound
    case .permissionDenied: .forbidden
    case .unauthenticated: .unauthorized
    case .unavailable: .serviceUnavailable
    case .resourceExhausted: .tooManyRequests
    case .alreadyExists, .failedPrecondition: .conflict
    case .invalidArgument: .badRequest
    }
  }
}
