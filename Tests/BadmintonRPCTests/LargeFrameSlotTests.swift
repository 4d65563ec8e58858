import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import BadmintonRPC

/// Counts the reads that reach the head of a pipeline: those the socket would do.
private final class ReadCounter: ChannelOutboundHandler {
  typealias OutboundIn = ByteBuffer
  var reads = 0

  func read(context: ChannelHandlerContext) {
    reads += 1
    context.read()
  }
}

@Suite("Large request frames share server-wide slots")
struct LargeFrameSlotTests {
  /// A command for the test service that makes a request body of over 16 KiB.
  private static func large(_ command: String) -> String {
    command + String(repeating: "x", count: LargeFrameSlots.bodyThreshold + 100)
  }

  private static func server(slots: Int, probe: HandlerProbe) -> RPCServer {
    embeddedTestServer(ServerConfiguration(maximumLargeRequestFrames: slots), probe: probe)
  }

  @Test(
    "a large frame waits unread while every slot is held, others flow, and it is served once one frees"
  )
  func largeFrame_waitsUnreadForASlot() throws {
    let probe = HandlerProbe()
    let server = Self.server(slots: 1, probe: probe)
    let holder = try EmbeddedServerConnection(server: server)
    let waiter = try EmbeddedServerConnection(server: server)
    let other = try EmbeddedServerConnection(server: server)
    let reads = ReadCounter()
    try waiter.channel.pipeline.syncOperations.addHandler(reads, position: .first)

    // The holder's call takes the one slot until its handler has finished.
    try holder.receive(Raw.request(1, Self.large("gate:holder:")))
    #expect(probe.started == 1)
    #expect(server.largeFrameSlots.available == 0)

    // The waiter's large frame arrives whole but is not decoded, and its reads are held back.
    try waiter.receive(Raw.request(1, Self.large("echo:")))
    #expect(probe.started == 1)
    #expect(server.largeFrameSlots.waiting == 1)
    let readsBefore = reads.reads
    waiter.channel.read()
    #expect(reads.reads == readsBefore)
    #expect(try waiter.sent().isEmpty)

    // Small frames of other connections, and of the holder, keep flowing.
    try other.receive(Envelope(callID: 0, kind: .ping, payload: [7]))
    #expect(try other.sent().map(\.kind) == [.pong])
    try other.receive(Raw.request(3, "echo:small"))
    #expect(try other.sent().map { Raw.text($0) } == ["small"])
    try holder.receive(Envelope(callID: 0, kind: .ping, payload: [8]))
    #expect(try holder.sent().map(\.kind) == [.pong])
    #expect(probe.started == 2)

    // Once the holder's handler finishes, the slot goes to the waiter, which reads on.
    probe.open("holder")
    holder.loop.run()
    #expect(try holder.sent().map(\.status?.code) == [.ok])
    waiter.loop.run()
    let answers = try waiter.sent()
    #expect(answers.map(\.callID) == [1])
    #expect(Raw.text(answers.first) == Self.large(""))
    #expect(reads.reads == readsBefore + 1)
    #expect(server.largeFrameSlots.waiting == 0)
    waiter.loop.run()
    #expect(server.largeFrameSlots.available == 1)
    for connection in [holder, waiter, other] { try connection.finish() }
  }

  @Test("a stream gives its slot back once its request is decoded, a refused frame at once")
  func slot_releasedByStreamsAndRefusals() throws {
    let probe = HandlerProbe()
    let server = Self.server(slots: 1, probe: probe)
    let connection = try EmbeddedServerConnection(server: server)

    // A stream's handler may never end: its slot is free as soon as its request is decoded.
    let streamGate = Self.large("gate:stream")
    try connection.receive(Raw.request(1, streamGate, method: TestService.stream.path))
    #expect(probe.started == 1)
    #expect(server.largeFrameSlots.available == 1)

    // A unary call holds its slot until its handler has finished.
    try connection.receive(Raw.request(2, Self.large("gate:unary:")))
    #expect(probe.started == 2)
    #expect(server.largeFrameSlots.available == 0)
    probe.open("unary")
    connection.loop.run()
    #expect(try connection.sent().map(\.callID) == [2])
    #expect(server.largeFrameSlots.available == 1)

    // A large frame that starts no call (no such method) gives its slot back at once.
    try connection.receive(Raw.request(3, Self.large("echo:"), method: "/test.v1.Echo/Missing"))
    #expect(try connection.sent().map(\.status?.reason) == ["METHOD_NOT_FOUND"])
    #expect(server.largeFrameSlots.available == 1)

    probe.open(String(streamGate.dropFirst("gate:".count)))
    connection.loop.run()
    #expect(try connection.sent().map(\.kind) == [.streamEnd])
    try connection.finish()
  }

  @Test(
    "a connection that closes while waiting gives up its place, and one that holds a slot frees it")
  func closing_givesSlotsBack() throws {
    let probe = HandlerProbe()
    let server = Self.server(slots: 1, probe: probe)
    let holder = try EmbeddedServerConnection(server: server)
    let waiter = try EmbeddedServerConnection(server: server)
    try holder.receive(Raw.request(1, Self.large("gate:never:")))
    try waiter.receive(Raw.request(1, Self.large("echo:")))
    #expect(server.largeFrameSlots.waiting == 1)
    try waiter.finish()
    #expect(server.largeFrameSlots.waiting == 0)
    #expect(server.largeFrameSlots.available == 0)
    // Closing stops the holder's handler, which gives its slot back.
    try holder.finish()
    #expect(server.largeFrameSlots.available == 1)
  }

  @Test("a frame whose header has come while it waits for a slot is not timed out meanwhile")
  func waitingFrame_isNotTimedOut() throws {
    let probe = HandlerProbe()
    let server = embeddedTestServer(
      ServerConfiguration(frameTimeout: .seconds(5), maximumLargeRequestFrames: 1), probe: probe)
    let holder = try EmbeddedServerConnection(server: server)
    let waiter = try EmbeddedServerConnection(server: server)
    try holder.receive(Raw.request(1, Self.large("gate:slow:")))
    try waiter.receive(Raw.request(1, Self.large("echo:")))
    waiter.advance(by: .seconds(10))
    #expect(waiter.isOpen)
    #expect(try waiter.sent().isEmpty)
    probe.open("slow")
    holder.loop.run()
    waiter.loop.run()
    #expect(try waiter.sent().map(\.callID) == [1])
    for connection in [holder, waiter] { try connection.finish() }
  }

  @Test("slots go to waiting connections in the order they asked, one address holding at most half")
  func slots_firstComeFirstServed() {
    let slots = LargeFrameSlots(count: 2)
    #expect(slots.sharePerAddress == 1)
    let granted = GrantLog()
    func acquire(_ name: String, from address: String) -> LargeFrameSlot? {
      switch slots.acquire(for: address, orWait: { slot in granted.append(name, slot) }) {
      case .acquired(let slot): return slot
      case .waiting: return nil
      }
    }
    let first = acquire("a1", from: "a")
    #expect(first != nil)
    // Address a holds its share: its next frame waits although a slot is free.
    #expect(acquire("a2", from: "a") == nil)
    #expect(slots.available == 1)
    let other = acquire("b1", from: "b")
    #expect(other != nil)
    #expect(acquire("c1", from: "c") == nil)
    #expect(slots.available == 0)
    first?.release()
    first?.release()  // a second release does nothing
    #expect(granted.names == ["a2"])
    #expect(slots.waiting == 1)
    other?.release()
    #expect(granted.names == ["a2", "c1"])
    granted.releaseAll()
    #expect(slots.available == 2)
    #expect(slots.waiting == 0)
  }

  @Test("connections from one address that hold their share of slots leave the rest to others")
  func oneAddress_cannotTakeEverySlot() throws {
    let probe = HandlerProbe()
    let server = Self.server(slots: 2, probe: probe)
    let slow = try EmbeddedServerConnection(server: server, clientAddress: "127.0.0.1")
    let slowToo = try EmbeddedServerConnection(server: server, clientAddress: "127.0.0.1")
    let other = try EmbeddedServerConnection(server: server, clientAddress: "127.0.0.2")
    // A frame that announces a large body and then stops holds its slot.
    let frame = RawFrames.frame(try Raw.request(1, Self.large("echo:")).serializedBytes())
    try slow.receive(ByteBuffer(bytes: frame.prefix(100)))
    try slowToo.receive(ByteBuffer(bytes: frame.prefix(100)))
    #expect(server.largeFrameSlots.available == 1)
    #expect(server.largeFrameSlots.waiting == 1)
    // Another address still gets the free slot at once.
    try other.receive(Raw.request(1, Self.large("echo:")))
    #expect(Raw.text(try other.sent().first) == Self.large(""))
    #expect(server.largeFrameSlots.available == 1)
    // Once the first closes, the second from its address gets a slot.
    try slow.finish()
    #expect(server.largeFrameSlots.waiting == 0)
    #expect(server.largeFrameSlots.available == 1)
    for connection in [slowToo, other] { try connection.finish() }
    #expect(server.largeFrameSlots.available == 2)
  }
}

/// The slots handed to waiting requests, in order.
private final class GrantLog: @unchecked Sendable {
  // Used from the test's thread only: grants are called where the slot is released.
  private(set) var names: [String] = []
  private var slots: [LargeFrameSlot] = []

  func append(_ name: String, _ slot: LargeFrameSlot) {
    names.append(name)
    slots.append(slot)
  }

  func releaseAll() {
    for slot in slots { slot.release() }
    slots = []
  }
}

@Suite("A call holds its request once")
struct RequestBytesTests {
  @Test("the encoded request is let go once it is decoded, before the handler runs")
  func encodedRequest_isTakenByDecoding() async throws {
    let seen = SeenCount()
    var registry = HandlerRegistry()
    let bytes = try HealthCheckRequest(service: String(repeating: "y", count: 1000))
      .serializedBytes()
    let request = RequestBytes(bytes)
    registry.register(TestService.unary) { (message: HealthCheckRequest, _) in
      seen.set(request.count)
      return message
    }
    let method = try #require(registry.method(at: TestService.unary.path))
    let context = ServerContext(
      callID: 1, method: TestService.unary.path, metadata: [], deadline: nil, peer: "test",
      logger: Logger(label: "test"))
    let answer = try await method.invoke(request, context, RawResponseSink { _ in })
    #expect(seen.value == 0)
    #expect(answer == bytes)
  }
}

/// One number set from a handler.
private final class SeenCount: @unchecked Sendable {
  // Set once by the handler before the test reads it.
  private(set) var value = -1
  func set(_ value: Int) { self.value = value }
}

@Suite("Receive buffers")
struct ReceiveBufferTests {
  @Test("a served connection reads into buffers of at most 8 KiB, one read a cycle")
  func connection_receiveBuffersAreCapped() async throws {
    let census = ObjectCensus()
    var logger = Logger(label: "test.server")
    logger.logLevel = .critical
    let server = RPCServer(
      configuration: ServerConfiguration(host: "127.0.0.1", port: 0),
      services: [TestService(probe: HandlerProbe())], authenticator: nil,
      eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger, census: census)
    let task = Task { try await server.run() }
    let raw = try await RawConnection.connect(port: try await server.localAddress().port!)
    try await raw.send(Raw.request(1, "echo:hi"))
    #expect(Raw.text(try await raw.readEnvelope()) == "hi")
    let channel = try #require(census.objects.compactMap { $0 as? any Channel }.first)
    let allocator = try await channel.getOption(.recvAllocator).get()
    let adaptive = try #require(allocator as? AdaptiveRecvByteBufferAllocator)
    #expect(adaptive.maximum == 8 * 1024)
    #expect(try await channel.getOption(.maxMessagesPerRead).get() == 1)
    await raw.close()
    task.cancel()
    _ = await task.result
  }
}
