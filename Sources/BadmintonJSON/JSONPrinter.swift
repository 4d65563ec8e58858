/// Writes a `ProtoTree` as pretty-printed JSON: 2-space indent, fields in field-number order,
/// proto3 defaults left out; or all on one line without spaces when `compact`.
struct JSONPrinter {
  var output = ""
  var compact = false

  mutating func newline(_ indent: Int) {
    if compact { return }
    output.append("\n")
    output.append(String(repeating: " ", count: indent))
  }

  mutating func printMessage(_ tree: ProtoTree, _ model: MessageModel, indent: Int) {
    var first = true
    for (index, field) in model.fields.enumerated() {
      let values = tree.values[index]
      guard !values.isEmpty else { continue }
      if !field.isRepeated, field.oneof == nil, values[0].isDefault { continue }
      output.append(first ? "{" : ",")
      first = false
      newline(indent + 2)
      output.append(compact ? "\"\(field.jsonName)\":" : "\"\(field.jsonName)\": ")
      if field.isRepeated {
        output.append("[")
        for (position, value) in values.enumerated() {
          if position > 0 { output.append(",") }
          newline(indent + 4)
          printValue(value, field, indent: indent + 4)
        }
        newline(indent + 2)
        output.append("]")
      } else {
        printValue(values[0], field, indent: indent + 2)
      }
    }
    if first {
      output.append("{}")
    } else {
      newline(indent)
      output.append("}")
    }
  }

  mutating func printValue(_ value: ProtoValue, _ field: FieldModel, indent: Int) {
    switch value {
    case .int(let number):
      output.append(field.kind.is64BitInteger ? "\"\(number)\"" : "\(number)")
    case .uint(let number):
      output.append(field.kind.is64BitInteger ? "\"\(number)\"" : "\(number)")
    case .float(let number): output.append(Self.number(number.description, isNaN: number.isNaN))
    case .double(let number): output.append(Self.number(number.description, isNaN: number.isNaN))
    case .bool(let flag): output.append(flag ? "true" : "false")
    case .enumeration(let number):
      if let name = field.enumValueName(number) {
        output.append(Self.quoted(name))
      } else {
        output.append("\(number)")
      }
    case .string(let text): output.append(Self.quoted(text))
    case .bytes(let data): output.append("\"\(Base64.encode(data))\"")
    case .message(let tree):
      if let descriptor = field.messageDescriptor {
        printMessage(tree, MessageModel(descriptor), indent: indent)
      } else {
        output.append("{}")
      }
    }
  }

  /// A float or double as JSON: `1` rather than `1.0`, and the special values as strings.
  static func number(_ description: String, isNaN: Bool) -> String {
    if isNaN { return "\"NaN\"" }
    switch description {
    case "inf": return "\"Infinity\""
    case "-inf": return "\"-Infinity\""
    default:
      return description.hasSuffix(".0") ? String(description.dropLast(2)) : description
    }
  }

  /// `text` as a JSON string.
  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\u{08}": result += "\\b"
      case "\u{0C}": result += "\\f"
      case "\u{00}"..."\u{1F}", "\u{7F}":
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}

/// Base64 (RFC 4648): standard alphabet with padding on output; standard or URL-safe, padded or
/// not, on input.
enum Base64 {
  static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  static func encode(_ data: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((data.count + 2) / 3 * 4)
    var index = 0
    while index < data.count {
      let b0 = data[index]
      let b1 = index + 1 < data.count ? data[index + 1] : 0
      let b2 = index + 2 < data.count ? data[index + 2] : 0
      out.append(alphabet[Int(b0 >> 2)])
      out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
      out.append(index + 1 < data.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : 0x3D)
      out.append(index + 2 < data.count ? alphabet[Int(b2 & 0x3F)] : 0x3D)
      index += 3
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The bytes of `text`, or nil when it is not base64.
  static func decode(_ text: String) -> [UInt8]? {
    var sextets: [UInt8] = []
    var padding = 0
    for byte in text.utf8 {
      if byte == UInt8(ascii: "=") {
        padding += 1
        continue
      }
      guard padding == 0 else { return nil }
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): sextets.append(byte - UInt8(ascii: "A"))
      case UInt8(ascii: "a")...UInt8(ascii: "z"): sextets.append(byte - UInt8(ascii: "a") + 26)
      case UInt8(ascii: "0")...UInt8(ascii: "9"): sextets.append(byte - UInt8(ascii: "0") + 52)
      case UInt8(ascii: "+"), UInt8(ascii: "-"): sextets.append(62)
      case UInt8(ascii: "/"), UInt8(ascii: "_"): sextets.append(63)
      default: return nil
      }
    }
    guard sextets.count % 4 != 1, padding <= 2 else { return nil }
    if padding > 0 && (sextets.count + padding) % 4 != 0 { return nil }
    var out: [UInt8] = []
    var index = 0
    while index < sextets.count {
      let chunk = sextets[index..<min(index + 4, sextets.count)].map { UInt32($0) }
      var value: UInt32 = 0
      for (position, sextet) in chunk.enumerated() {
        value |= sextet << (18 - 6 * UInt32(position))
      }
      out.append(UInt8(truncatingIfNeeded: value >> 16))
      if chunk.count > 2 { out.append(UInt8(truncatingIfNeeded: value >> 8)) }
      if chunk.count > 3 { out.append(UInt8(truncatingIfNeeded: value)) }
      index += 4
    }
    return out
  }
}
