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
  /// The logger of the call's connection.
  private let connectionLogger: Logger
  /// The authenticated caller, for methods that need authentication; nil for the others.
  public let principal: Principal?

  /// A logger with the call's metadata attached (call id and method), made when asked for, so
  /// that calls that log nothing pay nothing for it.
  public var logger: Logger {
    var logger = connectionLogger
    logger[metadataKey: "call"] = "\(callID)"
    logger[metadataKey: "method"] = "\(method)"
    return logger
  }

  /// A context with the given fields; `logger` is the connection's, without the call's metadata.
  public init(
    callID: UInt64, method: String, metadata: [Metadata], deadline: ContinuousClock.Instant?,
    peer: String, logger: Logger, principal: Principal? = nil
  ) {
    self.principal = principal
    self.callID = callID
    self.method = method
    self.metadata = metadata
    self.locale = RPCLocale(metadataValue: metadata.first { $0.key == "locale" }?.value)
    self.deadline = deadline
    self.peer = peer
    self.connectionLogger = logger
  }

  /// The peer's IP address without the port (`127.0.0.1`, `::1`), for limits kept per client
  /// address; the whole `peer` text when it is not an IP address (a Unix socket, `unknown`).
  public var peerAddress: String {
    // `peer` reads `[IPv4]address:port`, `[IPv4]host/address:port` or the same with `[IPv6]`.
    guard peer.hasPrefix("[IPv4]") || peer.hasPrefix("[IPv6]") else { return peer }
    var address = peer.dropFirst(6)
    if let slash = address.lastIndex(of: "/") { address = address[address.index(after: slash)...] }
    if let colon = address.lastIndex(of: ":") { address = address[..<colon] }
    return String(address)
  }

  /// The value of metadata `key`, the first when there are several.
  public func metadataValue(_ key: String) -> String? {
    metadata.first { $0.key == key }?.value
  }

  /// The token of an `authorization: Bearer <token>` entry.
  public var bearerToken: String? {
    guard let value = metadataValue("authorization") else { return nil }
    let parts = value.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { return nil }
    return String(parts[1])
  }

  /// The authenticated caller; throws UNAUTHENTICATED when there is none.
  public func requirePrincipal() throws -> Principal {
    guard let principal else { throw RPCError.authenticationRequired }
    return principal
  }

  /// This context with `principal` set.
  func authenticated(as principal: Principal) -> ServerContext {
    ServerContext(
      callID: callID, method: method, metadata: metadata, deadline: deadline, peer: peer,
      logger: connectionLogger, principal: principal)
  }
}

/// Sends the messages of a server-streaming response, in order; each `write` returns once the
/// message is handed to the connection, so a slow reader slows the writer instead of growing
/// the server's memory.
public struct ResponseStreamWriter<Message: Sendable>: Sendable {
  private let sink: RawResponseSink
  private let encode: @Sendable (Message) throws -> [UInt8]

  /// A writer into `sink` that encodes each message with `serializer`.
  public init(sink: RawResponseSink, serializer: some MessageSerializer<Message>) {
    self.sink = sink
    self.encode = { message in try serializer.serialize(message) }
  }

  /// Sends `message`; throws when the call has ended (cancelled, deadline, connection closed).
  public func write(_ message: Message) async throws {
    try await sink.send(encode(message))
  }

  /// Sends a message that is already encoded (kept in its encoded form, say), without decoding
  /// and encoding it again; throws like `write(_:)`. `bytes` must be an encoding of `Message`:
  /// they go on the stream as they are.
  public func write(serialized bytes: [UInt8]) async throws {
    try await sink.send(bytes)
  }

  /// Sends messages that are already encoded, in order, as `write(serialized:)` each would, but
  /// handed to the connection together where the transport can (one system call for all of
  /// them); returns once the last is handed over, throws at the first that cannot be sent.
  public func write(serializedContentsOf messages: [[UInt8]]) async throws {
    try await sink.sendAll(messages)
  }
}

extension ResponseStreamWriter where Message: ProtobufMessage {
  /// A writer of protobuf messages into `sink`; the server makes one per streaming call, tests
  /// may make their own.
  public init(sink: RawResponseSink) {
    self.init(sink: sink, serializer: ProtobufSerializer<Message>())
  }
}

/// Where a streaming handler's encoded messages go; the transport provides it.
public struct RawResponseSink: Sendable {
  /// Sends one encoded message.
  public let send: @Sendable ([UInt8]) async throws -> Void
  /// Sends encoded messages in order, together where the transport can; stops at the first
  /// that cannot be sent.
  public let sendAll: @Sendable ([[UInt8]]) async throws -> Void

  /// A sink that calls `send`, once per message.
  public init(send: @escaping @Sendable ([UInt8]) async throws -> Void) {
    self.send = send
    self.sendAll = { messages in
      for message in messages { try await send(message) }
    }
  }

  /// A sink that calls `send` for one message and `sendAll` for several.
  public init(
    send: @escaping @Sendable ([UInt8]) async throws -> Void,
    sendAll: @escaping @Sendable ([[UInt8]]) async throws -> Void
  ) {
    self.send = send
    self.sendAll = sendAll
  }
}
