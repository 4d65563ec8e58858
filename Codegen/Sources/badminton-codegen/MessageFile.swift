import SwiftProtobufPluginLibrary

/// Writes the Swift of one `.proto` file: its enums as open enum structs and its messages as
/// structs that convert to and from protoc-c's structs.
struct MessageFile {
  let file: FileDescriptor
  let module: ModuleTarget

  func render() throws -> String {
    var out = banner(source: file.name)
    if module.swiftModule != "BadmintonRPC" { out += "public import BadmintonRPC\n" }
    out += "public import \(module.cModule)\n"
    for enumType in file.enums { out += "\n" + renderEnum(enumType) }
    for message in file.messages {
      guard message.messages.isEmpty, message.enums.isEmpty else {
        throw CodegenError(description: "\(message.fullName): nested types are not generated")
      }
      out += "\n" + (try renderMessage(message))
    }
    return out
  }

  // MARK: - Enums

  private func renderEnum(_ enumType: EnumDescriptor) -> String {
    let name = enumType.name
    let prefix = Naming.camelToUpper(name)
    var out = enumType.docComment(indent: "", fallback: "`\(enumType.fullName)`.")
    out += """
      public struct \(name): Hashable, Sendable, CustomStringConvertible {
        /// The number on the wire.
        public var rawValue: Int32

        /// Wraps a number from the wire; numbers this build does not know are kept.
        public init(rawValue: Int32) { self.rawValue = rawValue }

      """
    let cases = enumType.swiftCaseNames
    for (value, swiftName) in zip(enumType.values, cases) {
      out += "\n"
      out += value.docComment(indent: "  ", fallback: "`\(value.name)`.")
      out += "  public static let \(Naming.escaped(swiftName))"
      out += " = \(name)(rawValue: \(value.number))\n"
    }
    out += """

        /// The name the `.proto` gives the number.
        public var description: String {
          switch rawValue {

      """
    var seen = Set<Int32>()
    for value in enumType.values where seen.insert(value.number).inserted {
      out += "    case \(value.number): \"\(value.name)\"\n"
    }
    out += """
          default: "\(prefix)_\\(rawValue)"
          }
        }
      }

      """
    return out
  }

  // MARK: - Messages

  private func renderMessage(_ message: Descriptor) throws -> String {
    let name = message.name
    let oneofs = message.realOneofs
    let plainFields = message.fields.filter { $0.realContainingOneof == nil }
    var out = message.docComment(indent: "", fallback: "`\(message.fullName)`.")
    out += """
      public struct \(name): ProtobufMessage, Hashable {
        /// The protoc-c struct of `\(message.fullName)`.
        public typealias CMessage = \(message.cType)
        /// protoc-c's descriptor of `\(message.fullName)`.
        public static var cDescriptor: CMessageDescriptor {
          CMessageDescriptor(pointer: \(message.cLower)__descriptor_pointer())
        }

      """
    for oneof in oneofs { out += "\n" + (try renderOneofType(oneof)) }
    // Properties, in field order; a oneof stands where its first field does.
    var members: [(declaration: String, parameter: String, assignment: String)] = []
    var placedOneofs = Set<String>()
    for field in message.fields {
      if let oneof = field.realContainingOneof {
        guard placedOneofs.insert(oneof.name).inserted else { continue }
        let property = Naming.escaped(Naming.lowerCamel(oneof.name))
        let type = Naming.upperCamel(oneof.name)
        let doc = oneof.docComment(indent: "  ", fallback: "`oneof \(oneof.name)`.")
        members.append(
          (
            doc + "  public var \(property): \(type)? = nil\n",
            "\(property): \(type)? = nil",
            "self.\(property) = \(property)"
          ))
        continue
      }
      let property = Naming.escaped(field.swiftName)
      let (type, initial) = try swiftType(field)
      let doc = field.docComment(indent: "  ", fallback: "`\(field.name)`.")
      members.append(
        (
          doc + "  public var \(property): \(type) = \(initial)\n",
          "\(property): \(type) = \(initial)",
          "self.\(property) = \(property)"
        ))
    }
    out += "\n"
    out += members.map(\.declaration).joined(separator: "\n")
    if !members.isEmpty { out += "\n" }
    out += "  /// The message with every field at its default.\n"
    out += "  public init() {}\n"
    if !members.isEmpty {
      out += "\n  /// A message with the given fields; the others keep their defaults.\n"
      out += "  public init(\n"
      out += members.map { "    \($0.parameter)" }.joined(separator: ",\n") + "\n"
      out += "  ) {\n"
      out += members.map { "    \($0.assignment)\n" }.joined()
      out += "  }\n"
    }
    // From C.
    let decodeLines = try plainFields.map(decodeLine) + oneofs.map(decodeOneof)
    out += "\n  /// Copies a protoc-c struct.\n"
    if decodeLines.isEmpty {
      out += "  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {}\n"
    } else {
      out += "  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {\n"
      out += decodeLines.joined()
      out += "  }\n"
    }
    // To C.
    out += "\n  /// A protoc-c struct for this message whose pointers live in `arena`.\n"
    out += "  public func cMessage(in arena: CArena) -> CMessage {\n"
    out += "    var c = CMessage()\n"
    out += "    \(message.cLower)__init(&c)\n"
    out += try plainFields.map(encodeLine).joined()
    out += try oneofs.map(encodeOneof).joined()
    out += "    return c\n"
    out += "  }\n"
    out += "}\n"
    return out
  }

  /// The Swift type of a field outside a oneof, and its default value.
  private func swiftType(_ field: FieldDescriptor) throws -> (String, String) {
    let shape = try field.shape()
    if field.isRepeated {
      guard !field.isMap else {
        throw CodegenError(description: "\(field.fullName): map fields are not generated")
      }
      return ("[\(elementType(shape))]", "[]")
    }
    switch shape {
    case .number(let type): return (type, "0")
    case .bool: return ("Bool", "false")
    case .string: return ("String", "\"\"")
    case .bytes: return ("[UInt8]", "[]")
    case .enumeration(let type, _): return (type, "\(type)(rawValue: 0)")
    case .message(let type):
      return field.isAlwaysPresent ? (type, "\(type)()") : ("\(type)?", "nil")
    }
  }

  private func elementType(_ shape: FieldShape) -> String {
    switch shape {
    case .number(let type): type
    case .bool: "Bool"
    case .string: "String"
    case .bytes: "[UInt8]"
    case .enumeration(let type, _): type
    case .message(let type): type
    }
  }

  private func decodeLine(_ field: FieldDescriptor) throws -> String {
    let property = "self." + Naming.escaped(field.swiftName)
    let member = "c." + field.cMember
    let count = "c.n_" + field.cMember
    let shape = try field.shape()
    if field.isRepeated {
      switch shape {
      case .number: return "    \(property) = CField.scalars(\(count), \(member))\n"
      case .bool: return "    \(property) = CField.scalars(\(count), \(member)).map { $0 != 0 }\n"
      case .string: return "    \(property) = CField.strings(\(count), \(member))\n"
      case .bytes: return "    \(property) = CField.byteArrays(\(count), \(member))\n"
      case .enumeration(let type, _):
        return "    \(property) = CField.scalars(\(count), \(member)).map {\n"
          + "      \(type)(rawValue: CField.enumValue($0))\n    }\n"
      case .message(let type):
        return "    \(property) = try CField.messages(\(count), \(member), as: \(type).self)\n"
      }
    }
    switch shape {
    case .number: return "    \(property) = \(member)\n"
    case .bool: return "    \(property) = \(member) != 0\n"
    case .string: return "    \(property) = CField.string(\(member))\n"
    case .bytes: return "    \(property) = CField.bytes(\(member))\n"
    case .enumeration(let type, _):
      return "    \(property) = \(type)(rawValue: CField.enumValue(\(member)))\n"
    case .message(let type):
      let read = "try CField.message(\(member), as: \(type).self)"
      return field.isAlwaysPresent
        ? "    \(property) = \(read) ?? \(type)()\n" : "    \(property) = \(read)\n"
    }
  }

  private func encodeLine(_ field: FieldDescriptor) throws -> String {
    let value = Naming.escaped(field.swiftName)
    let member = "c." + field.cMember
    let pair = "(c.n_\(field.cMember), \(member))"
    let shape = try field.shape()
    if field.isRepeated {
      switch shape {
      case .number: return "    \(pair) = arena.scalars(\(value))\n"
      case .bool:
        return "    \(pair) = arena.scalars(\(value).map { $0 ? protobuf_c_boolean(1) : 0 })\n"
      case .string: return "    \(pair) = arena.strings(\(value))\n"
      case .bytes: return "    \(pair) = arena.byteArrays(\(value))\n"
      case .enumeration(_, let cType):
        return
          "    \(pair) = arena.scalars(\(value).map { CField.cEnum($0.rawValue, as: \(cType).self) })\n"
      case .message: return "    \(pair) = arena.messages(\(value))\n"
      }
    }
    switch shape {
    case .number: return "    \(member) = \(value)\n"
    case .bool: return "    \(member) = \(value) ? 1 : 0\n"
    case .string:
      // An empty string stays protobuf-c's shared empty string: nothing to copy.
      return "    if !\(value).isEmpty { \(member) = arena.string(\(value)) }\n"
    case .bytes: return "    \(member) = arena.bytes(\(value))\n"
    case .enumeration(_, let cType):
      return "    \(member) = CField.cEnum(\(value).rawValue, as: \(cType).self)\n"
    case .message:
      return field.isAlwaysPresent
        ? "    \(member) = arena.pointer(to: \(value).cMessage(in: arena))\n"
        : "    if let \(value) { \(member) = arena.pointer(to: \(value).cMessage(in: arena)) }\n"
    }
  }

  // MARK: - Oneofs

  private func renderOneofType(_ oneof: OneofDescriptor) throws -> String {
    var out = oneof.docComment(indent: "  ", fallback: "`oneof \(oneof.name)`.")
    out += "  public enum \(Naming.upperCamel(oneof.name)): Hashable, Sendable {\n"
    for field in oneof.fields {
      guard !field.isRepeated else {
        throw CodegenError(description: "\(field.fullName): repeated in a oneof")
      }
      let (type, _) = try swiftType(field)
      out += field.docComment(indent: "    ", fallback: "`\(field.name)`.")
      out +=
        "    case \(Naming.escaped(field.swiftName))(\(type.hasSuffix("?") ? String(type.dropLast()) : type))\n"
    }
    out += "  }\n"
    return out
  }

  private func oneofCaseConstant(_ oneof: OneofDescriptor, _ field: FieldDescriptor?) -> String {
    let message = oneof.containingType!
    let base =
      Naming.cUpperName(package: message.file.package, name: message.name) + "__"
      + oneof.name.uppercased()
    guard let field else { return base + "__NOT_SET" }
    return base + "_" + field.name.uppercased()
  }

  private func decodeOneof(_ oneof: OneofDescriptor) throws -> String {
    let property = "self." + Naming.escaped(Naming.lowerCamel(oneof.name))
    let type = Naming.upperCamel(oneof.name)
    var out = "    switch c.\(Naming.cMember(oneof.name))_case {\n"
    for field in oneof.fields {
      let member = "c." + field.cMember
      let swiftCase = "\(type).\(Naming.escaped(field.swiftName))"
      out += "    case \(oneofCaseConstant(oneof, field)):\n"
      switch try field.shape() {
      case .number: out += "      \(property) = \(swiftCase)(\(member))\n"
      case .bool: out += "      \(property) = \(swiftCase)(\(member) != 0)\n"
      case .string: out += "      \(property) = \(swiftCase)(CField.string(\(member)))\n"
      case .bytes: out += "      \(property) = \(swiftCase)(CField.bytes(\(member)))\n"
      case .enumeration(let enumType, _):
        out +=
          "      \(property) = \(swiftCase)(\(enumType)(rawValue: CField.enumValue(\(member))))\n"
      case .message(let messageType):
        out +=
          "      \(property) = try CField.message(\(member), as: \(messageType).self).map(\(swiftCase))\n"
      }
    }
    out += "    default:\n      \(property) = nil\n    }\n"
    return out
  }

  private func encodeOneof(_ oneof: OneofDescriptor) throws -> String {
    let property = Naming.escaped(Naming.lowerCamel(oneof.name))
    let caseMember = "c.\(Naming.cMember(oneof.name))_case"
    var out = "    switch \(property) {\n"
    for field in oneof.fields {
      let member = "c." + field.cMember
      out += "    case .\(Naming.escaped(field.swiftName))(let value):\n"
      out += "      \(caseMember) = \(oneofCaseConstant(oneof, field))\n"
      switch try field.shape() {
      case .number: out += "      \(member) = value\n"
      case .bool: out += "      \(member) = value ? 1 : 0\n"
      case .string: out += "      \(member) = arena.string(value)\n"
      case .bytes: out += "      \(member) = arena.bytes(value)\n"
      case .enumeration(_, let cType):
        out += "      \(member) = CField.cEnum(value.rawValue, as: \(cType).self)\n"
      case .message: out += "      \(member) = arena.pointer(to: value.cMessage(in: arena))\n"
      }
    }
    out += "    case nil:\n      \(caseMember) = \(oneofCaseConstant(oneof, nil))\n    }\n"
    return out
  }
}

/// The first line of every generated file.
func banner(source: String) -> String {
  "// DO NOT EDIT. Generated by Codegen/generate.sh from Proto/\(source).\n\n"
}
