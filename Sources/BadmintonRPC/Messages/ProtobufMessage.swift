public import CBadmintonRPCProto

/// A protobuf message with a Swift type, encoded and decoded through protoc-c's generated code.
///
/// A conforming type converts to and from its protoc-c struct in one place each
/// (`init(cMessage:)` and `cMessage(in:)`); packing, unpacking and freeing live here, once.
public protocol ProtobufMessage: Sendable, Equatable {
  /// The protoc-c struct generated for this message.
  associatedtype CMessage

  /// protoc-c's descriptor of this message.
  static var cDescriptor: CMessageDescriptor { get }

  /// The message with every field at its default.
  init()

  /// Copies a protoc-c struct that `protobuf_c_message_unpack` produced.
  init(cMessage: borrowing CMessage) throws(MessageDecodingError)

  /// A protoc-c struct for this message whose pointers live in `arena`.
  func cMessage(in arena: CArena) -> CMessage
}

/// The bytes given to a message decoder are not a valid encoding of that message.
public struct MessageDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The full name of the message that was expected.
  public var messageType: String
  /// The path of a string field that holds U+0000 (e.g. `ratings[1].note`), when that is why the
  /// bytes were refused: protobuf-c would cut such a string at the NUL.
  public var fieldWithNUL: String?

  /// An error for `messageType`; `fieldWithNUL` names a string field that holds U+0000.
  public init(messageType: String, fieldWithNUL: String? = nil) {
    self.messageType = messageType
    self.fieldWithNUL = fieldWithNUL
  }

  public var description: String {
    if let fieldWithNUL {
      return "field \(fieldWithNUL) of \(messageType) holds U+0000"
    }
    return "bytes are not a valid \(messageType) message"
  }
}

extension ProtobufMessage {
  /// The message's full protobuf name, e.g. `badminton.rpc.v1.Envelope`.
  public static var fullName: String { cDescriptor.fullName }

  /// Decodes the protobuf encoding in `bytes`. Every message is decoded here; a string field
  /// (at any depth, in any element of a repeated field) that holds U+0000 is refused with its
  /// path, as protobuf-c would cut it at the NUL.
  public init(serializedBytes bytes: UnsafeRawBufferPointer) throws(MessageDecodingError) {
    switch StringFieldScan.scan(bytes, Self.cDescriptor.pointer) {
    case nil: break
    case .nul(let field)?:
      throw MessageDecodingError(messageType: Self.fullName, fieldWithNUL: field)
    case .tooDeep?: throw MessageDecodingError(messageType: Self.fullName)
    }
    // protobuf-c reads nothing for a zero length, but wants a valid pointer all the same.
    var empty: UInt8 = 0
    let unpacked = withUnsafePointer(to: &empty) { emptyPointer in
      cbadminton_unpack(
        Self.cDescriptor.pointer, bytes.count,
        bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyPointer)
    }
    guard let unpacked else { throw MessageDecodingError(messageType: Self.fullName) }
    // The one place an unpacked message is freed.
    defer { cbadminton_free_unpacked(unpacked) }
    try self.init(cMessage: unpacked.assumingMemoryBound(to: CMessage.self).pointee)
  }

  /// Decodes the protobuf encoding in `bytes`.
  public init(serializedBytes bytes: [UInt8]) throws(MessageDecodingError) {
    let decoded: Result<Self, MessageDecodingError> = bytes.withUnsafeBytes { raw in
      Result { () throws(MessageDecodingError) in try Self(serializedBytes: raw) }
    }
    self = try decoded.get()
  }

  /// The protobuf encoding of this message.
  public func serializedBytes() -> [UInt8] {
    withCMessagePointer { pointer in
      let size = cbadminton_packed_size(pointer)
      return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
        count = size == 0 ? 0 : cbadminton_pack(pointer, buffer.baseAddress!)
      }
    }
  }

  /// The size of this message's protobuf encoding.
  public var serializedSize: Int {
    withCMessagePointer { cbadminton_packed_size($0) }
  }

  /// Calls `body` with a pointer to this message's protoc-c struct, valid only during the call.
  public func withCMessagePointer<R>(_ body: (UnsafeRawPointer) throws -> R) rethrows -> R {
    let arena = CArena()
    var message = cMessage(in: arena)
    // The struct points into the arena's memory: the arena must outlive every use of it.
    return try withExtendedLifetime(arena) {
      try withUnsafePointer(to: &message) { try body(UnsafeRawPointer($0)) }
    }
  }
}

/// Owns the C memory a protoc-c struct built from Swift values points into, and frees all of it
/// at once when released.
public final class CArena {
  /// The memory handed out, carved from chunks: one `malloc` per chunk, not per field.
  private var blocks: [UnsafeMutableRawPointer] = []
  /// Where the current chunk's free space starts, and how much is left.
  private var free: UnsafeMutableRawPointer?
  private var freeBytes = 0
  /// The next chunk's size; chunks double from 1 KiB.
  private var chunkSize = 1024

  /// One NUL byte, never written to or freed: protobuf-c only reads strings it packs.
  private nonisolated(unsafe) static let emptyString: UnsafeMutablePointer<CChar> = {
    let byte = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    byte.initialize(to: 0)
    return byte
  }()

  /// An empty arena.
  public init() {}

  deinit {
    for block in blocks { block.deallocate() }
  }

  /// `byteCount` bytes aligned to `alignment`, from the current chunk or a new one.
  private func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
    if let free {
      let address = Int(bitPattern: free)
      let padding = (alignment - address % alignment) % alignment
      if padding + byteCount <= freeBytes {
        let start = free + padding
        self.free = start + byteCount
        freeBytes -= padding + byteCount
        return start
      }
    }
    let size = max(chunkSize, byteCount)
    chunkSize = min(chunkSize * 2, 64 * 1024)
    let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    blocks.append(chunk)
    free = chunk + byteCount
    freeBytes = size - byteCount
    return chunk
  }

  /// Uninitialized room for `count` values of `T`.
  private func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
    allocate(
      byteCount: MemoryLayout<T>.stride * count, alignment: max(MemoryLayout<T>.alignment, 1)
    ).bindMemory(to: T.self, capacity: count)
  }

  /// A NUL-terminated copy of `string`. protobuf-c strings end at the first NUL, so a string
  /// holding U+0000 is cut there.
  public func string(_ string: String) -> UnsafeMutablePointer<CChar> {
    // Empty strings, the most common default, share one NUL and allocate nothing.
    guard !string.isEmpty else { return Self.emptyString }
    var string = string
    return string.withUTF8 { utf8 in
      let copy = allocate(CChar.self, count: utf8.count + 1)
      if let source = utf8.baseAddress {
        UnsafeMutableRawPointer(copy).copyMemory(from: source, byteCount: utf8.count)
      }
      copy[utf8.count] = 0
      return copy
    }
  }

  /// A copy of `bytes` as protobuf-c binary data.
  public func bytes(_ bytes: [UInt8]) -> ProtobufCBinaryData {
    guard !bytes.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
    let copy = allocate(UInt8.self, count: bytes.count)
    copy.initialize(from: bytes, count: bytes.count)
    return ProtobufCBinaryData(len: bytes.count, data: copy)
  }

  /// A pointer to a copy of `value`.
  public func pointer<T>(to value: T) -> UnsafeMutablePointer<T> {
    let copy = allocate(T.self, count: 1)
    copy.initialize(to: value)
    return copy
  }

  /// A protobuf-c array of pointers to each message's struct: the count and the array.
  public func messages<M: ProtobufMessage>(
    _ messages: [M]
  ) -> (count: Int, array: UnsafeMutablePointer<UnsafeMutablePointer<M.CMessage>?>?) {
    guard !messages.isEmpty else { return (0, nil) }
    let array = allocate(UnsafeMutablePointer<M.CMessage>?.self, count: messages.count)
    for (index, message) in messages.enumerated() {
      (array + index).initialize(to: pointer(to: message.cMessage(in: self)))
    }
    return (messages.count, array)
  }

  /// A protobuf-c array of NUL-terminated strings: the count and the array.
  public func strings(
    _ strings: [String]
  ) -> (count: Int, array: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
    guard !strings.isEmpty else { return (0, nil) }
    let array = allocate(UnsafeMutablePointer<CChar>?.self, count: strings.count)
    for (index, value) in strings.enumerated() {
      (array + index).initialize(to: string(value))
    }
    return (strings.count, array)
  }

  /// A protobuf-c array of binary data: the count and the array.
  public func byteArrays(_ values: [[UInt8]]) -> (
    count: Int, array: UnsafeMutablePointer<ProtobufCBinaryData>?
  ) {
    scalars(values.map { bytes($0) })
  }

  /// A protobuf-c array of scalars: the count and the array.
  public func scalars<T: BitwiseCopyable>(_ values: [T]) -> (
    count: Int, array: UnsafeMutablePointer<T>?
  ) {
    guard !values.isEmpty else { return (0, nil) }
    let array = allocate(T.self, count: values.count)
    array.initialize(from: values, count: values.count)
    return (values.count, array)
  }
}

/// Reading protoc-c fields back into Swift values.
public enum CField {
  /// A protobuf-c string field; NULL reads as empty.
  public static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
    guard let pointer else { return "" }
    return String(cString: pointer)
  }

  /// A protobuf-c bytes field.
  public static func bytes(_ data: ProtobufCBinaryData) -> [UInt8] {
    guard data.len > 0, let base = data.data else { return [] }
    return Array(UnsafeBufferPointer(start: base, count: data.len))
  }

  /// A protobuf-c repeated scalar field (numbers, `protobuf_c_boolean`s or enums).
  public static func scalars<T>(_ count: Int, _ array: UnsafeMutablePointer<T>?) -> [T] {
    guard count > 0, let array else { return [] }
    return Array(UnsafeBufferPointer(start: array, count: count))
  }

  /// A protobuf-c repeated string field.
  public static func strings(
    _ count: Int, _ array: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
  ) -> [String] {
    scalars(count, array).map(string)
  }

  /// A protobuf-c repeated bytes field.
  public static func byteArrays(_ count: Int, _ array: UnsafeMutablePointer<ProtobufCBinaryData>?)
    -> [[UInt8]]
  {
    scalars(count, array).map(bytes)
  }

  /// A protobuf-c repeated message field.
  public static func messages<M: ProtobufMessage>(
    _ count: Int, _ array: UnsafeMutablePointer<UnsafeMutablePointer<M.CMessage>?>?, as type: M.Type
  ) throws(MessageDecodingError) -> [M] {
    guard count > 0, let array else { return [] }
    var result: [M] = []
    result.reserveCapacity(count)
    for index in 0..<count {
      guard let element = array[index] else { throw MessageDecodingError(messageType: M.fullName) }
      result.append(try M(cMessage: element.pointee))
    }
    return result
  }

  /// A protobuf-c singular message field; NULL reads as nil.
  public static func message<M: ProtobufMessage>(
    _ pointer: UnsafeMutablePointer<M.CMessage>?, as type: M.Type
  ) throws(MessageDecodingError) -> M? {
    guard let pointer else { return nil }
    return try M(cMessage: pointer.pointee)
  }
}

extension CField {
  /// A protobuf-c enum field as its number.
  public static func enumValue<E: RawRepresentable>(_ value: E) -> Int32
  where E.RawValue: BinaryInteger {
    Int32(truncatingIfNeeded: value.rawValue)
  }

  /// A number as a protobuf-c enum field; proto3 enums are open, so any number is kept.
  public static func cEnum<E: RawRepresentable>(_ number: Int32, as type: E.Type) -> E
  where E.RawValue: BinaryInteger {
    E(rawValue: E.RawValue(truncatingIfNeeded: number))!
  }
}

/// The encoded size of the protoc-c message at `message`.
func cbadmintonPackedSize(_ message: UnsafeRawPointer) -> Int {
  cbadminton_packed_size(message)
}

/// Packs the protoc-c message at `message` into `out`; returns the bytes written.
func cbadmintonPack(_ message: UnsafeRawPointer, into out: UnsafeMutablePointer<UInt8>) -> Int {
  cbadminton_pack(message, out)
}
