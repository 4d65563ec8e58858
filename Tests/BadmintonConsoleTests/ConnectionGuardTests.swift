import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import PropertyBased
import ServiceLifecycle
import Testing

@testable import BadmintonConsole

@Suite("Console connections: fair admission and deadlines")
struct ConnectionGuardTests {
  // MARK: The admission rule against a simple oracle

  /// One step: an admission from address `0..<addresses`, or the release of an open connection.
  static let steps = Gen.int(in: 0...11).array(of: 0...80)

  @Test("for random arrivals and departures, admission follows the fair rule")
  func book_matchesOracle() async {
    await propertyCheck(
      count: 500, input: Gen.int(in: 1...6), Gen.int(in: 1...4), Self.steps
    ) { maximum, perAddress, steps in
      var book = ConnectionBook(maximumConnections: maximum, maximumPerAddress: perAddress)
      // The oracle: the open connections in accept order, each with its address.
      var open: [(id: UInt64, address: String)] = []
      var nextID: UInt64 = 0
      for step in steps {
        if step < 6 {
          let address = "a\(step % 4)"
          let id = nextID
          nextID += 1
          func count(_ address: String) -> Int { open.filter { $0.address == address }.count }
          let held = count(address)
          let busiest = Set(open.map(\.address)).map(count).max() ?? 0
          let decision = book.admit(id, from: address)
          if held >= perAddress {
            #expect(decision == .refuse)
          } else if open.count < maximum {
            #expect(decision == .admit)
            open.append((id, address))
          } else if busiest > held {
            // The victim is the oldest connection of an address holding the most.
            guard case .admitEvicting(let victim) = decision,
              let index = open.firstIndex(where: { $0.id == victim })
            else {
              Issue.record("expected an eviction, got \(decision)")
              return
            }
            let victimAddress = open[index].address
            #expect(count(victimAddress) == busiest)
            #expect(open.first { $0.address == victimAddress }?.id == victim)
            open.remove(at: index)
            open.append((id, address))
          } else {
            #expect(decision == .refuse)
          }
        } else if !open.isEmpty {
          let gone = open.remove(at: step % open.count)
          book.release(gone.id, from: gone.address)
        }
        #expect(book.total == open.count)
        #expect(book.total <= maximum)
        for address in Set(open.map(\.address)) {
          #expect(book.count(from: address) == open.filter { $0.address == address }.count)
          #expect(book.count(from: address) <= perAddress)
        }
      }
    }
  }

  @Test("a connection refused or evicted is forgotten: releasing it changes nothing")
  func book_releaseOfUnknownIsNothing() {
    var book = ConnectionBook(maximumConnections: 2, maximumPerAddress: 2)
    #expect(book.admit(0, from: "a") == .admit)
    #expect(book.admit(1, from: "a") == .admit)
    #expect(book.admit(2, from: "a") == .refuse)
    #expect(book.admit(3, from: "b") == .admitEvicting(victim: 0))
    book.release(0, from: "a")
    book.release(2, from: "a")
    #expect(book.total == 2)
    #expect(book.count(from: "a") == 1)
    #expect(book.count(from: "b") == 1)
  }

  @Test("the table counts addresses by the key it is given (an IPv6 /64 as one address)")
  func table_usesAddressKey() throws {
    let loop = EmbeddedEventLoop()
    let table = ConnectionTable(
      maximumConnections: 10, maximumPerAddress: 2,
      addressKey: { $0.hasPrefix("2001:db8:0:1:") ? "2001:db8:0:1::/64" : $0 })
    let first = EmbeddedChannel(loop: loop)
    let second = EmbeddedChannel(loop: loop)
    let third = EmbeddedChannel(loop: loop)
    let other = EmbeddedChannel(loop: loop)
    #expect(table.admit(first, remoteAddress: "2001:db8:0:1::1") != nil)
    #expect(table.admit(second, remoteAddress: "2001:db8:0:1::ffff") != nil)
    #expect(table.admit(third, remoteAddress: "2001:db8:0:1:abcd::2") == nil)
    #expect(table.admit(other, remoteAddress: "2001:db8:0:2::1") != nil)
    #expect(table.count == 3)
  }

  // MARK: Over real sockets, against the console

  /// Many silent connections from one address do not keep an operator out: past its share the
  /// address's connections are closed at once, and the operator, from another address, is
  /// answered while the address's share is still held open. Every deadline is 10 minutes, so
  /// only the admission rule can let the operator in.
  @Test(
    "1,000 silent connections from one address: the operator from another is answered",
    .timeLimit(.minutes(2)))
  func silentFlood_oneAddress() async throws {
    try await withConsole(Self.patient()) { port, _ in
      let attackers = try await Self.connect(count: 1_000, from: ["127.0.0.2"], to: port)
      // All but the address's share (16) are closed by the console.
      try await attackers.waitUntilClosed(1_000 - 16)
      let status = try await Self.get("/sign-in", from: "127.0.0.1", port: port)
      #expect(status == "HTTP/1.1 200 OK")
      // The share is still open: the operator was served beside it, not after it.
      #expect(attackers.openCount == 16)
      await attackers.closeAll()
    }
  }

  @Test(
    "200 slow senders from 50 addresses: the operator from another is answered",
    .timeLimit(.minutes(2)))
  func slowFlood_manyAddresses() async throws {
    try await withConsole(Self.patient()) { port, _ in
      let sources = (10..<60).map { "127.0.0.\($0)" }
      let attackers = try await Self.connect(count: 200, from: sources, to: port)
      // Each sends the start of a head and never ends it.
      try await attackers.sendToAll("GET /sign-in HTTP/1.1\r\nHost: console\r\n")
      let status = try await Self.get("/sign-in", from: "127.0.0.1", port: port)
      #expect(status == "HTTP/1.1 200 OK")
      #expect(attackers.openCount == 200)
      await attackers.closeAll()
    }
  }

  @Test(
    "a full console makes room for a new address by closing a connection of the busiest",
    .timeLimit(.minutes(1)))
  func full_evictsBusiest() async throws {
    var configuration = Self.patient()
    configuration.maximumConnections = 6
    configuration.maximumConnectionsPerAddress = 4
    try await withConsole(configuration) { port, server in
      let busy = try await Self.connect(count: 4, from: ["127.0.0.2"], to: port)
      let quiet = try await Self.connect(count: 2, from: ["127.0.0.3"], to: port)
      // Admitted in whatever order the event loops take them: wait until all six are held.
      try await Self.waitUntil { server.connections.count == 6 }
      // A third address finds the console full; 127.0.0.2 holds the most and gives one up.
      let status = try await Self.get("/sign-in", from: "127.0.0.4", port: port)
      #expect(status == "HTTP/1.1 200 OK")
      try await busy.waitUntilClosed(1)
      #expect(quiet.openCount == 2)
      // Once the operator's connection is let go, one more from 127.0.0.3 fills the console
      // again, 3 from each address. Then 127.0.0.3 holds as many as the busiest: no room.
      try await Self.waitUntil { server.connections.count == 5 }
      let third = try await Self.connect(count: 1, from: ["127.0.0.3"], to: port)
      try await Self.waitUntil { server.connections.count == 6 }
      let refused = try await Self.connect(count: 1, from: ["127.0.0.3"], to: port)
      try await refused.waitUntilClosed(1)
      #expect(busy.openCount == 3)
      #expect(quiet.openCount == 2)
      #expect(third.openCount == 1)
      await third.closeAll()
      await busy.closeAll()
      await quiet.closeAll()
    }
  }

  @Test(
    "a connection that sends nothing is closed at the first-byte deadline", .timeLimit(.minutes(1)))
  func silent_closedAtFirstByteDeadline() async throws {
    var configuration = Self.patient()
    configuration.firstByteTimeout = .milliseconds(200)
    try await withConsole(configuration) { port, _ in
      let silent = try await Self.connect(count: 1, from: ["127.0.0.2"], to: port)
      try await silent.waitUntilClosed(1)
    }
  }

  @Test(
    "a head sent a line at a time is closed at the head's deadline, a full one is answered",
    .timeLimit(.minutes(1)))
  func slowHead_closedAtHeadDeadline() async throws {
    var configuration = Self.patient()
    configuration.requestHeadTimeout = .milliseconds(500)
    try await withConsole(configuration) { port, _ in
      let status = try await Self.get("/sign-in", from: "127.0.0.1", port: port)
      #expect(status == "HTTP/1.1 200 OK")
      let slow = try await Self.connect(count: 1, from: ["127.0.0.2"], to: port)
      try await slow.sendToAll("GET /sign-in HTTP/1.1\r\n")
      // One more header line every 100 ms, never the blank line: only the head's deadline ends
      // it (the idle timeout and the lifetime are 10 minutes away).
      var lines = 0
      while slow.openCount == 1 && lines < 6_000 {
        try? await slow.sendToAll("X-Line-\(lines): 1\r\n")
        lines += 1
        try await Task.sleep(for: .milliseconds(100))
      }
      try await slow.waitUntilClosed(1)
    }
  }

  @Test(
    "a request the server cannot parse gets a 400 with the console's security headers",
    .timeLimit(.minutes(1)))
  func badRequest_carriesSecurityHeaders() async throws {
    try await withConsole(Self.patient()) { port, _ in
      let answer = try await Self.exchange(
        "NOT A REQUEST\r\n\r\n", from: "127.0.0.1", port: port)
      #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
      let head = answer.lowercased()
      #expect(
        head.contains(
          "content-security-policy: default-src 'none'; style-src 'self'; img-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'\r\n"))
      #expect(head.contains("x-content-type-options: nosniff\r\n"))
      #expect(head.contains("x-frame-options: deny\r\n"))
      #expect(head.contains("referrer-policy: no-referrer\r\n"))
      #expect(head.contains("cache-control: no-store\r\n"))
    }
  }

  // MARK: Support

  /// Limits far longer than any test: only the rule under test can close a connection.
  static func patient() -> ConsoleConfiguration {
    ConsoleConfiguration(
      connectionIdleTimeout: .seconds(600), firstByteTimeout: .seconds(600),
      requestHeadTimeout: .seconds(600), connectionLifetime: .seconds(600))
  }

  /// Runs the console on a free port of 127.0.0.1 for `body`.
  func withConsole(
    _ configuration: ConsoleConfiguration, _ body: (Int, ConsoleServer) async throws -> Void
  ) async throws {
    var logger = Logger(label: "console-test")
    logger.logLevel = .warning
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    let (ports, found) = AsyncStream.makeStream(of: Int.self)
    let server = try await ConsoleServer(
      backend: TestBackend(), configuration: configuration, logger: logger,
      onServerRunning: { port in found.yield(port) })
    let group = ServiceGroup(
      configuration: .init(services: [server], gracefulShutdownSignals: [], logger: logger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      var iterator = ports.makeAsyncIterator()
      let port = try #require(await iterator.next())
      do {
        try await body(port, server)
      } catch {
        await group.triggerGracefulShutdown()
        throw error
      }
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
    }
  }

  /// Waits until `condition` holds; the suite's time limit ends a wait that never ends.
  static func waitUntil(_ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(for: .milliseconds(5)) }
  }

  /// Connections held open by a test, and how many of them the console has closed.
  final class Connections: Sendable {
    let channels: [any Channel]
    private let closed: AsyncStream<Void>

    init(channels: [any Channel]) {
      self.channels = channels
      let (closed, continuation) = AsyncStream.makeStream(of: Void.self)
      self.closed = closed
      for channel in channels {
        channel.closeFuture.whenComplete { _ in continuation.yield() }
      }
    }

    var openCount: Int { channels.count { $0.isActive } }

    /// Waits until `count` of the connections have been closed.
    func waitUntilClosed(_ count: Int) async throws {
      var seen = 0
      for await _ in closed {
        seen += 1
        if seen >= count { return }
      }
    }

    func sendToAll(_ text: String) async throws {
      for channel in channels where channel.isActive {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
      }
    }

    func closeAll() async {
      for channel in channels { try? await channel.close().get() }
    }
  }

  /// `count` connections to `port`, from the `sources` addresses in turn.
  static func connect(count: Int, from sources: [String], to port: Int) async throws
    -> Connections
  {
    let group = MultiThreadedEventLoopGroup.singleton
    var channels: [any Channel] = []
    // In batches, so that the listen queue is not what decides who connects.
    for batch in stride(from: 0, to: count, by: 50) {
      let futures = (batch..<min(count, batch + 50)).map { index in
        ClientBootstrap(group: group)
          .bind(to: try! SocketAddress(ipAddress: sources[index % sources.count], port: 0))
          .connect(host: "127.0.0.1", port: port)
      }
      for future in futures { channels.append(try await future.get()) }
    }
    return Connections(channels: channels)
  }

  /// Collects what the server sends until it closes the connection.
  final class Collector: ChannelInboundHandler, @unchecked Sendable {
    // Used on the connection's event loop only.
    typealias InboundIn = ByteBuffer
    let done: EventLoopPromise<String>
    var received = ""
    init(done: EventLoopPromise<String>) { self.done = done }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      received += String(buffer: unwrapInboundIn(data))
    }
    func channelInactive(context: ChannelHandlerContext) { done.succeed(received) }
  }

  /// Sends `text` from `source` and returns all the server answers before it closes.
  static func exchange(_ text: String, from source: String, port: Int) async throws -> String {
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    let done = loop.makePromise(of: String.self)
    let channel = try await ClientBootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(Collector(done: done))
        }
      }
      .bind(to: try SocketAddress(ipAddress: source, port: 0))
      .connect(host: "127.0.0.1", port: port).get()
    try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    return try await done.futureResult.get()
  }

  /// The status line of a GET of `path` from `source`.
  static func get(_ path: String, from source: String, port: Int) async throws -> String {
    let answer = try await exchange(
      "GET \(path) HTTP/1.1\r\nHost: console\r\nConnection: close\r\n\r\n", from: source,
      port: port)
    return String(answer.prefix { $0 != "\r\n" })
  }
}
