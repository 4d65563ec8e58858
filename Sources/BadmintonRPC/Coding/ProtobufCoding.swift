import CBadmintonRPCProto
public import NIOCore

/// Encodes protobuf messages through protoc-c: the serializer every method of protobuf messages
/// uses unless given another.
public struct ProtobufSerializer<Message: ProtobufMessage>: MessageSerializer {
  /// The serializer of `Message`.
  public init() {}

  /// The protobuf encoding of `message`, packed once, straight into the returned bytes.
  public func serialize<Bytes: RPCContiguousBytes>(_ message: Message) -> Bytes {
    message.withCMessagePointer { pointer in
      let size = cbadminton_packed_size(pointer)
      var bytes = Bytes(repeating: 0, count: size)
      if size > 0 {
        bytes.withUnsafeMutableBytes { out in
          _ = cbadminton_pack(pointer, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
      }
      return bytes
    }
  }
}

/// Decodes protobuf messages through protoc-c, refusing a string field that holds U+0000 (see
/// `ProtobufMessage.init(serializedBytes:)`): the deserializer every method of protobuf messages
/// uses unless given another.
public struct ProtobufDeserializer<Message: ProtobufMessage>: MessageDeserializer {
  /// The deserializer of `Message`.
  public init() {}

  /// The message encoded in `bytes`; throws `MessageDecodingError`.
  public func deserialize<Bytes: RPCContiguousBytes>(_ bytes: Bytes) throws -> Message {
    try bytes.withUnsafeBytes { raw in try Message(serializedBytes: raw) }
  }
}

extension ProtobufMessage {
  /// Appends this message's protobuf encoding to `buffer`, packed once, in place.
  public func serialize(into buffer: inout ByteBuffer) {
    withCMessagePointer { pointer in
      let size = cbadminton_packed_size(pointer)
      guard size > 0 else { return }
      buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { out in
        cbadminton_pack(pointer, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
      }
    }
  }

  /// Decodes the protobuf encoding in `buffer`'s readable bytes, without copying them.
  public init(serializedBytes buffer: ByteBuffer) throws(MessageDecodingError) {
    let decoded: Result<Self, MessageDecodingError> = buffer.withUnsafeReadableBytes { raw in
      Result { () throws(MessageDecodingError) in try Self(serializedBytes: raw) }
    }
    self = try decoded.get()
  }
}
