public import BadmintonRPC

/// The JSON form of every message in `Proto/`, following protobuf's JSON mapping, in both
/// directions.
///
/// Driven by the descriptors protoc-c generates: a field added to `Proto/` needs no JSON code.
/// The JSON side works on the protobuf binary encoding, so any message, with or without a Swift
/// type, converts.
public enum ProtoJSON {
  /// The pretty-printed JSON of the binary message `bytes` of type `message`.
  ///
  /// Fields appear in field-number order with a 2-space indent; fields at their default are left
  /// out, except a present singular message (`{}`) and a set oneof member. Unknown binary fields
  /// are skipped. Bytes that are not a valid encoding throw an error at line 0, column 0.
  /// `compact` prints the same JSON on one line without spaces (for JSON lines).
  public static func encode(
    _ bytes: [UInt8], as message: CMessageDescriptor, compact: Bool = false
  ) throws(ProtoJSONError) -> String {
    let model = MessageModel(message)
    var reader = WireReader(bytes: bytes)
    let tree = try reader.readMessage(model, end: bytes.count)
    var printer = JSONPrinter(compact: compact)
    printer.printMessage(tree, model, indent: 0)
    printer.output.append("\n")
    return printer.output
  }

  /// The binary encoding of the message of type `message` in `json`, as protoc-c would pack it.
  ///
  /// Bad JSON, an unknown field name, an unknown enum name and a number out of the field's range
  /// throw an error naming the line and column.
  public static func decode(
    _ json: String, as message: CMessageDescriptor
  ) throws(ProtoJSONError) -> [UInt8] {
    let text = Array(json.utf8)
    var parser = JSONParser(text: text)
    let root = try parser.parseDocument()
    var converter = JSONToTree(text: text)
    let model = MessageModel(message)
    let tree = try converter.message(root, model)
    var writer = WireWriter()
    writer.writeMessage(tree, model)
    return writer.bytes
  }

  /// The pretty-printed JSON of `message`.
  public static func encode<M: ProtobufMessage>(_ message: M) -> String {
    do {
      return try encode(message.serializedBytes(), as: M.cDescriptor)
    } catch {
      // protoc-c's own encoding always decodes.
      fatalError("\(M.fullName) did not encode to JSON: \(error)")
    }
  }

  /// The message of type `M` in `json`.
  public static func decode<M: ProtobufMessage>(
    _ json: String, as type: M.Type = M.self
  ) throws(ProtoJSONError) -> M {
    let bytes = try decode(json, as: M.cDescriptor)
    do {
      return try M(serializedBytes: bytes)
    } catch {
      throw ProtoJSONError(line: 0, column: 0, message: error.description)
    }
  }
}

/// JSON or binary input that does not hold a valid message.
public struct ProtoJSONError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The 1-based line of the offending character in the JSON text; 0 for binary input.
  public var line: Int
  /// The 1-based column (in Unicode scalars) of the offending character; 0 for binary input.
  public var column: Int
  /// What is wrong, and what was expected there.
  public var message: String

  /// An error at `line` and `column`.
  public init(line: Int, column: Int, message: String) {
    self.line = line
    self.column = column
    self.message = message
  }

  /// `line L, column C: message`, or the message alone for binary input.
  public var description: String {
    line == 0 ? message : "line \(line), column \(column): \(message)"
  }

  /// An error at byte `offset` of the UTF-8 `text`.
  static func at(_ offset: Int, in text: [UInt8], _ message: String) -> ProtoJSONError {
    var line = 1
    var column = 1
    for byte in text[..<min(offset, text.count)] {
      if byte == UInt8(ascii: "\n") {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
    }
    return ProtoJSONError(line: line, column: column, message: message)
  }

  /// An error about binary input.
  static func binary(_ message: String) -> ProtoJSONError {
    ProtoJSONError(line: 0, column: 0, message: message)
  }
}
