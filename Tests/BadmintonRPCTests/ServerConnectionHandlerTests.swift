import NIOCore
import NIOEmbedded
import Testing

@testable import BadmintonRPC

/// The connection handler performing its state machine's actions on an embedded loop: time moves
/// only when the test moves it, so every timer fires exactly when the test's clock reaches it.
@Suite("Server connection handler on the embedded loop")
struct ServerConnectionHandlerTests {
  @Test("frames after a violation's GOAWAY are neither read nor answered")
  func framesAfterGoAway_areIgnored() throws {
    let probe = HandlerProbe()
    let connection = try EmbeddedServerConnection(server: embeddedTestServer(probe: probe))
    // A CANCEL for call 0 (a violation), then a REQUEST and a PING in the same read.
    var bytes = ByteBuffer(
      bytes: RawFrames.frame(Envelope(callID: 0, kind: .cancel).serializedBytes()))
    bytes.writeBytes(RawFrames.frame(Raw.request(1, "echo:late").serializedBytes()))
    bytes.writeBytes(RawFrames.frame(Envelope(callID: 0, kind: .ping).serializedBytes()))
    try connection.receive(bytes)
    let seen = try connection.sent()
    #expect(seen.map(\.kind) == [.goaway])
    #expect(seen.first?.status?.reason == "CALL_ID_ZERO")
    #expect(probe.started == 0)
    #expect(!connection.isOpen)
    #expect(connection.connection.machine.isClosed)
    try connection.finish()
  }

  @Test("a deadline or the grace period that comes due after the close sends nothing")
  func timersAfterClose_doNothing() throws {
    let probe = HandlerProbe()
    let connection = try EmbeddedServerConnection(
      server: embeddedTestServer(
        ServerConfiguration(shutdownGracePeriod: .seconds(5)), probe: probe))
    try connection.receive(Raw.request(1, "gate:never", timeoutMs: 1000))
    #expect(probe.started == 1)
    connection.connection.beginDrain()
    #expect(try connection.sent().map(\.kind) == [.goaway])
    // A violation closes the connection before either timer is due.
    try connection.receive(ByteBuffer(bytes: [0x80]))
    #expect(try connection.sent().map(\.status?.reason) == ["RESERVED_FLAGS_SET"])
    #expect(!connection.isOpen)
    connection.advance(by: .seconds(10))
    #expect(try connection.sent().isEmpty)
    // The handler was stopped at the close, not answered.
    #expect(probe.cancelled == 1)
    try connection.finish()
  }

  @Test("a second close (idle timeout after a violation, an error after either) sends nothing")
  func doubleClose_sendsOneGoAway() throws {
    let server = embeddedTestServer(ServerConfiguration(idleTimeout: .seconds(1)))
    let connection = try EmbeddedServerConnection(server: server)
    connection.advance(by: .seconds(1))
    #expect(try connection.sent().map(\.status?.reason) == ["IDLE_TIMEOUT"])
    connection.channel.pipeline.fireErrorCaught(ProtocolViolation.envelopeMalformed)
    connection.channel.pipeline.fireErrorCaught(ConnectionBroke())
    connection.connection.beginDrain()
    connection.advance(by: .seconds(5))
    #expect(try connection.sent().isEmpty)
    try connection.finish()
  }

  @Test("a drained connection with a call open closes once the call ends after the linger")
  func drain_closesAfterTheLastCall() throws {
    let probe = HandlerProbe()
    let connection = try EmbeddedServerConnection(server: embeddedTestServer(probe: probe))
    try connection.receive(Raw.request(1, "gate:slow:done"))
    connection.connection.beginDrain()
    #expect(try connection.sent().map(\.kind) == [.goaway])
    connection.advance(by: ServerConnectionHandler.drainLinger)
    // The linger has passed, but a call is open: the connection waits for it.
    #expect(connection.isOpen)
    probe.open("slow")
    connection.loop.run()
    let answer = try connection.sent()
    #expect(answer.map(\.callID) == [1])
    #expect(Raw.text(answer.first) == "done")
    #expect(!connection.isOpen)
    try connection.finish()
  }

  @Test("answers finished in one event-loop turn leave in one flush")
  func answers_shareOneFlush() throws {
    let connection = try EmbeddedServerConnection(server: embeddedTestServer())
    let counter = FlushCounter()
    try connection.channel.pipeline.syncOperations.addHandler(counter, position: .first)
    var bytes = ByteBuffer()
    for callID in 1...3 {
      bytes.writeBytes(
        RawFrames.frame(Raw.request(UInt64(callID), "echo:\(callID)").serializedBytes()))
    }
    try connection.receive(bytes)
    #expect(try connection.sent().map(\.callID) == [1, 2, 3])
    #expect(counter.flushes == 1)
    // A later answer gets a flush of its own.
    try connection.receive(Raw.request(4, "echo:4"))
    #expect(try connection.sent().map(\.callID) == [4])
    #expect(counter.flushes == 2)
    try connection.finish()
  }

  @Test("stream messages handed over together leave in order, in one flush")
  func streamBatch_leavesInOneFlush() throws {
    func flushes(_ command: String) throws -> Int {
      let connection = try EmbeddedServerConnection(server: embeddedTestServer())
      let counter = FlushCounter()
      try connection.channel.pipeline.syncOperations.addHandler(counter, position: .first)
      try connection.receive(Raw.request(1, command, method: TestService.stream.path))
      let sent = try connection.sent()
      #expect(sent.map(\.kind) == [.streamMessage, .streamMessage, .streamMessage, .streamEnd])
      #expect(
        try sent.dropLast().map { try HealthCheckRequest(serializedBytes: $0.payload).service }
          == ["0", "1", "2"])
      #expect(sent.last?.status?.code == .ok)
      try connection.finish()
      return counter.flushes
    }
    // One at a time: a flush per message and one for the end; together: one and one.
    #expect(try flushes("count:3") == 4)
    #expect(try flushes("batch:3") == 2)
  }
}

/// An error of the connection that is not a protocol violation.
private struct ConnectionBroke: Error {}

/// Counts the flushes that reach the socket.
private final class FlushCounter: ChannelOutboundHandler {
  typealias OutboundIn = NIOAny
  var flushes = 0

  func flush(context: ChannelHandlerContext) {
    flushes += 1
    context.flush()
  }
}
