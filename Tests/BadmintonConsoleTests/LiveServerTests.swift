import BadmintonConsole
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Testing

@Suite("Console over a socket")
struct LiveServerTests {
  @Test("over a real connection: sign-in page, sign-in with the client's address, headers")
  func live_signIn() async throws {
    var logger = Logger(label: "console-test")
    logger.logLevel = .warning
    let backend = TestBackend()
    let server = try await ConsoleServer(backend: backend, logger: logger)
    try await server.application().test(.live) { client in
      var browser = Browser()
      let page = try await browser.get(client, "/sign-in")
      #expect(page.status == .ok)
      expectSecurityHeaders(page)
      browser.take(page)
      let response = try await browser.post(
        client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)])
      #expect(response.status == .seeOther)
      browser.take(response)
      let players = try await browser.get(client, "/players?q=shuttle")
      #expect(players.status == .ok)
      #expect(players.text.contains("Shuttle Sam"))
      let tooLarge = try await browser.post(
        client, "/players/7/lift", [("note", String(repeating: "n", count: 20_000))])
      #expect(tooLarge.status == .contentTooLarge)
    }
    let address = backend.calls.compactMap { call -> String? in
      if case .signIn(_, _, let address) = call { address } else { nil }
    }
    #expect(address.count == 1)
    #expect(address.first != "unknown")
  }

  @Test("run() on port 0 reports the bound port and serves until shutdown")
  func run_reportsPort() async throws {
    var logger = Logger(label: "console-test")
    logger.logLevel = .warning
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let server = try await ConsoleServer(
      backend: TestBackend(),
      configuration: ConsoleConfiguration(host: "127.0.0.1", port: 0),
      logger: logger,
      onServerRunning: { port in continuation.yield(port) })
    let group = ServiceGroup(services: [server], logger: logger)
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      var iterator = ports.makeAsyncIterator()
      let port = try #require(await iterator.next())
      #expect(port > 0)
      let client = TestClient(host: "127.0.0.1", port: port, configuration: .init())
      client.connect()
      let response = try await client.get("/console.css")
      #expect(response.status == .ok)
      #expect(response.headers[.xContentTypeOptions] == "nosniff")
      try await client.shutdown()
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
    }
  }
}

@Suite("Console connections are bounded in time")
struct ConnectionLifetimeTests {
  /// Closes a promise when the connection ends.
  final class ClosedWatcher: ChannelInboundHandler, @unchecked Sendable {
    // Used on the connection's event loop only.
    typealias InboundIn = ByteBuffer
    let closed: EventLoopPromise<Void>
    init(closed: EventLoopPromise<Void>) { self.closed = closed }
    func channelInactive(context: ChannelHandlerContext) { closed.succeed() }
  }

  // The time limit only turns a missing cut-off into a failure instead of a hang.
  @Test(
    "a client that sends a request one byte at a time is cut off at the connection's lifetime",
    .timeLimit(.minutes(1)))
  func slowClient_isCutOff() async throws {
    var logger = Logger(label: "console-test")
    logger.logLevel = .warning
    let (ports, found) = AsyncStream.makeStream(of: Int.self)
    let server = try await ConsoleServer(
      backend: TestBackend(),
      configuration: ConsoleConfiguration(
        connectionIdleTimeout: .seconds(600), connectionLifetime: .milliseconds(300)),
      logger: logger, onServerRunning: { port in found.yield(port) })
    let group = ServiceGroup(
      configuration: .init(services: [server], gracefulShutdownSignals: [], logger: logger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      var iterator = ports.makeAsyncIterator()
      let port = try #require(await iterator.next())
      let loop = MultiThreadedEventLoopGroup.singleton.next()
      let closed = loop.makePromise(of: Void.self)
      let channel = try await ClientBootstrap(group: loop)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ClosedWatcher(closed: closed))
          }
        }
        .connect(host: "127.0.0.1", port: port).get()
      // Half a request line, never finished, with the idle timeout far away: only the
      // connection's lifetime can end it, and the test waits for exactly that. On a slow
      // machine the lifetime may end the connection before the bytes go out: the write then
      // fails, and the connection is closed all the same.
      _ = try? await channel.writeAndFlush(ByteBuffer(string: "GET /sign-in HT")).get()
      try await closed.futureResult.get()
      #expect(!channel.isActive)
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
    }
  }
}
