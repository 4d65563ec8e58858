extension StringProtocol {
  /// The text without leading and trailing whitespace.
  var trimmedOfWhitespace: String {
    String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }

  /// The text with `&`, `<`, `>`, `"` and `'` escaped, for markup the pages build themselves
  /// (the live page's charts); templates escape their values on their own.
  var htmlEscaped: String {
    var output = ""
    for character in self {
      switch character {
      case "&": output += "&amp;"
      case "<": output += "&lt;"
      case ">": output += "&gt;"
      case "\"": output += "&quot;"
      case "'": output += "&#39;"
      default: output.append(character)
      }
    }
    return output
  }
}

/// The checks of the fields the pages read, each with the message that explains it.
enum FieldCheck {
  /// A positive whole number, e.g. a player id in a path; nil when `text` is not one.
  static func positiveID(_ text: some StringProtocol) -> Int64? {
    guard text.utf8.count <= 19, text.utf8.allSatisfy({ (48...57).contains($0) }),
      let value = Int64(text), value > 0
    else { return nil }
    return value
  }

  /// A violation of `field` when `text` is longer than `maximum` characters.
  static func length(
    of text: String, field: String, maximum: Int, minimum: Int = 0, label: String
  ) -> Message.Violation? {
    let count = text.count
    if count < minimum {
      return Message.Violation(field: field, text: "\(label) is required.", reason: "REQUIRED")
    }
    if count > maximum {
      return Message.Violation(
        field: field, text: "\(label) must be at most \(maximum) characters.",
        reason: "TOO_LONG")
    }
    return nil
  }

  /// The message of a form whose fields are at fault.
  static func message(_ violations: [Message.Violation]) -> Message {
    Message(
      kind: .error, text: "Some fields need attention.", reason: "INVALID_ARGUMENT",
      violations: violations)
  }
}
