import ChaosSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// The proxy on its own, between a raw TCP client and an echo server that records what reached
/// it.
@Suite("Chaos proxy")
struct ChaosProxyTests {
  /// A frame of the protocol's layout: flags, the body's length (big-endian), the body.
  static func frame(_ body: [UInt8]) -> [UInt8] {
    let length = UInt32(body.count)
    return [
      0, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
      UInt8(length & 0xFF),
    ] + body
  }

  /// `count` frames of random sizes (1 to 3000 bytes of body) and contents.
  static func frames(_ count: Int, using random: inout ChaosRandom) -> [[UInt8]] {
    (0..<count).map { _ in
      frame(
        (0..<Int.random(in: 1...3000, using: &random)).map { _ in
          UInt8.random(in: 0...255, using: &random)
        })
    }
  }

  /// An echo server: sends back every byte it reads; when a connection ends, tells `closed`
  /// everything that connection received.
  struct EchoServer {
    let channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    let closed: AsyncStream<[UInt8]>
    let continuation: AsyncStream<[UInt8]>.Continuation

    var port: Int { channel.channel.localAddress!.port! }

    static func start() async throws -> EchoServer {
      let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .bind(host: "127.0.0.1", port: 0) { child in
          child.eventLoop.makeCompletedFuture {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child)
          }
        }
      let (closed, continuation) = AsyncStream.makeStream(of: [UInt8].self)
      return EchoServer(channel: channel, closed: closed, continuation: continuation)
    }

    /// Serves until the task is cancelled.
    func run() async throws {
      try await channel.executeThenClose { inbound in
        try await withThrowingDiscardingTaskGroup { group in
          for try await connection in inbound {
            group.addTask {
              var received: [UInt8] = []
              try? await connection.executeThenClose { input, output in
                for try await chunk in input {
                  received += chunk.readableBytesView
                  try? await output.write(chunk)
                }
              }
              continuation.yield(received)
            }
          }
        }
      }
    }
  }

  /// Connects to `port`, sends `chunks` one by one, and reads until `expected` bytes came back
  /// or the connection closed; what came back and whether it was closed by the other side.
  static func exchange(port: Int, chunks: [[UInt8]], expected: Int) async throws -> (
    [UInt8], closedByPeer: Bool
  ) {
    let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    return try await client.executeThenClose { input, output in
      for chunk in chunks { try? await output.write(ByteBuffer(bytes: chunk)) }
      var received: [UInt8] = []
      var iterator = input.makeAsyncIterator()
      while received.count < expected {
        guard let chunk = try? await iterator.next() else { return (received, true) }
        received += chunk.readableBytesView
      }
      return (received, false)
    }
  }

  /// Runs `body` with an echo server and a proxy in front of it.
  static func withProxy(
    _ plan: ChaosPlan, seed: UInt64 = 1, outsideEphemeralRange: Bool = false,
    _ body: (ChaosProxy, EchoServer) async throws -> Void
  ) async throws {
    let echo = try await EchoServer.start()
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await echo.run() }
      let proxy = try await Self.startProxy(
        upstreamPort: echo.port, plan: plan, seed: seed,
        outsideEphemeralRange: outsideEphemeralRange)
      do {
        try await body(proxy, echo)
      } catch {
        await proxy.stop()
        group.cancelAll()
        throw error
      }
      await proxy.stop()
      group.cancelAll()
    }
  }

  @Test("with no fault, bytes pass unchanged both ways, in any chunking")
  func noFault_passesBytesUnchanged() async throws {
    try await Self.withProxy(.none) { proxy, echo in
      var random = ChaosRandom(seed: 7)
      var closed = echo.closed.makeAsyncIterator()
      for _ in 0..<5 {
        let bytes = Self.frames(20, using: &random).flatMap { $0 }
        // Cut into chunks that ignore the frames' edges.
        var chunks: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
          let end = min(bytes.count, start + Int.random(in: 1...5000, using: &random))
          chunks.append(Array(bytes[start..<end]))
          start = end
        }
        let (back, closedByPeer) = try await Self.exchange(
          port: proxy.port, chunks: chunks, expected: bytes.count)
        #expect(!closedByPeer)
        #expect(back == bytes)
        #expect(await closed.next() == bytes)
      }
      #expect(proxy.counts.isEmpty)
      #expect(proxy.connectionsPassed == 5)
    }
  }

  @Test("a cut inside a request frame closes both sides; the server got a strict prefix of it")
  func cutRequest_closesBothSidesInsideTheFrame() async throws {
    for seed in UInt64(1)...20 {
      try await Self.withProxy(ChaosPlan(cutRequest: 1, faultFrame: 2...2), seed: seed) {
        proxy, echo in
        var random = ChaosRandom(seed: seed)
        let frames = Self.frames(3, using: &random)
        let all = frames.flatMap { $0 }
        let (back, closedByPeer) = try await Self.exchange(
          port: proxy.port, chunks: [all], expected: all.count)
        #expect(closedByPeer)
        var closed = echo.closed.makeAsyncIterator()
        let reached = try #require(await closed.next())
        #expect(reached.count > frames[0].count)
        #expect(reached.count < frames[0].count + frames[1].count)
        #expect(reached == Array(all.prefix(reached.count)))
        #expect(back == Array(all.prefix(back.count)))
        #expect(proxy.counts == [.cutRequest: 1])
      }
    }
  }

  @Test("a cut inside an answer frame: the client gets a strict prefix of it, then the close")
  func cutAnswer_closesInsideTheFrame() async throws {
    for seed in UInt64(1)...20 {
      try await Self.withProxy(ChaosPlan(cutAnswer: 1, faultFrame: 2...2), seed: seed) {
        proxy, echo in
        var random = ChaosRandom(seed: seed)
        let frames = Self.frames(3, using: &random)
        // One byte at a time for some seeds: the frame's header arrives in pieces.
        let chunks = seed % 2 == 0 ? [frames.flatMap { $0 }] : frames.flatMap { $0 }.map { [$0] }
        let (back, closedByPeer) = try await Self.exchange(
          port: proxy.port, chunks: chunks, expected: frames.joined().count)
        #expect(closedByPeer)
        #expect(back.count > frames[0].count)
        #expect(back.count < frames[0].count + frames[1].count)
        #expect(back == Array(frames.joined().prefix(back.count)))
        var closed = echo.closed.makeAsyncIterator()
        #expect(await closed.next() != nil)
        #expect(proxy.counts == [.cutAnswer: 1])
      }
    }
  }

  @Test(
    "a dropped answer: the client gets the frames before it and not a byte of it, then both sides close"
  )
  func dropAnswer_swallowsTheWholeFrame() async throws {
    for seed in UInt64(1)...10 {
      try await Self.withProxy(ChaosPlan(dropAnswer: 1, faultFrame: 2...2), seed: seed) {
        proxy, echo in
        var random = ChaosRandom(seed: seed)
        let frames = Self.frames(2, using: &random)
        let (back, closedByPeer) = try await Self.exchange(
          port: proxy.port, chunks: frames, expected: frames.joined().count)
        #expect(closedByPeer)
        #expect(back == frames[0])
        var closed = echo.closed.makeAsyncIterator()
        // The server received and answered both: the work was done, the answer lost.
        #expect(await closed.next() == Array(frames.joined()))
        #expect(proxy.counts == [.dropAnswer: 1])
      }
    }
  }

  @Test("a delayed connection passes bytes unchanged, counted once")
  func delay_passesBytesUnchanged() async throws {
    try await Self.withProxy(ChaosPlan(delay: 1, delayMilliseconds: 1...5)) { proxy, _ in
      var random = ChaosRandom(seed: 3)
      let frames = Self.frames(10, using: &random)
      let (back, closedByPeer) = try await Self.exchange(
        port: proxy.port, chunks: frames, expected: frames.joined().count)
      #expect(!closedByPeer)
      #expect(back == Array(frames.joined()))
      #expect(proxy.counts == [.delay: 1])
    }
  }

  @Test("a delayed connection that is cut delivers what came before the cut, late, then closes")
  func delayThenCut_deliversThePrefixThenCloses() async throws {
    try await Self.withProxy(
      ChaosPlan(cutAnswer: 1, delay: 1, faultFrame: 3...3, delayMilliseconds: 5...5)
    ) { proxy, _ in
      var random = ChaosRandom(seed: 11)
      let frames = Self.frames(4, using: &random)
      let (back, closedByPeer) = try await Self.exchange(
        port: proxy.port, chunks: frames, expected: frames.joined().count)
      #expect(closedByPeer)
      #expect(back.count > frames[0].count + frames[1].count)
      #expect(back.count < frames[0].count + frames[1].count + frames[2].count)
      #expect(back == Array(frames.joined().prefix(back.count)))
      #expect(proxy.counts == [.cutAnswer: 1, .delay: 1])
    }
  }

  @Test("a refusal turns away its run of connections; the next one passes")
  func refuse_turnsAwayARun() async throws {
    try await Self.withProxy(ChaosPlan(refuse: 1, refusalRun: 3...3)) { proxy, _ in
      for _ in 0..<3 {
        let (back, closedByPeer) = try await Self.exchange(
          port: proxy.port, chunks: [Self.frame([1, 2, 3])], expected: 8)
        #expect(closedByPeer && back.isEmpty)
      }
      #expect(proxy.counts == [.refuse: 3])
      proxy.plan = .none
      let (back, closedByPeer) = try await Self.exchange(
        port: proxy.port, chunks: [Self.frame([1, 2, 3])], expected: 8)
      #expect(!closedByPeer && back == Self.frame([1, 2, 3]))
    }
  }

  /// A proxy on port 0, or (`outsideEphemeralRange`) on a port below the system's ephemeral
  /// range, so that while it stops listening no other test's outgoing connection takes the
  /// port as its own; another port is tried when one is taken.
  static func startProxy(
    upstreamPort: Int, plan: ChaosPlan, seed: UInt64, outsideEphemeralRange: Bool
  ) async throws -> ChaosProxy {
    guard outsideEphemeralRange else {
      return try await ChaosProxy.start(upstreamPort: upstreamPort, plan: plan, seed: seed)
    }
    var attempt = 0
    while true {
      do {
        return try await ChaosProxy.start(
          port: ChaosProxy.portOutsideEphemeralRange(), upstreamPort: upstreamPort, plan: plan,
          seed: seed)
      } catch {
        attempt += 1
        if attempt == 20 { throw error }
      }
    }
  }

  @Test("stopped, the proxy refuses connections on its port; started again, the same port serves")
  func stopListening_thenStartAgainOnTheSamePort() async throws {
    try await Self.withProxy(.none, outsideEphemeralRange: true) { proxy, _ in
      try await proxy.stopListening()
      await #expect(throws: (any Error).self) {
        _ = try await Self.exchange(port: proxy.port, chunks: [], expected: 1)
      }
      try await proxy.startListening()
      let (back, _) = try await Self.exchange(
        port: proxy.port, chunks: [Self.frame([9])], expected: 6)
      #expect(back == Self.frame([9]))
      #expect(proxy.counts == [.notListening: 1])
    }
  }

  @Test("the same seed draws the same faults for the same connections")
  func sameSeed_sameFaults() async throws {
    var seen: [[ChaosFault: Int]] = []
    for _ in 0..<2 {
      try await Self.withProxy(
        ChaosPlan(cutRequest: 0.3, cutAnswer: 0.3, refuse: 0.2, refusalRun: 1...1), seed: 42
      ) { proxy, _ in
        for _ in 0..<20 {
          _ = try await Self.exchange(
            port: proxy.port, chunks: [Self.frame([1, 2]), Self.frame([3, 4])], expected: 14)
        }
        seen.append(proxy.counts)
      }
    }
    #expect(seen[0] == seen[1])
    #expect(seen[0].values.reduce(0, +) > 0)
  }
}
