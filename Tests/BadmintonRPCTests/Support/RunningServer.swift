import BadmintonRPC
import CoreMetrics
import Logging
import NIOCore

/// A server started in a task of its own, for tests that stop it themselves.
struct RunningServer {
  let server: RPCServer
  let task: Task<Void, any Error>
  let port: Int
  let probe: HandlerProbe

  static func start(
    _ configuration: ServerConfiguration = ServerConfiguration(), port: Int = 0,
    metricsFactory: (any MetricsFactory)? = nil
  ) async throws -> RunningServer {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = port
    let probe = HandlerProbe()
    var logger = Logger(label: "test.server")
    logger.logLevel = .critical
    let server = RPCServer(
      configuration: configuration, services: [TestService(probe: probe)], logger: logger,
      metricsFactory: metricsFactory)
    let task = Task { try await server.run() }
    let bound = try await server.localAddress().port!
    return RunningServer(server: server, task: task, port: bound, probe: probe)
  }

  /// Stops at once: every connection is closed.
  func stop() async {
    task.cancel()
    _ = await task.result
  }

  /// True when `run` returned within `limit`, a bound on a failure only: it returns as soon as
  /// `run` does.
  func finishes(within limit: Duration) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        _ = await task.result
        return true
      }
      group.addTask {
        try? await Task.sleep(for: limit)
        return false
      }
      let first = await group.next()!
      group.cancelAll()
      return first
    }
  }
}

/// Builds the envelopes a test sends on a raw connection.
enum Raw {
  static func request(
    _ callID: UInt64, _ command: String, method: String = TestService.unary.path,
    timeoutMs: UInt32 = 0, locale: String? = nil
  ) -> Envelope {
    Envelope(
      callID: callID, kind: .request, method: method, timeoutMs: timeoutMs,
      metadata: locale.map { [Metadata(key: "locale", value: $0)] } ?? [],
      payload: HealthCheckRequest(service: command).serializedBytes())
  }

  /// The text a test-service answer carries.
  static func text(_ envelope: Envelope?) -> String? {
    guard let envelope else { return nil }
    return try? HealthCheckRequest(serializedBytes: envelope.payload).service
  }
}
