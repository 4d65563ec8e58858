import Logging
import NIOCore
import NIOEmbedded

@testable import BadmintonRPC

/// A server of the test service that is never bound: tests take its connection handlers.
func embeddedTestServer(
  _ configuration: ServerConfiguration = ServerConfiguration(), probe: HandlerProbe = HandlerProbe()
) -> RPCServer {
  var logger = Logger(label: "test.server")
  logger.logLevel = .critical
  return RPCServer(
    configuration: configuration, services: [TestService(probe: probe)], logger: logger)
}

/// One server connection on an `EmbeddedChannel`, with the handlers the server puts on every
/// connection. Time moves only when the test moves it, so each timer of the connection fires
/// exactly when the test's clock reaches it. Use it from a synchronous test: the loop must stay
/// on the thread that made it, and handler tasks run on it when the loop runs.
final class EmbeddedServerConnection {
  let loop: EmbeddedEventLoop
  let channel: EmbeddedChannel
  let connection: ServerConnectionHandler
  private var unread = ByteBuffer()

  init(
    server: RPCServer, loop: EmbeddedEventLoop = EmbeddedEventLoop(),
    clientAddress: String = "127.0.0.1"
  ) throws {
    let (handlers, connection) = server.connectionHandlers()
    self.loop = loop
    self.connection = connection
    channel = EmbeddedChannel(loop: loop)
    try channel.pipeline.syncOperations.addHandlers(handlers)
    try channel.connect(to: SocketAddress(ipAddress: clientAddress, port: 40_000)).wait()
  }

  /// Delivers `envelope` from the client in one frame, and runs what it set off.
  func receive(_ envelope: Envelope) throws {
    try receive(ByteBuffer(bytes: RawFrames.frame(envelope.serializedBytes())))
  }

  /// Delivers `bytes` from the client, and runs what they set off.
  func receive(_ bytes: ByteBuffer) throws {
    try channel.writeInbound(bytes)
    loop.run()
  }

  /// Moves the clock on by `amount`, running every timer and task due on the way.
  func advance(by amount: TimeAmount) { loop.advanceTime(by: amount) }

  /// The bytes the server wrote since the last call, as they would reach the client, and the
  /// envelopes they complete.
  func drain() throws -> (bytes: [ByteBuffer], envelopes: [Envelope]) {
    loop.run()
    return try readFrames(from: channel, into: &unread)
  }

  /// The envelopes the server wrote since the last call.
  func sent() throws -> [Envelope] { try drain().envelopes }

  /// True until the server closes the connection.
  var isOpen: Bool { channel.isActive }

  /// Closes the connection, lets its handler tasks end, and stops the loop.
  func finish() throws {
    _ = try? channel.finish(acceptAlreadyClosed: true)
    loop.run()
    try loop.syncShutdownGracefully()
  }
}

/// One client connection on an `EmbeddedChannel`, with the handlers the client puts on every
/// connection.
final class EmbeddedClientConnection {
  let channel: EmbeddedChannel
  let connection: ClientConnectionHandler
  private var unread = ByteBuffer()

  init(configuration: ClientConfiguration, loop: EmbeddedEventLoop) throws {
    channel = EmbeddedChannel(loop: loop)
    try channel.pipeline.syncOperations.addHandlers(
      RPCConnection.handlers(configuration: configuration, flags: ConnectionFlags()))
    connection = try channel.pipeline.syncOperations.handler(type: ClientConnectionHandler.self)
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40_001)).wait()
  }

  /// The bytes the client wrote since the last call, and the envelopes they complete.
  func drain() throws -> (bytes: [ByteBuffer], envelopes: [Envelope]) {
    channel.embeddedEventLoop.run()
    return try readFrames(from: channel, into: &unread)
  }

  /// Delivers bytes from the server.
  func receive(_ bytes: ByteBuffer) throws {
    try channel.writeInbound(bytes)
  }
}

/// What `channel` wrote since the last call, and the envelopes that completes, reading frames
/// the way a peer would: `unread` keeps the part of a frame still to come.
private func readFrames(from channel: EmbeddedChannel, into unread: inout ByteBuffer) throws -> (
  bytes: [ByteBuffer], envelopes: [Envelope]
) {
  var chunks: [ByteBuffer] = []
  while let chunk = try channel.readOutbound(as: ByteBuffer.self) {
    chunks.append(chunk)
    var copy = chunk
    unread.writeBuffer(&copy)
  }
  var envelopes: [Envelope] = []
  while let frame = try RawFrames.parse(&unread) { envelopes.append(frame.envelope) }
  return (chunks, envelopes)
}

/// A client and a server connection on one embedded loop, joined by a wire the test pumps.
struct EmbeddedLink {
  let client: EmbeddedClientConnection
  let server: EmbeddedServerConnection

  /// Carries what each side wrote to the other until neither has more to say; returns the
  /// envelopes that went each way.
  @discardableResult
  func pump() throws -> (toServer: [Envelope], toClient: [Envelope]) {
    var toServer: [Envelope] = []
    var toClient: [Envelope] = []
    while true {
      let fromClient = try client.drain()
      toServer += fromClient.envelopes
      for chunk in fromClient.bytes where server.isOpen { try server.receive(chunk) }
      let fromServer = try server.drain()
      toClient += fromServer.envelopes
      for chunk in fromServer.bytes where client.channel.isActive { try client.receive(chunk) }
      if fromClient.bytes.isEmpty && fromServer.bytes.isEmpty { return (toServer, toClient) }
    }
  }
}
