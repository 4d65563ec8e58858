public import BadmintonAPI
public import BadmintonRPC
import Logging
import NIOCore
import Synchronization

/// Our side of the RPC comparison: an `RPCServer` serving FindMatches with the fixture's domain
/// call, and the client loops that time it.
public enum OurRPC {
  /// FindMatches at its own path, without the session check (the grpc-swift peer has none
  /// either), so that both servers do the same work.
  static let findMatches = MethodDescriptor<FindMatchesRequest, FindMatchesResponse>(
    service: Matching.serviceName, method: "FindMatches", kind: .unary, idempotent: true,
    requiresAuthentication: false)

  struct FindMatchesService: RPCService {
    let fixture: FindMatchesFixture

    func registerMethods(in registry: inout HandlerRegistry) {
      // Inline, on the connection's event loop, as badminton-server serves FindMatches.
      registry.register(
        OurRPC.findMatches,
        inline: { request, _ in
          guard request.availabilityID == fixture.query.id else {
            throw RPCError(
              code: .notFound, reason: "AVAILABILITY_NOT_FOUND",
              message: LocalizedText(en: "No such availability.", zhCN: "没有该可约时间。"))
          }
          return fixture.response(fixture.page())
        })
    }
  }

  /// Runs `body` with the port of a server serving `fixture`, then shuts the server down.
  public static func withServer<T: Sendable>(
    _ fixture: FindMatchesFixture, _ body: (Int) async throws -> T
  ) async throws -> T {
    var logger = Logger(label: "badminton.bench.server")
    logger.logLevel = .critical
    let server = RPCServer(
      configuration: ServerConfiguration(port: 0),
      services: [FindMatchesService(fixture: fixture)], logger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await server.run() }
      defer { group.cancelAll() }
      let port = try await server.localAddress().port!
      return try await body(port)
    }
  }

  /// Round trips of `calls` calls made one after another on one connection, after `warmup`;
  /// with `onEventLoop`, the calling task runs on the connection's event loop.
  public static func latencies(
    port: Int, request: FindMatchesRequest, calls: Int, warmup: Int, onEventLoop: Bool = false
  ) async throws -> [Duration] {
    try await latencies(
      port: port, method: findMatches, request: request, calls: calls, warmup: warmup,
      onEventLoop: onEventLoop)
  }

  /// `inFlight` calls kept going at once on one connection for `duration` after `warmup`:
  /// the calls completed in the measured window, its length, and their round trips; with
  /// `onEventLoop`, the calling tasks run on the connection's event loop.
  public static func load(
    port: Int, request: FindMatchesRequest, inFlight: Int, duration: Duration, warmup: Duration,
    onEventLoop: Bool = false
  ) async throws -> (calls: Int, elapsed: Duration, latencies: [Duration]) {
    try await load(
      port: port, method: findMatches, request: request, inFlight: inFlight, duration: duration,
      warmup: warmup, onEventLoop: onEventLoop)
  }

  /// Round trips of `calls` calls of `method` made one after another on one connection to
  /// `port`, after `warmup`; with `onEventLoop`, the calling task runs on the connection's event
  /// loop (`RPCClient.taskExecutor`), else on the global executor.
  public static func latencies<Request: ProtobufMessage, Response: ProtobufMessage>(
    port: Int, method: MethodDescriptor<Request, Response>, request: Request, calls: Int,
    warmup: Int, onEventLoop: Bool
  ) async throws -> [Duration] {
    let client = RPCClient(host: "127.0.0.1", port: port)
    defer { Task { await client.close() } }
    let measure = { () async throws -> [Duration] in
      for _ in 0..<warmup { _ = try await client.unary(method, request) }
      let clock = ContinuousClock()
      var samples: [Duration] = []
      samples.reserveCapacity(calls)
      for _ in 0..<calls {
        let start = clock.now
        _ = try await client.unary(method, request)
        samples.append(clock.now - start)
      }
      return samples
    }
    if onEventLoop {
      return try await withTaskExecutorPreference(client.taskExecutor) { try await measure() }
    }
    return try await withTaskExecutorPreference(nil) { try await measure() }
  }

  /// `inFlight` calls of `method` kept going at once on one connection to `port` for
  /// `duration` after `warmup`: the calls completed in the measured window, its length, and
  /// their round trips; with `onEventLoop`, the calling tasks run on the connection's event
  /// loop, else on the global executor.
  public static func load<Request: ProtobufMessage, Response: ProtobufMessage>(
    port: Int, method: MethodDescriptor<Request, Response>, request: Request, inFlight: Int,
    duration: Duration, warmup: Duration, onEventLoop: Bool
  ) async throws -> (calls: Int, elapsed: Duration, latencies: [Duration]) {
    let client = RPCClient(host: "127.0.0.1", port: port)
    defer { Task { await client.close() } }
    _ = try await client.unary(method, request)
    let clock = ContinuousClock()
    let measureFrom = clock.now + warmup
    let end = measureFrom + duration
    let executor: (any TaskExecutor)? = onEventLoop ? client.taskExecutor : nil
    let perTask = try await withThrowingTaskGroup(of: [Duration].self) { group in
      for _ in 0..<inFlight {
        group.addTask(executorPreference: executor) {
          var samples: [Duration] = []
          while true {
            let start = clock.now
            if start >= end { return samples }
            _ = try await client.unary(method, request)
            if start >= measureFrom { samples.append(clock.now - start) }
          }
        }
      }
      var all: [[Duration]] = []
      for try await samples in group { all.append(samples) }
      return all
    }
    let latencies = perTask.flatMap { $0 }
    return (latencies.count, duration, latencies)
  }
}
