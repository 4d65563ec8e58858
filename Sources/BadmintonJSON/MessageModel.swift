import BadmintonRPC
import CBadmintonRPCProto

/// The kind of a field's values, from protoc-c's `ProtobufCType`.
enum FieldKind: Equatable {
  case int32, sint32, sfixed32, int64, sint64, sfixed64
  case uint32, fixed32, uint64, fixed64
  case float, double, bool, enumeration, string, bytes, message

  init(_ type: ProtobufCType) {
    switch type {
    case PROTOBUF_C_TYPE_INT32: self = .int32
    case PROTOBUF_C_TYPE_SINT32: self = .sint32
    case PROTOBUF_C_TYPE_SFIXED32: self = .sfixed32
    case PROTOBUF_C_TYPE_INT64: self = .int64
    case PROTOBUF_C_TYPE_SINT64: self = .sint64
    case PROTOBUF_C_TYPE_SFIXED64: self = .sfixed64
    case PROTOBUF_C_TYPE_UINT32: self = .uint32
    case PROTOBUF_C_TYPE_FIXED32: self = .fixed32
    case PROTOBUF_C_TYPE_UINT64: self = .uint64
    case PROTOBUF_C_TYPE_FIXED64: self = .fixed64
    case PROTOBUF_C_TYPE_FLOAT: self = .float
    case PROTOBUF_C_TYPE_DOUBLE: self = .double
    case PROTOBUF_C_TYPE_BOOL: self = .bool
    case PROTOBUF_C_TYPE_ENUM: self = .enumeration
    case PROTOBUF_C_TYPE_STRING: self = .string
    case PROTOBUF_C_TYPE_BYTES: self = .bytes
    default: self = .message
    }
  }

  /// The `.proto` name of the type, for error messages.
  var protoName: String {
    switch self {
    case .enumeration: "enum"
    default: "\(self)"
    }
  }

  /// The wire type of one value: 0 varint, 1 64-bit, 2 length-delimited, 5 32-bit.
  var wireType: UInt8 {
    switch self {
    case .int32, .sint32, .int64, .sint64, .uint32, .uint64, .bool, .enumeration: 0
    case .sfixed64, .fixed64, .double: 1
    case .string, .bytes, .message: 2
    case .sfixed32, .fixed32, .float: 5
    }
  }

  /// Whether repeated values of this kind may be packed.
  var isPackable: Bool { wireType != 2 }

  /// Whether JSON writes the value as a string (the 64-bit integers).
  var is64BitInteger: Bool {
    switch self {
    case .int64, .sint64, .sfixed64, .uint64, .fixed64: true
    default: false
    }
  }
}

/// One value of a field.
enum ProtoValue {
  /// A signed integer (int32, sint32, sfixed32, int64, sint64, sfixed64).
  case int(Int64)
  /// An unsigned integer (uint32, fixed32, uint64, fixed64).
  case uint(UInt64)
  /// A float.
  case float(Float)
  /// A double.
  case double(Double)
  /// A bool.
  case bool(Bool)
  /// An enum's number.
  case enumeration(Int32)
  /// A string.
  case string(String)
  /// Bytes.
  case bytes([UInt8])
  /// A nested message.
  case message(ProtoTree)

  /// Whether proto3 leaves the value out of the encoding (as protoc-c does).
  var isDefault: Bool {
    switch self {
    case .int(let value): value == 0
    case .uint(let value): value == 0
    case .float(let value): value == 0
    case .double(let value): value == 0
    case .bool(let value): !value
    case .enumeration(let value): value == 0
    case .string(let value): value.isEmpty
    case .bytes(let value): value.isEmpty
    case .message: false
    }
  }
}

/// A decoded message: each field's values, by the field's index in its descriptor.
struct ProtoTree {
  /// The values of field `index`; a singular field holds at most one.
  var values: [[ProtoValue]]

  /// A message with no field set, for `model`.
  init(_ model: MessageModel) { values = Array(repeating: [], count: model.fields.count) }
}

/// A Swift view of one field descriptor.
struct FieldModel {
  /// The name in the `.proto`.
  let name: String
  /// The JSON name: lowerCamelCase of `name`.
  let jsonName: String
  /// The field number.
  let number: UInt32
  /// The kind of values.
  let kind: FieldKind
  /// Whether the field is repeated.
  let isRepeated: Bool
  /// Whether protoc-c packs the repeated values.
  let isPacked: Bool
  /// For a oneof member, an identifier shared by the oneof's members.
  let oneof: UInt32?
  /// For a message field, the message's descriptor.
  let messageDescriptor: UnsafePointer<ProtobufCMessageDescriptor>?
  /// For an enum field, the enum's descriptor.
  let enumDescriptor: UnsafePointer<ProtobufCEnumDescriptor>?

  init(_ field: ProtobufCFieldDescriptor) {
    name = String(cString: field.name)
    jsonName = FieldModel.lowerCamelCase(name)
    number = field.id
    kind = FieldKind(field.type)
    isRepeated = field.label == PROTOBUF_C_LABEL_REPEATED
    isPacked = field.flags & PROTOBUF_C_FIELD_FLAG_PACKED.rawValue != 0
    oneof =
      field.flags & PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue != 0
      ? UInt32(field.quantifier_offset) : nil
    messageDescriptor =
      kind == .message
      ? field.descriptor?.assumingMemoryBound(to: ProtobufCMessageDescriptor.self) : nil
    enumDescriptor =
      kind == .enumeration
      ? field.descriptor?.assumingMemoryBound(to: ProtobufCEnumDescriptor.self) : nil
  }

  /// protobuf's JSON name: underscores dropped, the letter after each one upper-cased.
  static func lowerCamelCase(_ name: String) -> String {
    var result = ""
    var upperNext = false
    for character in name {
      if character == "_" {
        upperNext = true
      } else if upperNext {
        result += character.uppercased()
        upperNext = false
      } else {
        result.append(character)
      }
    }
    return result
  }

  /// The full name of the field's enum.
  var enumName: String {
    enumDescriptor.map { String(cString: $0.pointee.name) } ?? "enum"
  }

  /// The name of enum value `number`, if the enum defines it.
  func enumValueName(_ number: Int32) -> String? {
    guard let enumDescriptor else { return nil }
    for index in 0..<Int(enumDescriptor.pointee.n_values) {
      let value = enumDescriptor.pointee.values[index]
      if value.value == number { return String(cString: value.name) }
    }
    return nil
  }

  /// The number of the enum value called `name`, if the enum defines it.
  func enumValueNumber(_ name: String) -> Int32? {
    guard let enumDescriptor else { return nil }
    for index in 0..<Int(enumDescriptor.pointee.n_values) {
      let value = enumDescriptor.pointee.values[index]
      if String(cString: value.name) == name { return value.value }
    }
    return nil
  }
}

/// A Swift view of one message descriptor.
struct MessageModel {
  /// The message's full name.
  let fullName: String
  /// The fields, in field-number order (protoc-c sorts them so).
  let fields: [FieldModel]

  init(_ descriptor: CMessageDescriptor) { self.init(descriptor.pointer) }

  init(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>) {
    fullName = String(cString: descriptor.pointee.name)
    let pointee = descriptor.pointee
    fields = (0..<Int(pointee.n_fields)).map { FieldModel(pointee.fields[$0]) }
      .sorted { $0.number < $1.number }
  }

  /// The index of field `number`.
  func index(ofNumber number: UInt32) -> Int? {
    fields.firstIndex { $0.number == number }
  }

  /// The index of the field whose JSON name or `.proto` name is `name`.
  func index(ofName name: String) -> Int? {
    fields.firstIndex { $0.jsonName == name } ?? fields.firstIndex { $0.name == name }
  }
}
