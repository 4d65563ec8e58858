import BadmintonDomain
import Hummingbird

/// The console's forms and query strings, each decoded with Hummingbird's
/// `URLEncodedFormDecoder` into a `Decodable` type whose fields are all optional text: a field
/// left out reads as empty; a form that is not well formed (a bad `%` escape, a field given
/// twice) is refused before any page sees it (`FORM_UNREADABLE`), a query string that is not is
/// read as empty; an escaped byte that is not UTF-8 reads as U+FFFD. Each form checks its own
/// bounds and says what is wrong per field; what was typed is kept as a draft so a refused form
/// comes back filled in.
protocol ConsoleForm: Decodable, Sendable {}

extension ConsoleForm {
  /// `encoded` (an `application/x-www-form-urlencoded` body or a query string) as this form.
  static func decode(_ encoded: String) throws -> Self {
    try URLEncodedFormDecoder().decode(Self.self, from: encoded)
  }
}

/// The token every POST carries, read by `CSRFMiddleware` before the page reads its own form.
struct TokenForm: ConsoleForm {
  var csrf: String?
}

/// `POST /sign-in`: phone (1 to 32 characters) and password (1 to 256).
struct SignInForm: ConsoleForm {
  var phone: String?
  var password: String?

  /// The phone, trimmed.
  var trimmedPhone: String { (phone ?? "").trimmedOfWhitespace }

  /// What is wrong with the fields.
  var violations: [Message.Violation] {
    [
      FieldCheck.length(of: trimmedPhone, field: "phone", maximum: 32, minimum: 1, label: "Phone"),
      FieldCheck.length(
        of: password ?? "", field: "password", maximum: 256, minimum: 1, label: "Password"),
    ].compactMap { $0 }
  }
}

/// `POST /players/{id}/suspend`: a reason (1 to 500 characters) and either `until` (a date and
/// time, read as UTC) or a quick choice `for` (1, 7, 30 or 365 days).
struct SuspendForm: ConsoleForm {
  var reason: String?
  var until: String?
  var duration: String?

  enum CodingKeys: String, CodingKey {
    case reason, until
    case duration = "for"
  }

  /// The quick choices, in days.
  static let quickDurations: [String: Int64] = ["1d": 1, "7d": 7, "30d": 30, "365d": 365]
  /// The longest reason.
  static let maximumReasonLength = 500

  var trimmedReason: String { (reason ?? "").trimmedOfWhitespace }
  var trimmedUntil: String { (until ?? "").trimmedOfWhitespace }

  /// When the suspension ends, in Unix milliseconds, and what is wrong with the fields; `now`
  /// is what a quick choice counts from.
  func checked(nowUnixMs: Int64) -> (untilUnixMs: Int64?, violations: [Message.Violation]) {
    var violations = [
      FieldCheck.length(
        of: trimmedReason, field: "reason", maximum: Self.maximumReasonLength, minimum: 1,
        label: "Reason")
    ].compactMap { $0 }
    var untilUnixMs: Int64?
    if !trimmedUntil.isEmpty {
      untilUnixMs = UTCTime.parseDateTimeLocal(trimmedUntil)
      if untilUnixMs == nil {
        violations.append(
          .init(
            field: "until", text: "Until must be a date and time, e.g. 2025-03-01T14:05.",
            reason: "INVALID_TIME"))
      }
    } else if let days = Self.quickDurations[duration ?? ""] {
      untilUnixMs = nowUnixMs + days * 86_400_000
    } else {
      violations.append(
        .init(
          field: "until", text: "Choose when the suspension ends: a time, or a number of days.",
          reason: "REQUIRED"))
    }
    return (untilUnixMs, violations)
  }
}

/// `POST /players/{id}/lift`: a note of at most 500 characters for the audit log.
struct LiftForm: ConsoleForm {
  var note: String?

  var trimmedNote: String { (note ?? "").trimmedOfWhitespace }

  var violations: [Message.Violation] {
    [FieldCheck.length(of: trimmedNote, field: "note", maximum: 500, label: "Note")]
      .compactMap { $0 }
  }
}

/// `POST /verifications/{id}/review`: `decision` (`approve` or `reject`) and a note of at most
/// 500 characters.
struct ReviewForm: ConsoleForm {
  var decision: String?
  var note: String?

  var trimmedNote: String { (note ?? "").trimmedOfWhitespace }
  /// Whether the decision is to approve; nil when it is neither `approve` nor `reject`.
  var approves: Bool? {
    switch decision {
    case "approve": true
    case "reject": false
    default: nil
    }
  }

  var violations: [Message.Violation] {
    var violations = [
      FieldCheck.length(
        of: trimmedNote, field: "note", maximum: VerificationRules.maximumNoteLength,
        label: "Note")
    ].compactMap { $0 }
    if approves == nil {
      violations.append(
        .init(field: "decision", text: "Choose Approve or Reject.", reason: "INVALID_DECISION"))
    }
    return violations
  }
}

/// `GET /players?q=`: the search text.
struct SearchQuery: ConsoleForm {
  var q: String?
}

/// The query of a page an action sends the browser back to: what was done (`done`) and, for
/// ended sessions, how many (`n`).
struct DoneQuery: ConsoleForm {
  var done: String?
  var n: String?
}

/// `GET /audit?before=`: the position of the next page.
struct AuditQuery: ConsoleForm {
  var before: String?
}
