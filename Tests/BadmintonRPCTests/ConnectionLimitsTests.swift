import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing

@testable import BadmintonRPC

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Connection admission and life")
struct ConnectionLimitsTests {
  // MARK: Caps

  @Test(
    "connections past the per-address cap get GOAWAY and close; one is admitted again after a close"
  )
  func perAddressCap_refusesThenAdmits() async throws {
    try await withTestServer(
      configuration: ServerConfiguration(maximumConnections: 100, maximumConnectionsPerAddress: 2)
    ) { server, port, _ in
      try await checkCap(
        server: server, port: port, cap: 2, reason: "TOO_MANY_CONNECTIONS_FROM_ADDRESS")
    }
  }

  @Test("the per-address cap counts an IPv4-mapped address as IPv4 and IPv6 addresses by their /64")
  func perAddressCap_keysIPv6ByPrefix() throws {
    func key(_ address: String) throws -> String {
      let channel = EmbeddedChannel()
      channel.remoteAddress = try SocketAddress(ipAddress: address, port: 50_000)
      return RPCServer.clientAddress(of: channel)
    }
    #expect(try key("2001:db8:1:2::1") == key("2001:db8:1:2:ffff:eeee:dddd:cccc"))
    #expect(try key("2001:db8:1:2::1") == "2001:db8:1:2::/64")
    #expect(try key("2001:db8:1:3::1") != key("2001:db8:1:2::1"))
    #expect(try key("::ffff:192.0.2.7") == "192.0.2.7")
    #expect(try key("192.0.2.7") == "192.0.2.7")
    #expect(RPCServer.clientAddress(of: EmbeddedChannel()) == "unknown")
  }

  @Test("connections past the total cap get GOAWAY and close; one is admitted again after a close")
  func totalCap_refusesThenAdmits() async throws {
    try await withTestServer(
      configuration: ServerConfiguration(maximumConnections: 3, maximumConnectionsPerAddress: 100)
    ) { server, port, _ in
      try await checkCap(server: server, port: port, cap: 3, reason: "TOO_MANY_CONNECTIONS")
    }
  }

  private func checkCap(server: RPCServer, port: Int, cap: Int, reason: String) async throws {
    var admitted: [RawConnection] = []
    for index in 0..<cap {
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(Raw.request(1, "echo:\(index)"))
      #expect(Raw.text(try await raw.readEnvelope()) == "\(index)")
      admitted.append(raw)
    }
    let refused = try await RawConnection.connect(port: port)
    let seen = try await refused.readUntilClosed()
    #expect(seen.count == 1)
    let goAway = try #require(seen.first)
    #expect(goAway.kind == .goaway)
    #expect(goAway.status?.code == .resourceExhausted)
    #expect(goAway.status?.reason == reason)
    #expect(goAway.status?.retryAfterMs == 1000)
    #expect(server.refusedConnections == 1)

    // The admitted ones are undisturbed.
    try await admitted[0].send(Raw.request(2, "echo:still here"))
    #expect(Raw.text(try await admitted[0].readEnvelope()) == "still here")

    await admitted.removeLast().close()
    #expect(await waitUntil { server.openConnections == cap - 1 })
    let again = try await RawConnection.connect(port: port)
    try await again.send(Raw.request(1, "echo:again"))
    #expect(Raw.text(try await again.readEnvelope()) == "again")
    #expect(server.refusedConnections == 1)
    await again.close()
    for raw in admitted { await raw.close() }
  }

  @Test("the caps count per address and in total, for any order of opens and closes")
  func admission_matchesCounting() {
    // Random opens and closes from a few addresses, checked against a plain count.
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let total = Int.random(in: 1...6, using: &generator)
      let perAddress = Int.random(in: 1...4, using: &generator)
      var admission = ConnectionAdmission(
        maximumConnections: total, maximumConnectionsPerAddress: perAddress)
      var open: [String] = []
      for _ in 0..<40 {
        let address = ["a", "b", "c"].randomElement(using: &generator)!
        if Bool.random(using: &generator), let index = open.firstIndex(of: address) {
          open.remove(at: index)
          admission.release(address)
          continue
        }
        let expected: ConnectionAdmission.Refusal? =
          open.count >= total
          ? .total : open.count(where: { $0 == address }) >= perAddress ? .perAddress : nil
        #expect(admission.admit(address) == expected)
        if expected == nil { open.append(address) }
        #expect(admission.total == open.count)
        #expect(admission.count(from: address) == open.count(where: { $0 == address }))
      }
    }
  }

  // MARK: Leaks

  @Test("after many connects and closes no connection handler or channel stays alive")
  func closedConnections_leaveNothingAlive() async throws {
    let census = ObjectCensus()
    var logger = Logger(label: "test.server")
    logger.logLevel = .critical
    let server = RPCServer(
      configuration: ServerConfiguration(host: "127.0.0.1", port: 0),
      services: [TestService(probe: HandlerProbe())], authenticator: nil,
      eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger, census: census)
    let task = Task { try await server.run() }
    let port = try await server.localAddress().port!
    let cycles = 200
    for index in 0..<cycles {
      let raw = try await RawConnection.connect(port: port)
      if index.isMultiple(of: 2) {
        // Half send nothing, half make a call first.
        try await raw.send(Raw.request(1, "echo:\(index)"))
        #expect(Raw.text(try await raw.readEnvelope()) == "\(index)")
      }
      await raw.close()
    }
    #expect(await waitUntil { census.recorded == 2 * cycles && server.openConnections == 0 })
    // Whatever the event loops still hold for the closed channels is released by now.
    for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
      try await loop.submit {}.get()
    }
    #expect(await waitUntil { census.alive == 0 }, "\(census.alive) objects alive")
    task.cancel()
    _ = await task.result
  }

  // MARK: Accept errors

  @Test(
    "an accept that fails for lack of descriptors pauses accepting, is logged, and serving goes on")
  func acceptExhaustion_backsOffAndLogs() async throws {
    let logs = CapturedLogs()
    let logger = Logger(label: "test.server") { _ in CapturingLogHandler(logs: logs) }
    let server = RPCServer(
      configuration: ServerConfiguration(host: "127.0.0.1", port: 0),
      services: [TestService(probe: HandlerProbe())], logger: logger)
    let task = Task { try await server.run() }
    let port = try await server.localAddress().port!
    let listener = try #require(server.listener)
    // Read in the same turn of the listener's loop as the error, while the pause surely lasts.
    let autoReadInPause = try await listener.eventLoop.submit {
      listener.pipeline.syncOperations.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "accept"))
      return try listener.syncOptions!.getOption(.autoRead)
    }.get()
    // Paused: the listener no longer reads, so the poll does not wake it again and again.
    #expect(autoReadInPause == false)
    #expect(await waitUntil { logs.messages.contains("accept failed; pausing accepts") })

    let status = try await withTestClient(port: port) { client in
      try await client.health.check().status
    }
    #expect(status == .serving)
    task.cancel()
    _ = await task.result
  }

  @Test(
    "accepting pauses for one second on the loop's clock; failures meanwhile start no new pause")
  func acceptPause_lastsItsPause() throws {
    var pauses = 0
    let channel = EmbeddedChannel(handler: AcceptPauseHandler { _ in pauses += 1 })
    let exhausted = IOError(errnoCode: EMFILE, reason: "accept")
    channel.pipeline.fireErrorCaught(exhausted)
    #expect(pauses == 1)
    channel.embeddedEventLoop.advanceTime(by: AcceptPauseHandler.pause - .milliseconds(1))
    channel.pipeline.fireErrorCaught(exhausted)
    #expect(pauses == 1)
    channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
    channel.pipeline.fireErrorCaught(exhausted)
    #expect(pauses == 2)
    #expect(AcceptPauseHandler.pause == .seconds(1))
    // Other errors go on down the pipeline.
    channel.pipeline.fireErrorCaught(IOError(errnoCode: ECONNABORTED, reason: "accept"))
    #expect(throws: IOError.self) { try channel.throwIfErrorCaught() }
    _ = try? channel.finish()
  }

  @Test("only descriptor and memory exhaustion pause accepting")
  func acceptBackoff_onlyForExhaustion() {
    for code in [EMFILE, ENFILE, ENOBUFS, ENOMEM] {
      #expect(AcceptPauseHandler.isExhaustion(IOError(errnoCode: code, reason: "accept")))
    }
    for code in [ECONNABORTED, EPERM, EINTR] {
      #expect(!AcceptPauseHandler.isExhaustion(IOError(errnoCode: code, reason: "accept")))
    }
  }

  @Test("the request budget's exhausted warning is logged once a minute for the whole server")
  func budgetWarning_isRateLimited() {
    let budget = RequestMemoryBudget(limit: 0)
    let start = ContinuousClock.now
    #expect(budget.shouldWarnExhausted(at: start) == (true, 0))
    for second in 1..<60 {
      #expect(budget.shouldWarnExhausted(at: start + .seconds(second)).log == false)
    }
    #expect(budget.shouldWarnExhausted(at: start + .seconds(60)) == (true, 59))
  }

  @Test("a rate-limited warning logs once per interval and counts the ones held back")
  func rateLimitedWarning_countsHeldBack() {
    var warning = RateLimitedWarning(interval: .seconds(10))
    let start = ContinuousClock.now
    #expect(warning.shouldLog(at: start) == (true, 0))
    #expect(warning.shouldLog(at: start + .seconds(1)).log == false)
    #expect(warning.shouldLog(at: start + .seconds(9)).log == false)
    #expect(warning.shouldLog(at: start + .seconds(10)) == (true, 2))
    #expect(warning.shouldLog(at: start + .seconds(11)).log == false)
  }

  // MARK: Drain

  @Test("the drain ends open streams with SERVER_SHUTTING_DOWN at once; unary calls keep the grace")
  func drain_endsStreamsAtOnce() async throws {
    let running = try await RunningServer.start(
      ServerConfiguration(shutdownGracePeriod: .seconds(60)))
    let raw = try await RawConnection.connect(port: running.port)
    try await raw.send(Raw.request(1, "forever", method: TestService.stream.path))
    #expect(try await raw.readEnvelope()?.kind == .streamMessage)
    // Held until the stream has ended: the unary call is still running then.
    try await raw.send(Raw.request(2, "gate:unary:finished"))
    #expect(await running.probe.wait { $0.started == 2 })
    running.server.beginGracefulShutdown()

    var seen: [Envelope] = []
    while !seen.contains(where: { $0.callID == 1 && $0.kind == .streamEnd }) {
      seen.append(try #require(try await raw.readEnvelope()))
    }
    #expect(!seen.contains { $0.callID == 2 })
    running.probe.open("unary")
    seen += try await raw.readUntilClosed()
    // Stream messages sent before the drain may come first.
    let goAway = try #require(seen.firstIndex { $0.kind == .goaway })
    let streamEnd = try #require(seen.firstIndex { $0.callID == 1 && $0.kind == .streamEnd })
    #expect(goAway < streamEnd)
    #expect(seen[streamEnd].status?.reason == "SERVER_SHUTTING_DOWN")
    let unary = try #require(seen.first { $0.callID == 2 })
    #expect(unary.status?.code == .ok)
    #expect(Raw.text(unary) == "finished")
    #expect(await running.finishes(within: hangBound))
  }
}

/// Log messages a test reads back.
final class CapturedLogs: Sendable {
  private let lines = Mutex<[String]>([])

  func append(_ message: String) { lines.withLock { $0.append(message) } }

  var messages: [String] { lines.withLock { $0 } }
}

/// A log handler that keeps each message.
struct CapturingLogHandler: LogHandler {
  let logs: CapturedLogs
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    logs.append(event.message.description)
  }
}
