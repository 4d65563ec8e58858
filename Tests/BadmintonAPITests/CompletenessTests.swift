import BadmintonAPI
import BadmintonRPC
import CBadmintonRPCProto
import Foundation
import Testing

/// One message, with a value that sets every field (and one member of each oneof) to a value
/// other than its default, in protobuf's text format.
struct CompletenessCase: Sendable, CustomTestStringConvertible {
  let type: any ProtobufMessage.Type
  let variant: Int
  let text: String
  /// The names of the message's own fields that `text` sets.
  let fieldsSet: [String]

  var testDescription: String { "\(type.fullName) #\(variant)" }
}

/// Writes the text-format value of a message from protoc-c's descriptor alone: every field set,
/// each scalar to a value of its own, repeated fields to two elements, nested messages whole.
/// The Swift code under test plays no part in it.
struct FullValueWriter {
  private var counter = 0

  /// Variant `variant` of `descriptor`'s message: the `variant`-th member of each oneof is set
  /// (modulo the oneof's size); nested messages set their first members.
  mutating func text(
    _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, variant: Int, depth: Int = 0
  ) -> (text: String, fieldsSet: [String]) {
    precondition(depth < 16, "a message contains itself")
    let message = descriptor.pointee
    let fields = (0..<Int(message.n_fields)).map { message.fields[$0] }
    // The members of each oneof, which share the offset of its case.
    var oneofMembers: [UInt32: [UInt32]] = [:]
    for field in fields where field.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0 {
      oneofMembers[field.quantifier_offset, default: []].append(field.id)
    }
    var lines: [String] = []
    var names: [String] = []
    for field in fields {
      if let members = oneofMembers[field.quantifier_offset],
        field.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0,
        members[variant % members.count] != field.id
      {
        continue
      }
      let name = String(cString: field.name)
      names.append(name)
      let count = field.label == PROTOBUF_C_LABEL_REPEATED ? 2 : 1
      for _ in 0..<count {
        if field.type == PROTOBUF_C_TYPE_MESSAGE {
          let nested = field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
          let inner = text(nested, variant: 0, depth: depth + 1).text
          lines.append("\(name) { \(inner) }")
        } else {
          lines.append("\(name): \(scalar(field))")
        }
      }
    }
    return (lines.joined(separator: " "), names)
  }

  private mutating func scalar(_ field: ProtobufCFieldDescriptor) -> String {
    counter += 1
    let n = counter
    switch field.type {
    case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32:
      return n.isMultiple(of: 2) ? "\(-n * 1_000)" : "\(n * 100_003)"
    case PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64:
      return n.isMultiple(of: 2) ? "\(-n * 1_000_000_007)" : "\(n * 10_000_000_019)"
    case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32: return "\(4_000_000_000 - n)"
    case PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64:
      return "\(UInt64(18_000_000_000_000_000_000) - UInt64(n))"
    case PROTOBUF_C_TYPE_FLOAT: return "\(Double(n) + 0.25)"
    case PROTOBUF_C_TYPE_DOUBLE: return "\(Double(n) * -1.5 - 0.125)"
    case PROTOBUF_C_TYPE_BOOL: return "true"
    case PROTOBUF_C_TYPE_STRING: return "\"s\(n) 羽毛球 🏸\""
    case PROTOBUF_C_TYPE_BYTES: return "\"\\000\\377\\00\(n % 8)b\(n)\""
    case PROTOBUF_C_TYPE_ENUM:
      // The defined value with the largest number: never the default 0.
      let enumType = field.descriptor.assumingMemoryBound(to: ProtobufCEnumDescriptor.self)
        .pointee
      let values = (0..<Int(enumType.n_values)).map { enumType.values[$0] }
      return String(cString: values.max { $0.value < $1.value }!.name)
    default:
      Issue.record("unknown protobuf-c field type \(field.type)")
      return ""
    }
  }
}

/// `protoc` over `Proto/`: Google's own encoder and decoder of the contract.
enum Protoc {
  static let protoRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Proto")

  static let protoFiles: [String] = {
    let enumerator = FileManager.default.enumerator(atPath: protoRoot.path)!
    return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".proto") }.sorted()
  }()

  /// Runs `protoc --encode` or `--decode` of `message` with `input` on standard input.
  static func run(_ mode: String, _ message: String, input: Data) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/protoc")
    process.arguments = ["--\(mode)=\(message)", "-I", protoRoot.path] + protoFiles
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    // Small inputs and outputs: the pipes hold them whole.
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw ProtocFailure(message: String(decoding: errors, as: UTF8.self))
    }
    return output
  }

  struct ProtocFailure: Error { let message: String }
}

@Suite("Every field of every message survives Swift, protoc-c and Google's protobuf")
struct CompletenessTests {
  /// A case per message, and one more per further member of its largest oneof.
  static let cases: [CompletenessCase] = {
    var writer = FullValueWriter()
    var cases: [CompletenessCase] = []
    for type in APIContract.messageTypes + RPCContract.messageTypes {
      let message = type.cDescriptor.pointer.pointee
      var largestOneof = 1
      var oneofSizes: [UInt32: Int] = [:]
      for index in 0..<Int(message.n_fields) {
        let field = message.fields[index]
        if field.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0 {
          oneofSizes[field.quantifier_offset, default: 0] += 1
          largestOneof = max(largestOneof, oneofSizes[field.quantifier_offset]!)
        }
      }
      for variant in 0..<largestOneof {
        let (text, fieldsSet) = writer.text(type.cDescriptor.pointer, variant: variant)
        cases.append(
          CompletenessCase(type: type, variant: variant, text: text, fieldsSet: fieldsSet))
      }
    }
    return cases
  }()

  @Test(
    "every field, set, survives Swift -> protoc-c -> bytes -> protoc-c -> Swift; protoc agrees",
    arguments: cases)
  func everyField_survives(_ completeness: CompletenessCase) throws {
    try Self.check(completeness.type, completeness)
  }

  @Test("the cases cover every message type and every member of every oneof")
  func cases_coverEveryMessageAndOneofMember() {
    let types = Set((APIContract.messageTypes + RPCContract.messageTypes).map { $0.fullName })
    #expect(Set(Self.cases.map { $0.type.fullName }) == types)
    // Every field of every message is set in at least one case.
    for type in APIContract.messageTypes + RPCContract.messageTypes {
      let message = type.cDescriptor.pointer.pointee
      let declared = Set(
        (0..<Int(message.n_fields)).map { String(cString: message.fields[$0].name) })
      let set = Set(Self.cases.filter { $0.type.fullName == type.fullName }.flatMap(\.fieldsSet))
      #expect(set == declared, "\(type.fullName)")
    }
  }

  private static func check<M: ProtobufMessage>(
    _ type: M.Type, _ completeness: CompletenessCase
  ) throws {
    // Google's encoder makes the bytes from the text; Google's decoder reads them back.
    let googleBytes = try Protoc.run("encode", M.fullName, input: Data(completeness.text.utf8))
    let googleText = try Protoc.run("decode", M.fullName, input: googleBytes)
    for name in completeness.fieldsSet {
      #expect(
        String(decoding: googleText, as: UTF8.self).contains("\(name)"),
        "the value sets \(name)")
    }
    // protoc-c -> Swift -> protoc-c -> bytes -> protoc-c -> Swift.
    let value = try M(serializedBytes: [UInt8](googleBytes))
    if !completeness.fieldsSet.isEmpty { #expect(value != M()) }
    let swiftBytes = value.serializedBytes()
    #expect(try M(serializedBytes: swiftBytes) == value)
    #expect(value.serializedSize == swiftBytes.count)
    // Google's decoder reads the same values from the bytes the Swift value made.
    let swiftText = try Protoc.run("decode", M.fullName, input: Data(swiftBytes))
    #expect(
      String(decoding: swiftText, as: UTF8.self) == String(decoding: googleText, as: UTF8.self))
  }
}
