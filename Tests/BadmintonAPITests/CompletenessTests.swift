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
  /// The one bool field set true, where the case sets one bool of several and leaves the others
  /// false (so that two bool fields that trade places are told apart).
  let soleBool: String?
  let text: String
  /// The names of the message's own fields that `text` sets.
  let fieldsSet: [String]
  /// How Swift describes each of the message's own singular scalar fields (bytes aside) that
  /// `text` gives a value, by field name: what the generated property must hold.
  let expected: [String: String]

  var testDescription: String {
    "\(type.fullName) #\(variant)\(soleBool.map { " \($0) only" } ?? "")"
  }
}

/// Writes the text-format value of a message from protoc-c's descriptor alone: every field set,
/// each scalar to a value of its own, repeated fields to two elements, nested messages whole.
/// The Swift code under test plays no part in it.
struct FullValueWriter {
  private var counter = 0

  /// Variant `variant` of `descriptor`'s message: the `variant`-th member of each oneof is set
  /// (modulo the oneof's size); nested messages set their first members.
  mutating func text(
    _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, variant: Int, soleBool: UInt32? = nil,
    depth: Int = 0
  ) -> (text: String, fieldsSet: [String], expected: [String: String]) {
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
    var expected: [String: String] = [:]
    for field in fields {
      let inOneof = field.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0
      if inOneof, let members = oneofMembers[field.quantifier_offset],
        members[variant % members.count] != field.id
      {
        continue
      }
      if let soleBool, field.type == PROTOBUF_C_TYPE_BOOL, field.id != soleBool { continue }
      let name = String(cString: field.name)
      names.append(name)
      let repeated = field.label == PROTOBUF_C_LABEL_REPEATED
      for _ in 0..<(repeated ? 2 : 1) {
        if field.type == PROTOBUF_C_TYPE_MESSAGE {
          let nested = field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
          let inner = text(nested, variant: 0, depth: depth + 1).text
          lines.append("\(name) { \(inner) }")
        } else {
          let (text, swift) = scalar(field)
          lines.append("\(name): \(text)")
          if !repeated, !inOneof, let swift { expected[name] = swift }
        }
      }
    }
    return (lines.joined(separator: " "), names, expected)
  }

  /// A scalar's value in text format, and how Swift describes the same value (nil for bytes).
  private mutating func scalar(_ field: ProtobufCFieldDescriptor) -> (String, String?) {
    counter += 1
    let n = counter
    switch field.type {
    case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32:
      let value = n.isMultiple(of: 2) ? "\(-n * 1_000)" : "\(n * 100_003)"
      return (value, value)
    case PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64:
      let value = n.isMultiple(of: 2) ? "\(-n * 1_000_000_007)" : "\(n * 10_000_000_019)"
      return (value, value)
    case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32:
      let value = "\(4_000_000_000 - n)"
      return (value, value)
    case PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64:
      let value = "\(UInt64(18_000_000_000_000_000_000) - UInt64(n))"
      return (value, value)
    case PROTOBUF_C_TYPE_FLOAT:
      let value = "\(Double(n) + 0.25)"
      return (value, value)
    case PROTOBUF_C_TYPE_DOUBLE:
      let value = "\(Double(n) * -1.5 - 0.125)"
      return (value, value)
    case PROTOBUF_C_TYPE_BOOL: return ("true", "true")
    case PROTOBUF_C_TYPE_STRING:
      let value = "s\(n) 羽毛球 🏸"
      return ("\"\(value)\"", value)
    case PROTOBUF_C_TYPE_BYTES: return ("\"\\000\\377\\00\(n % 8)b\(n)\"", nil)
    case PROTOBUF_C_TYPE_ENUM:
      // The defined value with the largest number: never the default 0. Swift describes an enum
      // value by its name in the `.proto`.
      let enumType = field.descriptor.assumingMemoryBound(to: ProtobufCEnumDescriptor.self)
        .pointee
      let values = (0..<Int(enumType.n_values)).map { enumType.values[$0] }
      let name = String(cString: values.max { $0.value < $1.value }!.name)
      return (name, name)
    default:
      Issue.record("unknown protobuf-c field type \(field.type)")
      return ("", nil)
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

  /// Runs `protoc --MODE=VALUE` over `files` (every file of `Proto/` by default) with `input`
  /// on standard input: `--encode` or `--decode` of a message, or `--descriptor_set_out`.
  static func run(
    _ mode: String, _ value: String, input: Data, files: [String]? = nil
  ) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/protoc")
    process.arguments = ["--\(mode)=\(value)", "-I", protoRoot.path] + (files ?? protoFiles)
    // The input from a file, so that nothing is written to a pipe protoc may have closed.
    let inputFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("completeness-\(UUID().uuidString)")
    try input.write(to: inputFile)
    defer { try? FileManager.default.removeItem(at: inputFile) }
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = try FileHandle(forReadingFrom: inputFile)
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    // Small outputs (a few KB), and errors far below a pipe's 64 KiB: read one, then the other.
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

/// One case at a time: each waits for protoc, and holds a thread of the shared pool meanwhile.
@Suite("Every field of every message survives Swift, protoc-c and Google's protobuf", .serialized)
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
        let (text, fieldsSet, expected) = writer.text(type.cDescriptor.pointer, variant: variant)
        cases.append(
          CompletenessCase(
            type: type, variant: variant, soleBool: nil, text: text, fieldsSet: fieldsSet,
            expected: expected))
      }
      // With two bool fields or more, a case for each with only that one true.
      let bools = (0..<Int(message.n_fields)).map { message.fields[$0] }.filter {
        $0.type == PROTOBUF_C_TYPE_BOOL && $0.label != PROTOBUF_C_LABEL_REPEATED
      }
      for bool in bools where bools.count > 1 {
        let (text, fieldsSet, expected) = writer.text(
          type.cDescriptor.pointer, variant: 0, soleBool: bool.id)
        cases.append(
          CompletenessCase(
            type: type, variant: 0, soleBool: String(cString: bool.name), text: text,
            fieldsSet: fieldsSet, expected: expected))
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

  @Test("the registries hold every message the .proto files declare, as protoc reads them")
  func registries_holdEveryDeclaredMessage() throws {
    // protoc's own descriptor set of Proto/, printed by protoc as text: each file's package, and
    // the name of each message it declares at the top level.
    let set = FileManager.default.temporaryDirectory
      .appendingPathComponent("completeness-set-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: set) }
    _ = try Protoc.run("descriptor_set_out", set.path, input: Data())
    let text = try Protoc.run(
      "decode", "google.protobuf.FileDescriptorSet", input: try Data(contentsOf: set),
      files: ["google/protobuf/descriptor.proto"])
    var declared: Set<String> = []
    var package = ""
    var inMessage = false
    for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
      if line.hasPrefix("  package: ") {
        package = String(line.dropFirst("  package: ".count)).trimmingCharacters(in: ["\""])
      } else if line == "  message_type {" {
        inMessage = true
        continue
      } else if inMessage, line.hasPrefix("    name: ") {
        let name = String(line.dropFirst("    name: ".count)).trimmingCharacters(in: ["\""])
        declared.insert("\(package).\(name)")
      }
      inMessage = false
    }
    let registered = (APIContract.messageTypes + RPCContract.messageTypes).map { $0.fullName }
    #expect(declared.count > 100)
    #expect(Set(registered) == declared)
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

  /// The Swift property of a field, as the message layer names it: lower camel case, `id` as
  /// `ID`.
  static func swiftName(_ field: String) -> String {
    let words = field.split(separator: "_").map(String.init)
    return words.enumerated().map { index, word in
      if index == 0 { return word }
      return ["id": "ID", "ids": "IDs", "url": "URL"][word] ?? word.prefix(1).uppercased()
        + word.dropFirst()
    }.joined()
  }

  private static func check<M: ProtobufMessage>(
    _ type: M.Type, _ completeness: CompletenessCase
  ) throws {
    // Google's encoder makes the bytes from the text; Google's decoder reads them back.
    let googleBytes = try Protoc.run("encode", M.fullName, input: Data(completeness.text.utf8))
    let googleText = try Protoc.run("decode", M.fullName, input: googleBytes)
    let topLevel = String(decoding: googleText, as: UTF8.self).split(separator: "\n").filter {
      !$0.hasPrefix(" ")
    }
    for name in completeness.fieldsSet {
      #expect(
        topLevel.contains { $0.hasPrefix("\(name): ") || $0.hasPrefix("\(name) {") },
        "the value sets \(name)")
    }
    // protoc-c -> Swift -> protoc-c -> bytes -> protoc-c -> Swift.
    let value = try M(serializedBytes: [UInt8](googleBytes))
    if !completeness.fieldsSet.isEmpty { #expect(value != M()) }
    // Each scalar property holds the value the text gave its field (and a bool the text left
    // out holds false), so that no two fields trade places on the way in.
    var properties: [String: String] = [:]
    for child in Mirror(reflecting: value).children {
      guard let label = child.label else { continue }
      properties[label] = String(describing: child.value)
    }
    for (field, swift) in completeness.expected {
      #expect(properties[Self.swiftName(field)] == swift, "\(field)")
    }
    if let sole = completeness.soleBool {
      let message = M.cDescriptor.pointer.pointee
      for index in 0..<Int(message.n_fields) {
        let field = message.fields[index]
        let name = String(cString: field.name)
        guard field.type == PROTOBUF_C_TYPE_BOOL, name != sole else { continue }
        #expect(properties[Self.swiftName(name)] == "false", "\(name)")
      }
    }
    let swiftBytes = value.serializedBytes()
    #expect(try M(serializedBytes: swiftBytes) == value)
    #expect(value.serializedSize == swiftBytes.count)
    // Google's decoder reads the same values from the bytes the Swift value made.
    let swiftText = try Protoc.run("decode", M.fullName, input: Data(swiftBytes))
    #expect(
      String(decoding: swiftText, as: UTF8.self) == String(decoding: googleText, as: UTF8.self))
  }
}
