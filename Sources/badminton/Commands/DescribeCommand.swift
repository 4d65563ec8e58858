import ArgumentParser
import BadmintonAPI
import BadmintonRPC
import CBadmintonRPCProto

/// `badminton describe METHOD`: the method's request message, field by field, with the
/// messages and enums it uses.
struct DescribeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "describe",
    abstract: "Print a method's request fields (or a message's, by its full name).",
    discussion: """
      METHOD is /badminton.v1.Players/UpdateProfile, badminton.v1.Players/UpdateProfile, \
      Players/UpdateProfile or Players.UpdateProfile. The request message is printed in .proto \
      syntax, followed by every message and enum it uses; a call's JSON names the fields in \
      lowerCamelCase (display_level is displayLevel) or as written here.

      \(ExitStatus.helpText)
      """)

  @OptionGroup var global: GlobalOptions

  @Argument(help: "The method, or a message's full name such as badminton.v1.Profile.")
  var method: String

  func run() async throws {
    try await Output.reporting(locale: global.rpcLocale) {
      if let message = APIContract.descriptorsByName[method] {
        Output.write(Self.describe(message.pointer))
        return
      }
      try await global.withClient { client in
        let catalog = try await MethodCatalog.fetch(client, options: global.callOptions())
        let info = try catalog.resolve(method)
        let request = try MethodCatalog.message(info.requestType)
        var header = "\(info.path)\n  request:  \(info.requestType)\n"
        header += "  response: \(info.responseType)\(info.serverStreaming ? " (stream)" : "")\n"
        header += "  \(info.requiresAuthentication ? "needs a login session" : "no login needed")"
        header += info.idempotent ? ", idempotent" : ""
        header += info.takesIdempotencyKey ? ", takes --idempotency-key\n\n" : "\n\n"
        Output.write(header + Self.describe(request.pointer))
      }
    }
  }

  /// `message` in `.proto` syntax, then each message and enum its fields use, once each.
  static func describe(_ message: UnsafePointer<ProtobufCMessageDescriptor>) -> String {
    var output = ""
    var pending: [UnsafePointer<ProtobufCMessageDescriptor>] = [message]
    var enums: [UnsafePointer<ProtobufCEnumDescriptor>] = []
    var seen: Set<String> = []
    while !pending.isEmpty {
      let current = pending.removeFirst()
      let name = String(cString: current.pointee.name)
      guard seen.insert(name).inserted else { continue }
      output += "message \(name) {\n"
      let fields = (0..<Int(current.pointee.n_fields)).map { current.pointee.fields[$0] }
        .sorted { $0.id < $1.id }
      for field in fields {
        let label = field.label == PROTOBUF_C_LABEL_REPEATED ? "repeated " : ""
        let oneof = field.flags & PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue != 0 ? "  // oneof" : ""
        output += "  \(label)\(typeName(field)) \(String(cString: field.name)) = \(field.id);"
        output += oneof + "\n"
        if field.type == PROTOBUF_C_TYPE_MESSAGE,
          let nested = field.descriptor?.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
        {
          pending.append(UnsafePointer(nested))
        } else if field.type == PROTOBUF_C_TYPE_ENUM,
          let nested = field.descriptor?.assumingMemoryBound(to: ProtobufCEnumDescriptor.self)
        {
          enums.append(UnsafePointer(nested))
        }
      }
      output += "}\n\n"
    }
    for descriptor in enums {
      let name = String(cString: descriptor.pointee.name)
      guard seen.insert(name).inserted else { continue }
      output += "enum \(name) {\n"
      for index in 0..<Int(descriptor.pointee.n_values) {
        let value = descriptor.pointee.values[index]
        output += "  \(String(cString: value.name)) = \(value.value);\n"
      }
      output += "}\n\n"
    }
    return String(output.dropLast())
  }

  /// The `.proto` type of `field`: a scalar's keyword, or a message's or enum's full name.
  static func typeName(_ field: ProtobufCFieldDescriptor) -> String {
    switch field.type {
    case PROTOBUF_C_TYPE_INT32: "int32"
    case PROTOBUF_C_TYPE_SINT32: "sint32"
    case PROTOBUF_C_TYPE_SFIXED32: "sfixed32"
    case PROTOBUF_C_TYPE_INT64: "int64"
    case PROTOBUF_C_TYPE_SINT64: "sint64"
    case PROTOBUF_C_TYPE_SFIXED64: "sfixed64"
    case PROTOBUF_C_TYPE_UINT32: "uint32"
    case PROTOBUF_C_TYPE_FIXED32: "fixed32"
    case PROTOBUF_C_TYPE_UINT64: "uint64"
    case PROTOBUF_C_TYPE_FIXED64: "fixed64"
    case PROTOBUF_C_TYPE_FLOAT: "float"
    case PROTOBUF_C_TYPE_DOUBLE: "double"
    case PROTOBUF_C_TYPE_BOOL: "bool"
    case PROTOBUF_C_TYPE_STRING: "string"
    case PROTOBUF_C_TYPE_BYTES: "bytes"
    case PROTOBUF_C_TYPE_ENUM:
      field.descriptor.map {
        String(cString: $0.assumingMemoryBound(to: ProtobufCEnumDescriptor.self).pointee.name)
      } ?? "enum"
    default:
      field.descriptor.map {
        String(cString: $0.assumingMemoryBound(to: ProtobufCMessageDescriptor.self).pointee.name)
      } ?? "message"
    }
  }
}
