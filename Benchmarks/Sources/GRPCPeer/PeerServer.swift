import GRPCCore
import GRPCNIOTransportHTTP2

/// A grpc-swift 2 server over HTTP/2 (grpc-swift-nio-transport, Posix, plaintext) serving
/// badminton.v1.Matching/FindMatches with `findMatches`, and badminton.rpc.v1.Health/Check
/// (SERVING, as the project's server answers it); every other method of the two services
/// answers UNIMPLEMENTED.
public final class PeerServer: Sendable {
  /// The port the server is bound to.
  public let port: Int

  private let server: GRPCServer<HTTP2ServerTransport.Posix>
  private let serving: Task<Void, any Error>

  private init(
    port: Int, server: GRPCServer<HTTP2ServerTransport.Posix>, serving: Task<Void, any Error>
  ) {
    self.port = port
    self.server = server
    self.serving = serving
  }

  /// Binds `host:port` (0: any free port) and serves until `stop()`.
  ///
  /// `flushCoalescing` keeps grpc-swift-nio-transport's default of holding flushes for up to
  /// 100 µs to batch writes; off, every response is flushed at once, as the project's own
  /// server does.
  public static func start(
    host: String = "127.0.0.1",
    port: Int = 0,
    flushCoalescing: Bool = false,
    findMatches:
      @escaping @Sendable (Badminton_V1_FindMatchesRequest) async throws ->
      Badminton_V1_FindMatchesResponse
  ) async throws -> PeerServer {
    let transport = HTTP2ServerTransport.Posix(
      address: .ipv4(host: host, port: port),
      transportSecurity: .plaintext,
      config: .defaults { config in
        if !flushCoalescing {
          config.connection.flushCoalescing = nil
        }
      }
    )
    let server = GRPCServer(
      transport: transport,
      services: [MatchingPeerService(findMatches: findMatches), HealthPeerService()]
    )
    let serving = Task { try await server.serve() }

    do {
      let address = try await transport.listeningAddress
      guard let bound = address.ipv4?.port ?? address.ipv6?.port else {
        throw RPCError(code: .internalError, message: "The server is bound to \(address).")
      }
      return PeerServer(port: bound, server: server, serving: serving)
    } catch {
      server.beginGracefulShutdown()
      // A server that failed to bind reports why from `serve()`.
      try await serving.value
      throw error
    }
  }

  /// Stops accepting calls and returns once the calls in flight have finished.
  public func stop() async {
    self.server.beginGracefulShutdown()
    _ = try? await self.serving.value
  }
}

/// The Health service with only Check implemented: the server is serving.
private struct HealthPeerService: Badminton_Rpc_V1_Health.SimpleServiceProtocol {
  func check(
    request: Badminton_Rpc_V1_HealthCheckRequest,
    context: ServerContext
  ) async throws -> Badminton_Rpc_V1_HealthCheckResponse {
    var response = Badminton_Rpc_V1_HealthCheckResponse()
    response.status = .serving
    return response
  }

  func watch(
    request: Badminton_Rpc_V1_HealthCheckRequest,
    response: RPCWriter<Badminton_Rpc_V1_HealthCheckResponse>,
    context: ServerContext
  ) async throws {
    throw MatchingPeerService.unimplemented(context)
  }

  func checkSession(
    request: Badminton_Rpc_V1_HealthCheckRequest,
    context: ServerContext
  ) async throws -> Badminton_Rpc_V1_HealthCheckResponse {
    throw MatchingPeerService.unimplemented(context)
  }
}

/// The Matching service with only FindMatches implemented.
private struct MatchingPeerService: Badminton_V1_Matching.SimpleServiceProtocol {
  let findMatches:
    @Sendable (Badminton_V1_FindMatchesRequest) async throws -> Badminton_V1_FindMatchesResponse

  func findMatches(
    request: Badminton_V1_FindMatchesRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_FindMatchesResponse {
    try await self.findMatches(request)
  }

  func postAvailability(
    request: Badminton_V1_PostAvailabilityRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_Availability {
    throw Self.unimplemented(context)
  }

  func cancelAvailability(
    request: Badminton_V1_CancelAvailabilityRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_CancelAvailabilityResponse {
    throw Self.unimplemented(context)
  }

  func listMyAvailability(
    request: Badminton_V1_ListMyAvailabilityRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_ListMyAvailabilityResponse {
    throw Self.unimplemented(context)
  }

  func saveRecurringSlots(
    request: Badminton_V1_SaveRecurringSlotsRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_RecurringSlots {
    throw Self.unimplemented(context)
  }

  func getRecurringSlots(
    request: Badminton_V1_GetRecurringSlotsRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_RecurringSlots {
    throw Self.unimplemented(context)
  }

  func proposeMatch(
    request: Badminton_V1_ProposeMatchRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_Proposal {
    throw Self.unimplemented(context)
  }

  func respondToProposal(
    request: Badminton_V1_RespondToProposalRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_Proposal {
    throw Self.unimplemented(context)
  }

  func getProposal(
    request: Badminton_V1_GetProposalRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_Proposal {
    throw Self.unimplemented(context)
  }

  func getMatch(
    request: Badminton_V1_GetMatchRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_Match {
    throw Self.unimplemented(context)
  }

  func listMyMatches(
    request: Badminton_V1_ListMyMatchesRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_ListMyMatchesResponse {
    throw Self.unimplemented(context)
  }

  func cancelMatch(
    request: Badminton_V1_CancelMatchRequest,
    context: ServerContext
  ) async throws -> Badminton_V1_Match {
    throw Self.unimplemented(context)
  }

  static func unimplemented(_ context: ServerContext) -> RPCError {
    RPCError(
      code: .unimplemented,
      message: "\(context.descriptor.fullyQualifiedMethod) is not served by the peer."
    )
  }
}
