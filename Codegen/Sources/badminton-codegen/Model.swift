import SwiftProtobuf
import SwiftProtobufPluginLibrary

/// `(badminton.rpc.v1.always_present)`, from `Proto/badminton/rpc/v1/options.proto`: a singular
/// message field the sender always sets, so its Swift property is not optional.
let alwaysPresentOption = MessageExtension<
  OptionalExtensionField<ProtobufBool>, Google_Protobuf_FieldOptions
>(_protobuf_fieldNumber: 50001, fieldName: "badminton.rpc.v1.always_present")

/// `(badminton.rpc.v1.value_prefix)`, from `Proto/badminton/rpc/v1/options.proto`: the prefix an
/// enum's values carry instead of the enum's own name, which their Swift names drop.
let valuePrefixOption = MessageExtension<
  OptionalExtensionField<ProtobufString>, Google_Protobuf_EnumOptions
>(_protobuf_fieldNumber: 50002, fieldName: "badminton.rpc.v1.value_prefix")

extension EnumDescriptor {
  /// The Swift names of the values, in order.
  var swiftCaseNames: [String] {
    Naming.enumCases(
      values.map(\.name), enumName: name,
      valuePrefix: options.getExtensionValue(ext: valuePrefixOption) ?? "")
  }
}

/// A generator refuses what it cannot bridge, naming it.
struct CodegenError: Error, CustomStringConvertible {
  var description: String
}

/// One Swift module's share of the contract: the `.proto` package it holds, and where its
/// generated files go.
struct ModuleTarget {
  /// The `.proto` package, e.g. `badminton.v1`.
  var protoPackage: String
  /// The Swift module, e.g. `BadmintonAPI`.
  var swiftModule: String
  /// The C module protoc-c's code for the package is in.
  var cModule: String
  /// The name of the generated enum that lists the module's messages and services.
  var registry: String
  /// The folder the generated Swift files go to.
  var directory: String

  /// Parses `package=SwiftModule:CModule:Registry:Directory`.
  init(argument: String) throws {
    let halves = argument.split(separator: "=", maxSplits: 1).map(String.init)
    let parts = halves.count == 2 ? halves[1].split(separator: ":").map(String.init) : []
    guard halves.count == 2, parts.count == 4 else {
      throw CodegenError(
        description:
          "--module takes package=SwiftModule:CModule:Registry:Directory, not \(argument)"
      )
    }
    protoPackage = halves[0]
    swiftModule = parts[0]
    cModule = parts[1]
    registry = parts[2]
    directory = parts[3]
  }
}

/// What a field holds, as the Swift and C sides see it.
enum FieldShape {
  /// A number: Swift and C hold the same type.
  case number(swiftType: String)
  /// A bool: C holds `protobuf_c_boolean`.
  case bool
  /// A string: C holds a NUL-terminated `char *`.
  case string
  /// Bytes: C holds `ProtobufCBinaryData`.
  case bytes
  /// An enum: Swift holds the open enum struct, C its enum type.
  case enumeration(swiftType: String, cType: String)
  /// A message: C holds a pointer to its struct.
  case message(swiftType: String)
}

extension FieldDescriptor {
  /// The Swift property name.
  var swiftName: String { Naming.lowerCamel(name) }

  /// The C struct member protoc-c generates.
  var cMember: String { Naming.cMember(name) }

  /// True when the field carries `(badminton.rpc.v1.always_present) = true`.
  var isAlwaysPresent: Bool { options.getExtensionValue(ext: alwaysPresentOption) ?? false }

  /// What the field holds.
  func shape() throws -> FieldShape {
    switch type {
    case .int32, .sint32, .sfixed32: return .number(swiftType: "Int32")
    case .int64, .sint64, .sfixed64: return .number(swiftType: "Int64")
    case .uint32, .fixed32: return .number(swiftType: "UInt32")
    case .uint64, .fixed64: return .number(swiftType: "UInt64")
    case .double: return .number(swiftType: "Double")
    case .float: return .number(swiftType: "Float")
    case .bool: return .bool
    case .string: return .string
    case .bytes: return .bytes
    case .enum:
      let type = enumType!
      return .enumeration(
        swiftType: type.name,
        cType: Naming.cTypeName(package: type.file.package, name: type.name))
    case .message:
      return .message(swiftType: messageType.name)
    default:
      throw CodegenError(description: "\(fullName): the field type \(type) is not bridged")
    }
  }
}

extension Descriptor {
  /// protoc-c's struct type.
  var cType: String { Naming.cTypeName(package: file.package, name: name) }
  /// protoc-c's lower-case name, the stem of its functions and descriptor.
  var cLower: String { Naming.cLowerName(package: file.package, name: name) }
}

extension ProvidesSourceCodeLocation {
  /// The `.proto` comments (leading, then trailing) as `///` lines indented by `indent`, or
  /// `fallback` as one such line when the `.proto` has none.
  func docComment(indent: String, fallback: String) -> String {
    var lines: [String] = []
    if let location = sourceCodeInfoLocation {
      for comment in [location.leadingComments, location.trailingComments] where !comment.isEmpty {
        var text = comment
        if text.hasSuffix("\n") { text.removeLast() }
        lines += text.split(separator: "\n", omittingEmptySubsequences: false).map {
          let line = $0.hasPrefix(" ") ? String($0.dropFirst()) : String($0)
          return line.isEmpty ? "///" : "/// " + line
        }
      }
    }
    if lines.isEmpty { lines = ["/// " + fallback] }
    return lines.map { indent + $0 + "\n" }.joined()
  }
}
