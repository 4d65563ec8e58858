/// Converts parsed JSON to a `ProtoTree`, checking names, types and ranges against the model.
struct JSONToTree {
  let text: [UInt8]

  func error(_ offset: Int, _ message: String) -> ProtoJSONError {
    .at(offset, in: text, message)
  }

  mutating func message(_ node: JSONNode, _ model: MessageModel) throws(ProtoJSONError) -> ProtoTree
  {
    guard case .object(let members) = node.kind else {
      throw error(node.offset, "expected an object for \(model.fullName), found \(node.kindName)")
    }
    var tree = ProtoTree(model)
    var seen: [Int: String] = [:]
    var oneofMembers: [UInt32: String] = [:]
    for member in members {
      guard let index = model.index(ofName: member.name) else {
        throw error(member.offset, "unknown field \"\(member.name)\" in \(model.fullName)")
      }
      let field = model.fields[index]
      guard seen[index] == nil else {
        throw error(member.offset, "duplicate field \"\(member.name)\"")
      }
      seen[index] = member.name
      if case .null = member.value.kind { continue }
      if let oneof = field.oneof {
        if let other = oneofMembers[oneof] {
          throw error(
            member.offset,
            "field \"\(member.name)\" and field \"\(other)\" belong to the same oneof")
        }
        oneofMembers[oneof] = member.name
      }
      if field.isRepeated {
        guard case .array(let elements) = member.value.kind else {
          throw error(
            member.value.offset,
            "expected an array for repeated field \"\(field.jsonName)\", found \(member.value.kindName)"
          )
        }
        for element in elements {
          if case .null = element.kind {
            throw error(
              element.offset, "null is not allowed in repeated field \"\(field.jsonName)\"")
          }
          tree.values[index].append(try value(element, field))
        }
      } else {
        tree.values[index] = [try value(member.value, field)]
      }
    }
    return tree
  }

  mutating func value(_ node: JSONNode, _ field: FieldModel) throws(ProtoJSONError) -> ProtoValue {
    let kind = field.kind
    func mismatch(_ expected: String) -> ProtoJSONError {
      error(
        node.offset,
        "expected \(expected) for \(kind.protoName) field \"\(field.jsonName)\", found \(node.kindName)"
      )
    }
    switch kind {
    case .message:
      guard let descriptor = field.messageDescriptor else { throw mismatch("an object") }
      return .message(try message(node, MessageModel(descriptor)))
    case .bool:
      guard case .bool(let flag) = node.kind else { throw mismatch("true or false") }
      return .bool(flag)
    case .string:
      guard case .string(let string) = node.kind else { throw mismatch("a string") }
      return .string(string)
    case .bytes:
      guard case .string(let string) = node.kind else { throw mismatch("a base64 string") }
      guard let data = Base64.decode(string) else {
        throw error(node.offset, "invalid base64 for bytes field \"\(field.jsonName)\"")
      }
      return .bytes(data)
    case .enumeration:
      switch node.kind {
      case .string(let name):
        guard let number = field.enumValueNumber(name) else {
          throw error(node.offset, "unknown enum value \"\(name)\" for \(field.enumName)")
        }
        return .enumeration(number)
      case .number(let literal):
        return .enumeration(
          Int32(try integer(literal, node, field, in: Int64(Int32.min)...Int64(Int32.max))))
      default: throw mismatch("an enum name or number")
      }
    case .float, .double:
      let literal: String
      switch node.kind {
      case .number(let number): literal = number
      case .string(let string):
        switch string {
        case "NaN": return kind == .float ? .float(.nan) : .double(.nan)
        case "Infinity": return kind == .float ? .float(.infinity) : .double(.infinity)
        case "-Infinity": return kind == .float ? .float(-.infinity) : .double(-.infinity)
        default:
          guard Self.isJSONNumber(string) else {
            throw error(
              node.offset,
              "invalid number \"\(string)\" for \(kind.protoName) field \"\(field.jsonName)\"")
          }
          literal = string
        }
      default: throw mismatch("a number")
      }
      if kind == .float {
        guard let number = Float(literal), number.isFinite else {
          throw outOfRange(literal, node, field)
        }
        return .float(number)
      }
      guard let number = Double(literal), number.isFinite else {
        throw outOfRange(literal, node, field)
      }
      return .double(number)
    case .int32, .sint32, .sfixed32:
      return .int(
        try integer(
          try integerLiteral(node, field), node, field, in: Int64(Int32.min)...Int64(Int32.max)))
    case .int64, .sint64, .sfixed64:
      return .int(
        try integer(try integerLiteral(node, field), node, field, in: Int64.min...Int64.max))
    case .uint32, .fixed32:
      let literal = try integerLiteral(node, field)
      return .uint(try unsigned(literal, node, field, max: UInt64(UInt32.max)))
    case .uint64, .fixed64:
      let literal = try integerLiteral(node, field)
      return .uint(try unsigned(literal, node, field, max: UInt64.max))
    }
  }

  /// The text of an integer written as a JSON number or a string holding one.
  func integerLiteral(_ node: JSONNode, _ field: FieldModel) throws(ProtoJSONError) -> String {
    switch node.kind {
    case .number(let literal): return literal
    case .string(let string):
      guard Self.isJSONNumber(string) else {
        throw error(
          node.offset,
          "invalid number \"\(string)\" for \(field.kind.protoName) field \"\(field.jsonName)\"")
      }
      return string
    default:
      throw error(
        node.offset,
        "expected a number for \(field.kind.protoName) field \"\(field.jsonName)\", found \(node.kindName)"
      )
    }
  }

  func outOfRange(_ literal: String, _ node: JSONNode, _ field: FieldModel) -> ProtoJSONError {
    error(
      node.offset,
      "value \(literal) out of range for \(field.kind.protoName) field \"\(field.jsonName)\"")
  }

  /// What a JSON number literal is as an integer, worked out exactly from its digits (never
  /// through `Double`, which would round).
  enum ExactInteger {
    case value(negative: Bool, magnitude: UInt64)
    case notInteger
    case tooLarge
  }

  /// `literal` (a JSON number: sign, digits, optional fraction and exponent) as an integer.
  static func exactInteger(_ literal: String) -> ExactInteger {
    var text = Substring(literal)
    let negative = text.first == "-"
    if negative { text = text.dropFirst() }
    var exponent = 0
    if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      var written = text[text.index(after: e)...]
      let negativeExponent = written.first == "-"
      if written.first == "-" || written.first == "+" { written = written.dropFirst() }
      written = written.drop { $0 == "0" }
      // Exponents beyond any 64-bit value's reach are settled without computing them.
      if written.count > 7 {
        exponent = negativeExponent ? -100_000_000 : 100_000_000
      } else {
        guard let parsed = Int(written.isEmpty ? "0" : written) else { return .notInteger }
        exponent = negativeExponent ? -parsed : parsed
      }
      text = text[..<e]
    }
    var digits: [UInt8] = []
    var fractionDigits = 0
    var inFraction = false
    for character in text.utf8 {
      if character == UInt8(ascii: ".") {
        inFraction = true
        continue
      }
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character) else { return .notInteger }
      digits.append(character - UInt8(ascii: "0"))
      if inFraction { fractionDigits += 1 }
    }
    // Leading zeros add nothing; trailing zeros move into the exponent.
    while digits.first == 0 { digits.removeFirst() }
    if digits.isEmpty { return .value(negative: negative, magnitude: 0) }
    var scale = exponent - fractionDigits
    while digits.last == 0 {
      digits.removeLast()
      scale += 1
    }
    if scale < 0 { return .notInteger }
    if digits.count + scale > 20 { return .tooLarge }
    var magnitude: UInt64 = 0
    for digit in digits + [UInt8](repeating: 0, count: scale) {
      let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
      if overflow || carry { return .tooLarge }
      magnitude = sum
    }
    return .value(negative: negative, magnitude: magnitude)
  }

  private func notInteger(_ literal: String, _ node: JSONNode, _ field: FieldModel)
    -> ProtoJSONError
  {
    error(
      node.offset,
      "value \(literal) is not an integer for \(field.kind.protoName) field \"\(field.jsonName)\"")
  }

  /// A signed integer in `range`; `1e3` and `5.0` count as integers, exactly.
  func integer(
    _ literal: String, _ node: JSONNode, _ field: FieldModel, in range: ClosedRange<Int64>
  ) throws(ProtoJSONError) -> Int64 {
    switch Self.exactInteger(literal) {
    case .notInteger: throw notInteger(literal, node, field)
    case .tooLarge: throw outOfRange(literal, node, field)
    case .value(let negative, let magnitude):
      let number: Int64?
      if negative {
        number =
          magnitude == UInt64(Int64.max) + 1
          ? Int64.min : Int64(exactly: magnitude).map { -$0 }
      } else {
        number = Int64(exactly: magnitude)
      }
      guard let number, range.contains(number) else { throw outOfRange(literal, node, field) }
      return number
    }
  }

  /// An unsigned integer up to `max`; `-0` is 0.
  func unsigned(
    _ literal: String, _ node: JSONNode, _ field: FieldModel, max: UInt64
  ) throws(ProtoJSONError) -> UInt64 {
    switch Self.exactInteger(literal) {
    case .notInteger: throw notInteger(literal, node, field)
    case .tooLarge: throw outOfRange(literal, node, field)
    case .value(let negative, let magnitude):
      guard !negative || magnitude == 0, magnitude <= max else {
        throw outOfRange(literal, node, field)
      }
      return magnitude
    }
  }

  /// Whether `string` is a number as JSON writes one.
  static func isJSONNumber(_ string: String) -> Bool {
    var parser = JSONParser(text: Array(string.utf8))
    guard !string.isEmpty, string.first == "-" || string.first!.isASCII && string.first!.isNumber,
      (try? parser.parseNumber()) != nil
    else { return false }
    return parser.offset == parser.text.count
  }
}
