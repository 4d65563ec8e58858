import BadmintonRPC
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Prometheus
import Testing

@testable import BadmintonMetrics

/// A server whose metrics go to a registry of its own, and the endpoint that serves them, both
/// on free loopback ports.
private struct MeteredServer {
  let running: RunningServer
  let endpoint: MetricsEndpoint
  let endpointTask: Task<Void, any Error>
  let metricsPort: Int

  static func start(_ configuration: ServerConfiguration = ServerConfiguration()) async throws
    -> MeteredServer
  {
    let registry = PrometheusCollectorRegistry()
    let running = try await RunningServer.start(
      configuration, metricsFactory: PrometheusSetup.factory(registry: registry))
    let endpoint = MetricsEndpoint(
      configuration: .init(port: 0), registry: registry, logger: quietLogger)
    let endpointTask = Task { try await endpoint.run() }
    let metricsPort = try await endpoint.localAddress().port!
    return MeteredServer(
      running: running, endpoint: endpoint, endpointTask: endpointTask, metricsPort: metricsPort)
  }

  /// Scrapes the endpoint over HTTP.
  func scrape() async throws -> Scrape {
    let answer = try await HTTPExchange.request("/metrics", port: metricsPort)
    #expect(answer.status == 200)
    return Scrape(answer.body)
  }

  func stop() async {
    endpointTask.cancel()
    _ = await endpointTask.result
    await running.stop()
  }
}

private typealias Name = ServerMetrics.Name

/// A logger for the endpoints the tests start: only what is critical.
private let quietLogger: Logger = {
  var logger = Logger(label: "test.metrics")
  logger.logLevel = .critical
  return logger
}()

@Suite("Metrics")
struct MetricsTests {
  @Test("calls are counted by method and code, timed, and served at /metrics")
  func calls_areCountedAndServed() async throws {
    let server = try await MeteredServer.start()
    let unary = TestService.unary.path
    let raw = try await RawConnection.connect(port: server.running.port)
    try await raw.send(Raw.request(1, "echo:one"))
    #expect(try await raw.readEnvelope()?.status?.code == .ok)
    try await raw.send(Raw.request(2, "echo:two"))
    #expect(try await raw.readEnvelope()?.status?.code == .ok)
    try await raw.send(Raw.request(3, "fail"))
    #expect(try await raw.readEnvelope()?.status?.code == .invalidArgument)
    try await raw.send(Raw.request(4, "busy:0:100"))
    #expect(try await raw.readEnvelope()?.status?.reason == "TEST_BUSY")
    try await raw.send(Raw.request(5, "x", method: "/nope.v1.Nowhere/Nothing"))
    #expect(try await raw.readEnvelope()?.status?.code == .unimplemented)

    let scrape = try await server.scrape()
    #expect(scrape.value(Name.calls, ["method": unary, "code": "OK"]) == 2)
    #expect(scrape.value(Name.calls, ["method": unary, "code": "INVALID_ARGUMENT"]) == 1)
    #expect(scrape.value(Name.calls, ["method": unary, "code": "RESOURCE_EXHAUSTED"]) == 1)
    #expect(scrape.value(Name.calls, ["method": "unknown", "code": "UNIMPLEMENTED"]) == 1)
    #expect(scrape.total(Name.calls) == 5)
    // The path a client sent is never a label.
    #expect(!scrape.samples.contains { $0.labels["method"] == "/nope.v1.Nowhere/Nothing" })
    #expect(scrape.value(Name.refusals, ["reason": "TEST_BUSY"]) == 1)
    // Every answered unary call is timed, in the configured buckets.
    #expect(scrape.value(Name.callDuration + "_count", ["method": unary]) == 4)
    #expect(scrape.value(Name.callDuration + "_bucket", ["method": unary, "le": "+Inf"]) == 4)
    #expect(scrape.value(Name.callDuration + "_bucket", ["method": unary, "le": "0.0001"]) != nil)
    #expect(scrape.value(Name.callDuration + "_sum", ["method": unary]) != nil)
    // Methods no one called are there with no calls.
    #expect(scrape.value(Name.callDuration + "_count", ["method": Health.check.path]) == 0)
    #expect(scrape.value(Name.openConnections) == 1)
    #expect(scrape.value(Name.openStreams) == 0)

    await raw.close()
    await server.stop()
  }

  @Test("a protocol violation is counted by the reason of its GOAWAY")
  func violation_isCounted() async throws {
    let server = try await MeteredServer.start()
    let raw = try await RawConnection.connect(port: server.running.port)
    try await raw.send(Envelope(callID: 0, kind: .request, method: TestService.unary.path))
    let seen = try await raw.readUntilClosed()
    #expect(seen.map(\.kind) == [.goaway])
    #expect(seen.first?.status?.reason == "CALL_ID_ZERO")

    let scrape = try await server.scrape()
    #expect(scrape.value(Name.goAways, ["reason": "CALL_ID_ZERO"]) == 1)
    #expect(scrape.total(Name.goAways) == 1)
    #expect(scrape.total(Name.calls) == 0)
    #expect(scrape.total(Name.refusals) == 0)
    await server.stop()
  }

  @Test("an open stream is a gauge; a refused connection is counted by its limit")
  func streamsAndRefusedConnections_areCounted() async throws {
    let server = try await MeteredServer.start(ServerConfiguration(maximumConnectionsPerAddress: 1))
    let watcher = try await RawConnection.connect(port: server.running.port)
    try await watcher.send(Raw.request(1, "forever", method: TestService.stream.path))
    #expect(try await watcher.readEnvelope()?.kind == .streamMessage)

    let refused = try await RawConnection.connect(port: server.running.port)
    let seen = try await refused.readUntilClosed()
    #expect(seen.first?.status?.reason == "TOO_MANY_CONNECTIONS_FROM_ADDRESS")

    let scrape = try await server.scrape()
    #expect(scrape.value(Name.openStreams) == 1)
    #expect(scrape.value(Name.openConnections) == 1)
    #expect(scrape.value(Name.refusals, ["reason": "TOO_MANY_CONNECTIONS_FROM_ADDRESS"]) == 1)

    // A cancelled stream's handler ends, and the gauge comes back to 0 (the handler lets go
    // after its answer, so the scrape is repeated until it does; the bound only ends a failure).
    try await watcher.send(Envelope(callID: 1, kind: .cancel))
    while let envelope = try await watcher.readEnvelope(), envelope.kind != .streamEnd {}
    let end = ContinuousClock.now + hangBound
    var streams = try await server.scrape().value(Name.openStreams)
    while streams != 0, ContinuousClock.now < end {
      try await Task.sleep(for: .milliseconds(5))
      streams = try await server.scrape().value(Name.openStreams)
    }
    #expect(streams == 0)
    await watcher.close()
    await server.stop()
  }
}

@Suite("Metrics endpoint")
struct MetricsEndpointTests {
  private static func start(
    _ configuration: MetricsEndpointConfiguration = .init(port: 0),
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws -> (MetricsEndpoint, Task<Void, any Error>, Int) {
    let registry = PrometheusCollectorRegistry()
    registry.makeCounter(
      descriptor: MetricNameDescriptor(
        metricName: "badminton_test_total", unitName: "", helpText: "A test counter.")
    ).increment()
    let endpoint = MetricsEndpoint(
      configuration: configuration, registry: registry, eventLoopGroup: group,
      logger: quietLogger)
    let task = Task { try await endpoint.run() }
    return (endpoint, task, try await endpoint.localAddress().port!)
  }

  @Test("GET /metrics answers the registry in Prometheus's text format, then closes")
  func get_answersMetrics() async throws {
    let (_, task, port) = try await Self.start()
    defer { task.cancel() }
    let answer = try await HTTPExchange.request("/metrics", port: port)
    #expect(answer.status == 200)
    #expect(answer.header("Content-Type") == MetricsEndpoint.contentType)
    #expect(answer.header("Connection") == "close")
    #expect(Scrape(answer.body).value("badminton_test_total") == 1)
    #expect(answer.header("Content-Length") == "\(answer.body.utf8.count)")
    let query = try await HTTPExchange.request("/metrics?name=x", port: port)
    #expect(query.status == 200)
  }

  @Test("a connection carries one request: a second one sent with it is not answered")
  func secondRequest_isNotAnswered() async throws {
    let (_, task, port) = try await Self.start()
    defer { task.cancel() }
    let one = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n"
    let answer = try await HTTPExchange.send(Array((one + one).utf8), port: port)
    #expect(answer.status == 200)
    #expect(answer.header("Connection") == "close")
    let text = String(decoding: answer.bytes, as: UTF8.self)
    #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2)
    #expect(answer.header("Content-Length") == "\(answer.body.utf8.count)")
  }

  @Test("a scrape carries the process's metrics, read from /proc, with HELP and TYPE lines")
  func scrape_carriesProcessMetrics() async throws {
    let (_, task, port) = try await Self.start()
    defer { task.cancel() }
    let answer = try await HTTPExchange.request("/metrics", port: port)
    let scrape = Scrape(answer.body)
    let resident = try #require(scrape.value("process_resident_memory_bytes"))
    #expect(resident > 0)
    #expect(try #require(scrape.value("process_virtual_memory_bytes")) >= resident)
    #expect(try #require(scrape.value("process_cpu_seconds_total")) > 0)
    let open = try #require(scrape.value("process_open_fds"))
    #expect(open > 0)
    #expect(try #require(scrape.value("process_max_fds")) >= open)
    let start = try #require(scrape.value("process_start_time_seconds"))
    let now = Date().timeIntervalSince1970
    #expect(start > now - 24 * 3600)
    #expect(start <= now + 1)
    for (name, type) in [
      ("process_cpu_seconds_total", "counter"), ("process_max_fds", "gauge"),
      ("process_open_fds", "gauge"), ("process_resident_memory_bytes", "gauge"),
      ("process_start_time_seconds", "gauge"), ("process_virtual_memory_bytes", "gauge"),
    ] {
      #expect(answer.body.contains("\n# HELP \(name) "), "\(name)")
      #expect(answer.body.contains("\n# TYPE \(name) \(type)\n"), "\(name)")
    }
  }

  @Test("another path is 404 and another method 405, with no metrics in either")
  func otherPathsAndMethods_areRefused() async throws {
    let (_, task, port) = try await Self.start()
    defer { task.cancel() }
    for path in ["/", "/metrics/", "/other", "/metricsx"] {
      let answer = try await HTTPExchange.request(path, port: port)
      #expect(answer.status == 404, "\(path)")
      #expect(!answer.body.contains("badminton_test_total"))
    }
    for method in ["POST", "PUT", "DELETE", "HEAD"] {
      let answer = try await HTTPExchange.request("/metrics", method: method, port: port)
      #expect(answer.status == 405, "\(method)")
      #expect(answer.header("Allow") == "GET")
      #expect(!answer.body.contains("badminton_test_total"))
    }
  }

  @Test("a request past the size limit is closed unanswered")
  func oversizedRequest_isClosed() async throws {
    let (_, task, port) = try await Self.start()
    defer { task.cancel() }
    let padding = String(repeating: "a", count: 9 * 1024)
    let request = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Padding: \(padding)\r\n\r\n"
    let answer = try await HTTPExchange.send(Array(request.utf8), port: port)
    #expect(answer.status == nil)
    #expect(!String(decoding: answer.bytes, as: UTF8.self).contains("badminton_test_total"))
  }

  @Test("a malformed request gets 400")
  func malformedRequest_isBadRequest() async throws {
    let (_, task, port) = try await Self.start()
    defer { task.cancel() }
    let answer = try await HTTPExchange.send(Array("NOT HTTP AT ALL\r\n\r\n".utf8), port: port)
    #expect(answer.status == 400)
  }

  @Test("connections past the cap are closed at once")
  func connectionsPastTheCap_areClosed() async throws {
    // One event loop: connections are admitted in the order they were accepted.
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let (_, task, port) = try await Self.start(
      .init(port: 0, maximumConnections: 1, connectionTimeout: .seconds(600)), group: group)
    let idle = try await RawConnection.connect(port: port)
    let answer = try await HTTPExchange.request("/metrics", port: port)
    #expect(answer.bytes.isEmpty)
    #expect(!idle.isClosedByPeer)
    await idle.close()
    task.cancel()
    _ = await task.result
    try await group.shutdownGracefully()
  }

  @Test("a connection is closed when its time is up, however it trickles")
  func connection_isClosedAfterTimeout() throws {
    let loop = EmbeddedEventLoop()
    let channel = EmbeddedChannel(
      handler: ScrapeConnectionGuard(maximumBytes: 100, timeout: .seconds(10)), loop: loop)
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    for _ in 0..<9 {
      loop.advanceTime(by: .seconds(1))
      try channel.writeInbound(ByteBuffer(bytes: [UInt8(ascii: "G")]))
    }
    #expect(channel.isActive)
    loop.advanceTime(by: .seconds(1))
    #expect(!channel.isActive)
  }

  @Test("a connection is closed once it sends more than the limit")
  func connection_isClosedPastByteLimit() throws {
    let channel = EmbeddedChannel(
      handler: ScrapeConnectionGuard(maximumBytes: 10, timeout: .seconds(10)))
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    try channel.writeInbound(ByteBuffer(bytes: Array(repeating: UInt8(ascii: "a"), count: 10)))
    #expect(channel.isActive)
    #expect(try channel.readInbound(as: ByteBuffer.self)?.readableBytes == 10)
    try channel.writeInbound(ByteBuffer(bytes: [UInt8(ascii: "a")]))
    #expect(!channel.isActive)
    #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
  }
}
