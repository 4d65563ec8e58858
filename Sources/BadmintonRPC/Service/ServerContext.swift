public import Logging

/// What a handler knows about the call it serves.
public struct ServerContext: Sendable {
  /// The call id on its connection.
  public let callID: UInt64
  /// The method path.
  public let method: String
  /// The request's metadata.
  public let metadata: [Metadata]
  /// The locale the caller asked for.
  public let locale: RPCLocale
  /// When the call's deadline passes, if it has one.
  public let deadline: ContinuousClock.Instant?
  /// The peer's address, as text.
  public let peer: String
  /// A logger with the call's metadata attached.
  public let logger: Logger

  /// A context with the given fields.
  public init(
    callID: UInt64, method: String, metadata: [Metadata], deadline: ContinuousClock.Instant?,
    peer: String, logger: Logger
  ) {
    self.callID = callID
    self.method = method
    self.metadata = metadata
    self.locale = RPCLocale(metadataValue: metadata.first { $0.key == "locale" }?.value)
    self.deadline = deadline
    self.peer = peer
    self.logger = logger
  }

  /// The value of metadata `key`, the first when there are several.
  public func metadataValue(_ key: String) -> String? {
    metadata.first { $0.key == key }?.value
  }
}

/// Sends the messages of a server-streaming response, in order; each `write` returns once the
/// message is handed to the connection, so a slow reader slows the writer instead of growing
/// the server's memory.
public struct ResponseStreamWriter<Message: ProtobufMessage>: Sendable {
  private let sink: RawResponseSink

  init(sink: RawResponseSink) { self.sink = sink }

  /// Sends `message`; throws when the call has ended (cancelled, deadline, connection closed).
  public func write(_ message: Message) async throws {
    try await sink.send(message.serializedBytes())
  }
}

/// Where a streaming handler's encoded messages go; the transport provides it.
public struct RawResponseSink: Sendable {
  /// Sends one encoded message.
  public let send: @Sendable ([UInt8]) async throws -> Void

  /// A sink that calls `send`.
  public init(send: @escaping @Sendable ([UInt8]) async throws -> Void) { self.send = send }
}
