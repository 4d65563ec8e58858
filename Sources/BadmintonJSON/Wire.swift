/// Reads the protobuf binary encoding into a `ProtoTree`, guided by a `MessageModel`.
struct WireReader {
  let bytes: [UInt8]
  var offset = 0
  var depth = 0
  /// The end of the message (or packed run) being read: nothing is read past it.
  var limit: Int

  init(bytes: [UInt8]) {
    self.bytes = bytes
    self.limit = bytes.count
  }

  mutating func varint() throws(ProtoJSONError) -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard offset < limit, shift < 64 else {
        throw .binary("truncated or overlong varint at byte \(offset)")
      }
      let byte = bytes[offset]
      offset += 1
      result |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return result }
      shift += 7
    }
  }

  mutating func fixed(_ size: Int, end: Int) throws(ProtoJSONError) -> UInt64 {
    guard end - offset >= size else {
      throw .binary("truncated fixed-size value at byte \(offset)")
    }
    var result: UInt64 = 0
    for index in 0..<size { result |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
    offset += size
    return result
  }

  mutating func length(end: Int) throws(ProtoJSONError) -> Int {
    let length = try varint()
    guard offset <= end, length <= UInt64(end - offset) else {
      throw .binary("length \(length) at byte \(offset) runs past the end of the message")
    }
    return Int(length)
  }

  /// One value of `field` with wire type `wireType`.
  mutating func value(
    _ field: FieldModel, wireType: UInt8, end: Int
  ) throws(ProtoJSONError) -> ProtoValue {
    switch field.kind {
    case .int32: return .int(Int64(Int32(truncatingIfNeeded: try varint())))
    case .int64: return .int(Int64(bitPattern: try varint()))
    case .uint32: return .uint(UInt64(UInt32(truncatingIfNeeded: try varint())))
    case .uint64: return .uint(try varint())
    case .sint32:
      let raw = UInt32(truncatingIfNeeded: try varint())
      return .int(Int64(Int32(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))))
    case .sint64:
      let raw = try varint()
      return .int(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
    case .bool: return .bool(try varint() != 0)
    case .enumeration: return .enumeration(Int32(truncatingIfNeeded: try varint()))
    case .fixed32: return .uint(try fixed(4, end: end))
    case .sfixed32: return .int(Int64(Int32(bitPattern: UInt32(try fixed(4, end: end)))))
    case .float: return .float(Float(bitPattern: UInt32(try fixed(4, end: end))))
    case .fixed64: return .uint(try fixed(8, end: end))
    case .sfixed64: return .int(Int64(bitPattern: try fixed(8, end: end)))
    case .double: return .double(Double(bitPattern: try fixed(8, end: end)))
    case .string:
      let count = try length(end: end)
      defer { offset += count }
      // protobuf-c ends a string at U+0000 and the JSON parser refuses `\u0000`: a string
      // holding one is refused, as the messages' own decoding refuses it.
      guard !bytes[offset..<offset + count].contains(0) else {
        throw .binary("field \"\(field.name)\" holds U+0000 at byte \(offset)")
      }
      // proto3 strings are UTF-8; anything else is refused rather than silently replaced.
      guard let text = String(validating: bytes[offset..<offset + count], as: UTF8.self) else {
        throw .binary("field \"\(field.name)\" is not valid UTF-8 at byte \(offset)")
      }
      return .string(text)
    case .bytes:
      let count = try length(end: end)
      defer { offset += count }
      return .bytes(Array(bytes[offset..<offset + count]))
    case .message:
      let count = try length(end: end)
      guard let descriptor = field.messageDescriptor else {
        throw .binary("field \"\(field.name)\" has no message descriptor")
      }
      guard depth < maxDepth else { throw .binary("messages nested deeper than \(maxDepth)") }
      depth += 1
      defer { depth -= 1 }
      return .message(try readMessage(MessageModel(descriptor), end: offset + count))
    }
  }

  /// Skips one value of wire type `wireType`.
  mutating func skip(wireType: UInt8, end: Int) throws(ProtoJSONError) {
    switch wireType {
    case 0: _ = try varint()
    case 1: _ = try fixed(8, end: end)
    case 2: offset += try length(end: end)
    case 5: _ = try fixed(4, end: end)
    default: throw .binary("unsupported wire type \(wireType) at byte \(offset)")
    }
  }

  /// The message of `model` between the current offset and `end`.
  mutating func readMessage(_ model: MessageModel, end: Int) throws(ProtoJSONError) -> ProtoTree {
    let outer = limit
    limit = end
    defer { limit = outer }
    var tree = ProtoTree(model)
    while offset < end {
      let tag = try varint()
      let wireType = UInt8(tag & 7)
      let number = tag >> 3
      guard number > 0, number <= UInt64(UInt32.max) else {
        throw .binary("invalid field number \(number) at byte \(offset)")
      }
      guard let index = model.index(ofNumber: UInt32(number)) else {
        try skip(wireType: wireType, end: end)
        continue
      }
      let field = model.fields[index]
      if field.isRepeated && field.kind.isPackable && wireType == 2 {
        let count = try length(end: end)
        let packedEnd = offset + count
        limit = packedEnd
        defer { limit = end }
        while offset < packedEnd {
          tree.values[index].append(try value(field, wireType: field.kind.wireType, end: packedEnd))
        }
        guard offset == packedEnd else { throw .binary("packed field \"\(field.name)\" overruns") }
        continue
      }
      guard wireType == field.kind.wireType else {
        throw .binary(
          "field \"\(field.name)\" of \(model.fullName) has wire type \(wireType), "
            + "expected \(field.kind.wireType)")
      }
      let decoded = try value(field, wireType: wireType, end: end)
      guard offset <= end else { throw .binary("field \"\(field.name)\" overruns its message") }
      if field.isRepeated {
        tree.values[index].append(decoded)
      } else {
        if let oneof = field.oneof {
          for other in model.fields.indices where model.fields[other].oneof == oneof {
            if other != index { tree.values[other] = [] }
          }
        }
        // A repeated singular message merges into the earlier one, as protobuf does.
        if case .message(let later) = decoded,
          case .message(var earlier)? = tree.values[index].first,
          let descriptor = field.messageDescriptor
        {
          // Taken out first, so that merging works on storage nothing else shares.
          tree.values[index] = []
          Self.merge(into: &earlier, later, MessageModel(descriptor))
          tree.values[index] = [.message(earlier)]
        } else {
          tree.values[index] = [decoded]
        }
      }
    }
    guard offset == end else { throw .binary("message \(model.fullName) overruns its length") }
    return tree
  }

  /// `later` merged into `earlier`: repeated fields append, messages merge, the rest replace.
  static func merge(into earlier: inout ProtoTree, _ later: ProtoTree, _ model: MessageModel) {
    for (index, field) in model.fields.enumerated() where !later.values[index].isEmpty {
      if field.isRepeated {
        earlier.values[index] += later.values[index]
        continue
      }
      if let oneof = field.oneof {
        for other in model.fields.indices where model.fields[other].oneof == oneof && other != index
        {
          earlier.values[other] = []
        }
      }
      if case .message(var a)? = earlier.values[index].first,
        case .message(let b)? = later.values[index].first,
        let descriptor = field.messageDescriptor
      {
        earlier.values[index] = []
        merge(into: &a, b, MessageModel(descriptor))
        earlier.values[index] = [.message(a)]
      } else {
        earlier.values[index] = later.values[index]
      }
    }
  }
}

/// The deepest nesting of messages or JSON values accepted.
let maxDepth = 64

/// Writes a `ProtoTree` in the protobuf binary encoding, as protoc-c packs it: fields in number
/// order, proto3 defaults left out (except set oneof members and present messages), repeated
/// scalars packed where the descriptor says so.
struct WireWriter {
  var bytes: [UInt8] = []

  mutating func varint(_ value: UInt64) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7F) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  mutating func fixed(_ value: UInt64, _ size: Int) {
    for index in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
  }

  mutating func tag(_ number: UInt32, _ wireType: UInt8) {
    varint(UInt64(number) << 3 | UInt64(wireType))
  }

  mutating func lengthDelimited(_ body: [UInt8]) {
    varint(UInt64(body.count))
    bytes += body
  }

  /// One value, without its tag.
  mutating func value(_ value: ProtoValue, _ field: FieldModel) {
    switch (field.kind, value) {
    case (.sint32, .int(let number)), (.sint64, .int(let number)):
      varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
    case (.sfixed32, .int(let number)), (.fixed32, .int(let number)):
      fixed(UInt64(UInt32(truncatingIfNeeded: number)), 4)
    case (.sfixed64, .int(let number)), (.fixed64, .int(let number)):
      fixed(UInt64(bitPattern: number), 8)
    case (.fixed32, .uint(let number)): fixed(number, 4)
    case (.fixed64, .uint(let number)): fixed(number, 8)
    case (_, .int(let number)): varint(UInt64(bitPattern: number))
    case (_, .uint(let number)): varint(number)
    case (_, .enumeration(let number)): varint(UInt64(bitPattern: Int64(number)))
    case (_, .bool(let flag)): varint(flag ? 1 : 0)
    case (_, .float(let number)): fixed(UInt64(number.bitPattern), 4)
    case (_, .double(let number)): fixed(number.bitPattern, 8)
    case (_, .string(let text)): lengthDelimited(Array(text.utf8))
    case (_, .bytes(let data)): lengthDelimited(data)
    case (_, .message(let tree)):
      var nested = WireWriter()
      if let descriptor = field.messageDescriptor {
        nested.writeMessage(tree, MessageModel(descriptor))
      }
      lengthDelimited(nested.bytes)
    }
  }

  mutating func writeMessage(_ tree: ProtoTree, _ model: MessageModel) {
    for (index, field) in model.fields.enumerated() {
      let values = tree.values[index]
      guard !values.isEmpty else { continue }
      if field.isRepeated {
        if field.isPacked {
          var packed = WireWriter()
          for item in values { packed.value(item, field) }
          tag(field.number, 2)
          lengthDelimited(packed.bytes)
        } else {
          for item in values {
            tag(field.number, field.kind.wireType)
            value(item, field)
          }
        }
      } else {
        let item = values[0]
        if field.oneof == nil && item.isDefault { continue }
        tag(field.number, field.kind.wireType)
        value(item, field)
      }
    }
  }
}
