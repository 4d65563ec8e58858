import SwiftProtobufPluginLibrary

/// Writes a module's registry: every message type and service descriptor generated from its
/// `.proto` package, for code that walks all of them (reflection, the command line, the tests).
struct RegistryFile {
  let files: [FileDescriptor]
  let module: ModuleTarget

  func render() -> String {
    var out = banner(source: module.protoPackage.replacingOccurrences(of: ".", with: "/"))
    if module.swiftModule != "BadmintonRPC" { out += "public import BadmintonRPC\n" }
    out += "internal import \(module.cModule)\n\n"
    out += "/// Everything generated from `Proto/"
    out += module.protoPackage.replacingOccurrences(of: ".", with: "/")
    out += "`: every message type and service.\n"
    out += "public enum \(module.registry) {\n"
    out += "  /// Every message type, in the order of the `.proto` files.\n"
    out += "  public static var messageTypes: [any ProtobufMessage.Type] {\n    [\n"
    for file in files {
      for message in file.messages { out += "      \(message.name).self,\n" }
    }
    out += "    ]\n  }\n\n"
    out += "  /// protoc-c's descriptor of every service, in the order of the `.proto` files.\n"
    out += "  public static var services: [CServiceDescriptor] {\n    [\n"
    for file in files {
      for service in file.services {
        let cName = Naming.cLowerName(package: file.package, name: service.name)
        out += "      CServiceDescriptor(pointer: \(cName)__descriptor_pointer()),\n"
      }
    }
    out += "    ]\n  }\n}\n"
    return out
  }
}

/// Writes the random-value generators the property tests use: one function per message, each
/// setting every field, and a round-trip case per message.
struct TestGeneratorFile {
  let files: [FileDescriptor]
  let imports: [String]
  /// Whether to list a round-trip case per message (the test target defines `RoundTripCase`).
  let roundTripCases: Bool

  func render() throws -> String {
    var out = banner(source: "*")
    for module in imports.sorted() { out += "import \(module)\n" }
    out += "\nextension MessageGen {\n"
    var cases: [String] = []
    for file in files {
      for message in file.messages {
        try checkNoCycle(message, path: [])
        out += try renderMessage(message)
        cases.append("    .of(Generator { rng in \(Naming.lowerFirst(message.name))(&rng) }),\n")
      }
    }
    if roundTripCases {
      out += "\n  /// A round-trip case for every message generated from `Proto/`.\n"
      out += "  static let roundTripCases: [RoundTripCase] = [\n"
      out += cases.joined()
      out += "  ]\n"
    }
    return out + "}\n"
  }

  private func checkNoCycle(_ message: Descriptor, path: [String]) throws {
    guard !path.contains(message.fullName) else {
      throw CodegenError(
        description: "\(message.fullName) contains itself: random values would never end")
    }
    for field in message.fields where field.type == .message {
      try checkNoCycle(field.messageType, path: path + [message.fullName])
    }
  }

  private func renderMessage(_ message: Descriptor) throws -> String {
    let function = Naming.lowerFirst(message.name)
    var arguments: [String] = []
    var oneofHelpers = ""
    var placed = Set<String>()
    for field in message.fields {
      if let oneof = field.realContainingOneof {
        guard placed.insert(oneof.name).inserted else { continue }
        let helper = function + Naming.upperCamel(oneof.name)
        arguments.append("\(Naming.lowerCamel(oneof.name)): \(helper)(&rng)")
        oneofHelpers += try renderOneof(oneof, message: message, helper: helper)
        continue
      }
      arguments.append("\(field.swiftName): \(try value(field))")
    }
    var out = "\n  /// A random `\(message.fullName)`, every field set at random.\n"
    out +=
      "  static func \(function)(_ rng: inout any SeededRandomNumberGenerator) -> \(message.name) {\n"
    if arguments.isEmpty {
      out += "    \(message.name)()\n"
    } else {
      out += "    \(message.name)(\n"
      out += arguments.map { "      \($0)" }.joined(separator: ",\n") + ")\n"
    }
    out += "  }\n"
    return out + oneofHelpers
  }

  private func renderOneof(_ oneof: OneofDescriptor, message: Descriptor, helper: String) throws
    -> String
  {
    let type = "\(message.name).\(Naming.upperCamel(oneof.name))"
    var out = "\n  /// A random `\(message.fullName).\(oneof.name)`: unset, or any of its fields.\n"
    out += "  static func \(helper)(_ rng: inout any SeededRandomNumberGenerator) -> \(type)? {\n"
    out += "    switch Int.random(in: 0...\(oneof.fields.count), using: &rng) {\n"
    for (index, field) in oneof.fields.enumerated() {
      out += "    case \(index + 1): .\(field.swiftName)(\(try singleValue(field)))\n"
    }
    out += "    default: nil\n    }\n  }\n"
    return out
  }

  /// A random value of a field outside a oneof.
  private func value(_ field: FieldDescriptor) throws -> String {
    let single = try singleValue(field)
    if field.isRepeated { return "(0..<count(&rng)).map { _ in \(single) }" }
    if field.type == .message, !field.isAlwaysPresent {
      return "optional(&rng, \(Naming.lowerFirst(field.messageType.name)))"
    }
    return single
  }

  /// A random value of one element of a field.
  private func singleValue(_ field: FieldDescriptor) throws -> String {
    switch try field.shape() {
    case .number(let type): return "\(type.lowercased())(&rng)"
    case .bool: return "bool(&rng)"
    case .string: return "string(&rng)"
    case .bytes: return "bytes(&rng)"
    case .enumeration(let type, _):
      let numbers = field.enumType.values.map(\.number)
      return "\(type)(rawValue: enumNumber(&rng, defined: \(numbers.min()!)...\(numbers.max()!)))"
    case .message(let type): return "\(Naming.lowerFirst(type))(&rng)"
    }
  }
}
