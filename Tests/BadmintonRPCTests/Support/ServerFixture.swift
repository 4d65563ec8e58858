import BadmintonRPC
import Logging
import NIOCore
import NIOPosix

/// A server on a free loopback port, run for the length of `body`, then shut down.
func withTestServer<T>(
  configuration: ServerConfiguration = ServerConfiguration(),
  services: (HandlerProbe) -> [any RPCService] = { [TestService(probe: $0)] },
  authenticator: (any Authenticator)? = nil,
  _ body: (RPCServer, Int, HandlerProbe) async throws -> T
) async throws -> T {
  var configuration = configuration
  configuration.host = "127.0.0.1"
  configuration.port = 0
  let probe = HandlerProbe()
  var logger = Logger(label: "test.server")
  logger.logLevel = .critical
  let server = RPCServer(
    configuration: configuration, services: services(probe), authenticator: authenticator,
    logger: logger)
  return try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await server.run() }
    let port = try await server.localAddress().port!
    do {
      let result = try await body(server, port, probe)
      group.cancelAll()
      try? await group.waitForAll()
      return result
    } catch {
      group.cancelAll()
      try? await group.waitForAll()
      throw error
    }
  }
}

/// A client of the server on `port`, closed after `body`.
func withTestClient<T>(
  port: Int, configuration: ClientConfiguration = ClientConfiguration(),
  _ body: (RPCClient) async throws -> T
) async throws -> T {
  let client = RPCClient(host: "127.0.0.1", port: port, configuration: configuration)
  do {
    let result = try await body(client)
    await client.close()
    return result
  } catch {
    await client.close()
    throw error
  }
}

/// Runs `body` and returns the `RPCError` it threw; fails when it threw nothing or another error.
func rpcError(_ body: () async throws -> Void) async -> RPCError? {
  do {
    try await body()
    return nil
  } catch let error as RPCError {
    return error
  } catch {
    return RPCError(
      code: .unknown, reason: "NOT_AN_RPC_ERROR", message: .init(verbatim: "\(error)"))
  }
}

/// Accepts the bearer token "good" as user 1.
struct GoodTokenAuthenticator: Authenticator {
  func authenticate(bearerToken: String) async throws -> Principal? {
    bearerToken == "good" ? Principal(userID: 1, isAdministrator: false) : nil
  }
}
