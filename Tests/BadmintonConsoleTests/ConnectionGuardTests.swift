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

  /// One step: an admission from one of 4 addresses (0..<6), the release of an open connection
  /// (6..<10), or a request beginning or ending on one (10..<14).
  static let steps = Gen.int(in: 0...13).array(of: 0...80)

  @Test("for random arrivals, departures and requests, admission follows the fair rule")
  func book_matchesOracle() async {
    await propertyCheck(
      count: 500, input: Gen.int(in: 1...6), Gen.int(in: 1...4), Self.steps
    ) { maximum, perAddress, steps in
      var book = ConnectionBook(maximumConnections: maximum, maximumPerAddress: perAddress)
      // The oracle: the open connections in the order they came, each with its address and
      // whether a request of it is in flight.
      var open: [(id: UInt64, address: String, busy: Bool)] = []
      var nextID: UInt64 = 0
      func count(_ address: String) -> Int { open.filter { $0.address == address }.count }
      for step in steps {
        if step < 6 {
          let address = "a\(step % 4)"
          let id = nextID
          nextID += 1
          let held = count(address)
          // The busiest address: the most connections, then the oldest connection.
          let busiest = open.map(\.address).max { count($0) < count($1) }.map(count) ?? 0
          let busiestAddress = open.first { count($0.address) == busiest }?.address
          let decision = book.admit(id, from: address)
          if held >= perAddress {
            #expect(decision == .refuse)
          } else if open.count < maximum {
            #expect(decision == .admit)
            open.append((id, address, false))
          } else if busiest > held + 1, let busiestAddress {
            let theirs = open.filter { $0.address == busiestAddress }
            let victim = (theirs.first { !$0.busy } ?? theirs[0]).id
            #expect(decision == .admitEvicting(victim: victim))
            open.removeAll { $0.id == victim }
            open.append((id, address, false))
          } else {
            #expect(decision == .refuse)
          }
        } else if step < 10, !open.isEmpty {
          let gone = open.remove(at: step % open.count)
          book.release(gone.id, from: gone.address)
        } else if !open.isEmpty {
          let index = step % open.count
          open[index].busy.toggle()
          book.setBusy(open[index].busy, open[index].id, from: open[index].address)
        }
        #expect(book.total == open.count)
        #expect(book.total <= maximum)
        for address in Set(open.map(\.address)) {
          #expect(book.count(from: address) == count(address))
          #expect(book.count(from: address) <= perAddress)
        }
      }
    }
  }

  @Test("two addresses one apart never take turns evicting each other")
  func book_noTurns() {
    var book = ConnectionBook(maximumConnections: 3, maximumPerAddress: 3)
    #expect(book.admit(0, from: "a") == .admit)
    #expect(book.admit(1, from: "a") == .admit)
    #expect(book.admit(2, from: "b") == .admit)
    // a holds 2, b holds 1: one apart, so b's next finds no room; a third address does.
    #expect(book.admit(3, from: "b") == .refuse)
    #expect(book.admit(4, from: "c") == .admitEvicting(victim: 0))
  }

  @Test("of the busiest address's connections, an idle one gives way before a busy one")
  func book_idleFirst() {
    var book = ConnectionBook(maximumConnections: 3, maximumPerAddress: 3)
    for id: UInt64 in 0..<3 { #expect(book.admit(id, from: "a") == .admit) }
    book.setBusy(true, 0, from: "a")
    #expect(book.admit(3, from: "b") == .admitEvicting(victim: 1))
    book.setBusy(true, 2, from: "a")
    // Both left are busy, and a still holds two more than c: the oldest gives way.
    #expect(book.admit(4, from: "c") == .admitEvicting(victim: 0))
    #expect(book.count(from: "a") == 1)
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
    book.setBusy(true, 0, from: "a")
    #expect(book.connections["a"] == [ConnectionBook.Entry(id: 1)])
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
    "a head sent a line at a time is closed at the head's deadline, unanswered",
    .timeLimit(.minutes(1)))
  func slowHead_closedAtHeadDeadline() async throws {
    var configuration = Self.patient()
    configuration.requestHeadTimeout = .milliseconds(500)
    try await withConsole(configuration) { port, _ in
      let status = try await Self.get("/sign-in", from: "127.0.0.1", port: port)
      #expect(status == "HTTP/1.1 200 OK")
      let (slow, answer) = try await Self.open(from: "127.0.0.2", port: port)
      try await slow.writeAndFlush(ByteBuffer(string: "GET /sign-in HTTP/1.1\r\n")).get()
      // One more header line every 100 ms, at most 50 (well under the 100 header fields the
      // parser takes), never the blank line: the idle timeout and the lifetime are 10 minutes
      // away, so only the head's deadline can end it, and it answers nothing.
      var lines = 0
      while slow.isActive && lines < 50 {
        try? await slow.writeAndFlush(ByteBuffer(string: "X-Line-\(lines): 1\r\n")).get()
        lines += 1
        try await Task.sleep(for: .milliseconds(100))
      }
      #expect(try await answer.get() == "")
    }
  }

  @Test(
    "a kept-alive connection whose next head does not come is closed at the head's deadline",
    .timeLimit(.minutes(1)))
  func keptAlive_closedAtHeadDeadline() async throws {
    var configuration = Self.patient()
    configuration.requestHeadTimeout = .milliseconds(300)
    try await withConsole(configuration) { port, server in
      let (channel, answer) = try await Self.open(from: "127.0.0.2", port: port)
      try await channel.writeAndFlush(
        ByteBuffer(string: "GET /console.css HTTP/1.1\r\nHost: console\r\n\r\n")
      ).get()
      // Answered, then nothing more: only the head's deadline, counted from the answer, can end
      // the connection (idle timeout and lifetime: 10 minutes).
      let received = try await answer.get()
      #expect(received.hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(received.contains("body {"))
      try await Self.waitUntil { server.connections.count == 0 }
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

  /// A connection from `source`, and all that the server sends on it until it closes.
  static func open(from source: String, port: Int) async throws
    -> (any Channel, EventLoopFuture<String>)
  {
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
    return (channel, done.futureResult)
  }

  /// Sends `text` from `source` and returns all the server answers before it closes.
  static func exchange(_ text: String, from source: String, port: Int) async throws -> String {
    let (channel, answer) = try await open(from: source, port: port)
    try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    return try await answer.get()
  }

  /// The status line of a GET of `path` from `source`.
  static func get(_ path: String, from source: String, port: Int) async throws -> String {
    let answer = try await exchange(
      "GET \(path) HTTP/1.1\r\nHost: console\r\nConnection: close\r\n\r\n", from: source,
      port: port)
    return String(answer.prefix { $0 != "\r\n" })
  }
}
