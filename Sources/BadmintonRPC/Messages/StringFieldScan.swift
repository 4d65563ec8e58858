internal import CBadmintonRPCProto

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Finds a string field that holds U+0000 in a message's protobuf encoding, before protobuf-c
/// unpacks it.
///
/// protobuf-c hands strings over as NUL-terminated C strings, so a string holding U+0000 would
/// arrive cut at the NUL, silently. The scan walks the wire bytes once, guided by protoc-c's
/// descriptors: it descends into nested messages, looks at every element of repeated fields,
/// skips everything else by its length, and searches each string's bytes with `memchr`. It
/// allocates nothing unless it finds a NUL; the work is linear in the encoding's size.
enum StringFieldScan {
  /// The deepest nesting of messages the scan follows; deeper encodings are refused.
  static let maximumDepth = 64

  /// What the scan found.
  enum Finding: Equatable {
    /// The string field at this path (e.g. `ratings[1].note`) holds U+0000.
    case nul(field: String)
    /// Messages are nested deeper than `maximumDepth`.
    case tooDeep
  }

  /// The first string field in `bytes`, an encoding of the message `descriptor` describes, that
  /// holds U+0000; nil when none does. Bytes that are not a well-formed encoding end the scan
  /// quietly where they break: protobuf-c refuses them next.
  static func scan(
    _ bytes: UnsafeRawBufferPointer, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>
  ) -> Finding? {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0
    else { return nil }
    let buffer = UnsafeBufferPointer(start: base, count: bytes.count)
    switch walk(buffer, from: 0, to: buffer.count, descriptor, depth: 0) {
    case .clean, .malformed: return nil
    case .tooDeep: return .tooDeep
    case .nul(let reversedPath):
      return .nul(field: reversedPath.reversed().joined(separator: "."))
    }
  }

  /// How many top-level fields numbered `number` `bytes` holds, and their values' bytes
  /// together, counted up to where the encoding breaks (protobuf-c refuses it then). Allocates
  /// nothing; linear in the encoding's size.
  static func count(field number: UInt64, in bytes: UnsafeRawBufferPointer)
    -> (entries: Int, valueBytes: Int)
  {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0
    else { return (0, 0) }
    let buffer = UnsafeBufferPointer(start: base, count: bytes.count)
    var entries = 0
    var valueBytes = 0
    var offset = 0
    while offset < buffer.count, let field = next(buffer, at: offset, end: buffer.count) {
      if field.number == number {
        entries += 1
        valueBytes += field.end - field.valueStart
      }
      offset = field.end
    }
    return (entries, valueBytes)
  }

  /// The outcome of walking one message.
  private enum Walk {
    case clean
    case malformed
    case tooDeep
    /// A NUL in a string; the path's components from the innermost field outwards.
    case nul([String])
  }

  /// A field's tag and where its value lies.
  private struct Field {
    var number: UInt64
    var wireType: UInt8
    /// Where the tag starts.
    var start: Int
    /// Where a length-delimited value's bytes start; for the other wire types, its end.
    var valueStart: Int
    /// Where the value ends.
    var end: Int
  }

  private static func walk(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
    _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int
  ) -> Walk {
    var offset = start
    while offset < end {
      guard let field = next(bytes, at: offset, end: end) else { return .malformed }
      offset = field.end
      guard field.wireType == 2, field.number <= UInt64(UInt32.max),
        let fieldDescriptor = protobuf_c_message_descriptor_get_field(
          descriptor, UInt32(field.number))
      else { continue }
      let found: [String]
      switch fieldDescriptor.pointee.type {
      case PROTOBUF_C_TYPE_STRING:
        let count = field.end - field.valueStart
        guard count > 0, memchr(bytes.baseAddress! + field.valueStart, 0, count) != nil else {
          continue
        }
        found = []
      case PROTOBUF_C_TYPE_MESSAGE:
        guard depth < maximumDepth else { return .tooDeep }
        let nested = fieldDescriptor.pointee.descriptor.assumingMemoryBound(
          to: ProtobufCMessageDescriptor.self)
        switch walk(bytes, from: field.valueStart, to: field.end, nested, depth: depth + 1) {
        case .clean: continue
        case .malformed: return .malformed
        case .tooDeep: return .tooDeep
        case .nul(let inner): found = inner
        }
      default:
        continue
      }
      var name = String(cString: fieldDescriptor.pointee.name)
      if fieldDescriptor.pointee.label == PROTOBUF_C_LABEL_REPEATED {
        let index = occurrences(of: field.number, bytes, from: start, to: field.start)
        name += "[\(index)]"
      }
      return .nul(found + [name])
    }
    return .clean
  }

  /// How many fields numbered `number` lie between `start` and `end`: the index of the next one
  /// among a repeated field's elements. Only called once a NUL is found.
  private static func occurrences(
    of number: UInt64, _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
  ) -> Int {
    var count = 0
    var offset = start
    while offset < end, let field = next(bytes, at: offset, end: end) {
      if field.number == number { count += 1 }
      offset = field.end
    }
    return count
  }

  /// The field whose tag starts at `offset`, or nil when the bytes there do not hold one that ends
  /// by `end`.
  private static func next(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, end: Int)
    -> Field?
  {
    var cursor = offset
    guard let tag = varint(bytes, &cursor, end: end), tag >> 3 != 0 else { return nil }
    let wireType = UInt8(tag & 7)
    let valueStart: Int
    switch wireType {
    case 0:
      guard varint(bytes, &cursor, end: end) != nil else { return nil }
      valueStart = cursor
    case 1, 5:
      let size = wireType == 1 ? 8 : 4
      guard end - cursor >= size else { return nil }
      cursor += size
      valueStart = cursor
    case 2:
      guard let length = varint(bytes, &cursor, end: end), length <= UInt64(end - cursor) else {
        return nil
      }
      valueStart = cursor
      cursor += Int(length)
    default:
      return nil
    }
    return Field(
      number: tag >> 3, wireType: wireType, start: offset, valueStart: valueStart,
      end: cursor)
  }

  /// The varint at `offset`, which moves past it; nil when it is cut off or longer than 10 bytes.
  private static func varint(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int, end: Int)
    -> UInt64?
  {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while offset < end, shift < 64 {
      let byte = bytes[offset]
      offset += 1
      result |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return result }
      shift += 7
    }
    return nil
  }
}
