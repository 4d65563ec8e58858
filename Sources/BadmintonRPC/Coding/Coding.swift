/// Turns a message into bytes: how the RPC core encodes requests (client) and responses (server)
/// without knowing the message type. `ProtobufSerializer` is the one methods of protobuf
/// messages use.
public protocol MessageSerializer<Message>: Sendable {
  /// The type of message this serializer encodes.
  associatedtype Message

  /// The encoding of `message`.
  func serialize<Bytes: RPCContiguousBytes>(_ message: Message) throws -> Bytes
}

/// Turns bytes into a message: how the RPC core decodes requests (server) and responses
/// (client) without knowing the message type. `ProtobufDeserializer` is the one methods of
/// protobuf messages use.
public protocol MessageDeserializer<Message>: Sendable {
  /// The type of message this deserializer decodes.
  associatedtype Message

  /// The message encoded in `bytes`. A `MessageDecodingError` whose `fieldWithNUL` is set is
  /// answered with `STRING_CONTAINS_NUL` by the server; any other error means the bytes are
  /// malformed.
  func deserialize<Bytes: RPCContiguousBytes>(_ bytes: Bytes) throws -> Message
}
