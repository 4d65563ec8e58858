/// A JSON value with the byte offset where it starts.
struct JSONNode {
  /// One member of an object: its name, where the name starts, and its value.
  struct Member {
    let name: String
    let offset: Int
    let value: JSONNode
  }

  enum Kind {
    case object([Member])
    case array([JSONNode])
    case string(String)
    /// A number, as written.
    case number(String)
    case bool(Bool)
    case null
  }

  let offset: Int
  let kind: Kind

  /// The kind of value, for error messages.
  var kindName: String {
    switch kind {
    case .object: "an object"
    case .array: "an array"
    case .string: "a string"
    case .number: "a number"
    case .bool: "a bool"
    case .null: "null"
    }
  }
}

/// A recursive-descent JSON parser (RFC 8259) that knows where every value starts.
struct JSONParser {
  let text: [UInt8]
  var offset = 0

  init(text: [UInt8]) { self.text = text }

  func error(_ message: String, at offset: Int? = nil) -> ProtoJSONError {
    .at(offset ?? self.offset, in: text, message)
  }

  /// What is at the current offset, for error messages.
  var found: String {
    guard offset < text.count else { return "end of input" }
    let scalars = String(decoding: text[offset...].prefix(4), as: UTF8.self).unicodeScalars
    guard let scalar = scalars.first else { return "end of input" }
    return scalar.value < 0x20 ? "'\(scalar.escaped(asASCII: true))'" : "'\(scalar)'"
  }

  mutating func skipWhitespace() {
    while offset < text.count {
      switch text[offset] {
      case 0x20, 0x09, 0x0A, 0x0D: offset += 1
      default: return
      }
    }
  }

  /// One JSON value and nothing after it but whitespace.
  mutating func parseDocument() throws(ProtoJSONError) -> JSONNode {
    skipWhitespace()
    let value = try parseValue(depth: 0)
    skipWhitespace()
    guard offset == text.count else {
      throw error("expected end of input after the JSON value, found \(found)")
    }
    return value
  }

  mutating func parseValue(depth: Int) throws(ProtoJSONError) -> JSONNode {
    guard offset < text.count else { throw error("expected a value, found end of input") }
    let start = offset
    switch text[offset] {
    case UInt8(ascii: "{"):
      guard depth < maxDepth else { throw error("values nested deeper than \(maxDepth)") }
      return JSONNode(offset: start, kind: .object(try parseObject(depth: depth + 1)))
    case UInt8(ascii: "["):
      guard depth < maxDepth else { throw error("values nested deeper than \(maxDepth)") }
      return JSONNode(offset: start, kind: .array(try parseArray(depth: depth + 1)))
    case UInt8(ascii: "\""):
      return JSONNode(offset: start, kind: .string(try parseString()))
    case UInt8(ascii: "t"):
      try literal("true")
      return JSONNode(offset: start, kind: .bool(true))
    case UInt8(ascii: "f"):
      try literal("false")
      return JSONNode(offset: start, kind: .bool(false))
    case UInt8(ascii: "n"):
      try literal("null")
      return JSONNode(offset: start, kind: .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return JSONNode(offset: start, kind: .number(try parseNumber()))
    default:
      throw error("expected a value, found \(found)")
    }
  }

  mutating func literal(_ word: String) throws(ProtoJSONError) {
    for byte in word.utf8 {
      guard offset < text.count, text[offset] == byte else {
        throw error("expected '\(word)', found \(found)")
      }
      offset += 1
    }
  }

  mutating func parseObject(depth: Int) throws(ProtoJSONError) -> [JSONNode.Member] {
    offset += 1
    var members: [JSONNode.Member] = []
    skipWhitespace()
    if offset < text.count, text[offset] == UInt8(ascii: "}") {
      offset += 1
      return members
    }
    while true {
      skipWhitespace()
      guard offset < text.count, text[offset] == UInt8(ascii: "\"") else {
        throw error("expected a field name in double quotes, found \(found)")
      }
      let nameOffset = offset
      let name = try parseString()
      skipWhitespace()
      guard offset < text.count, text[offset] == UInt8(ascii: ":") else {
        throw error("expected ':' after field name, found \(found)")
      }
      offset += 1
      skipWhitespace()
      let value = try parseValue(depth: depth)
      members.append(JSONNode.Member(name: name, offset: nameOffset, value: value))
      skipWhitespace()
      guard offset < text.count else {
        throw error("expected ',' or '}' after field value, found end of input")
      }
      switch text[offset] {
      case UInt8(ascii: ","): offset += 1
      case UInt8(ascii: "}"):
        offset += 1
        return members
      default: throw error("expected ',' or '}' after field value, found \(found)")
      }
    }
  }

  mutating func parseArray(depth: Int) throws(ProtoJSONError) -> [JSONNode] {
    offset += 1
    var elements: [JSONNode] = []
    skipWhitespace()
    if offset < text.count, text[offset] == UInt8(ascii: "]") {
      offset += 1
      return elements
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue(depth: depth))
      skipWhitespace()
      guard offset < text.count else {
        throw error("expected ',' or ']' after array element, found end of input")
      }
      switch text[offset] {
      case UInt8(ascii: ","): offset += 1
      case UInt8(ascii: "]"):
        offset += 1
        return elements
      default: throw error("expected ',' or ']' after array element, found \(found)")
      }
    }
  }

  mutating func hexDigits() throws(ProtoJSONError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard offset < text.count, let digit = hexValue(text[offset]) else {
        throw error("expected a hexadecimal digit in \\u escape, found \(found)")
      }
      value = value * 16 + digit
      offset += 1
    }
    return value
  }

  func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  mutating func parseString() throws(ProtoJSONError) -> String {
    let start = offset
    offset += 1
    var bytes: [UInt8] = []
    while true {
      guard offset < text.count else { throw error("unterminated string", at: start) }
      let byte = text[offset]
      switch byte {
      case UInt8(ascii: "\""):
        offset += 1
        return String(decoding: bytes, as: UTF8.self)
      case UInt8(ascii: "\\"):
        offset += 1
        guard offset < text.count else { throw error("unterminated string", at: start) }
        let escape = text[offset]
        offset += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"):
          let escapeStart = offset - 2
          var code = try hexDigits()
          if (0xD800..<0xDC00).contains(code) {
            guard offset + 1 < text.count, text[offset] == UInt8(ascii: "\\"),
              text[offset + 1] == UInt8(ascii: "u")
            else { throw error("expected a low surrogate \\u escape after a high surrogate") }
            offset += 2
            let low = try hexDigits()
            guard (0xDC00..<0xE000).contains(low) else {
              throw error("expected a low surrogate \\u escape", at: offset - 6)
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let scalar = Unicode.Scalar(code) else {
            throw error("lone surrogate in \\u escape", at: escapeStart)
          }
          // protobuf-c strings end at NUL, so a string holding one could not survive the trip.
          guard code != 0 else {
            throw error("\\u0000 cannot be part of a string", at: escapeStart)
          }
          bytes += Array(String(Character(scalar)).utf8)
        default:
          offset -= 1
          throw error("expected an escape character after '\\', found \(found)")
        }
      case 0..<0x20:
        throw error("control character in string; write it as an escape")
      default:
        bytes.append(byte)
        offset += 1
      }
    }
  }

  func isDigit(_ index: Int) -> Bool {
    index < text.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index])
  }

  mutating func digits() throws(ProtoJSONError) {
    guard isDigit(offset) else { throw error("expected a digit, found \(found)") }
    while isDigit(offset) { offset += 1 }
  }

  mutating func parseNumber() throws(ProtoJSONError) -> String {
    let start = offset
    if text[offset] == UInt8(ascii: "-") { offset += 1 }
    if offset < text.count, text[offset] == UInt8(ascii: "0") {
      offset += 1
    } else {
      try digits()
    }
    if offset < text.count, text[offset] == UInt8(ascii: ".") {
      offset += 1
      try digits()
    }
    if offset < text.count, text[offset] == UInt8(ascii: "e") || text[offset] == UInt8(ascii: "E") {
      offset += 1
      if offset < text.count, text[offset] == UInt8(ascii: "+") || text[offset] == UInt8(ascii: "-")
      {
        offset += 1
      }
      try digits()
    }
    return String(decoding: text[start..<offset], as: UTF8.self)
  }
}
