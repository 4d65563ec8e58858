/// The built-in reflection service, `badminton.rpc.v1.Reflection`: no authentication needed.
public enum Reflection {
  /// The service's full name.
  public static let serviceName = "badminton.rpc.v1.Reflection"

  /// `ListMethods`: every method the server serves, sorted by path.
  public static let listMethods = MethodDescriptor<ListMethodsRequest, ListMethodsResponse>(
    service: serviceName, method: "ListMethods", kind: .unary, idempotent: true,
    requiresAuthentication: false, maximumRequestBytes: builtInRequestBytes)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(name: serviceName, methods: [listMethods.info])

  /// What a reflection service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `ListMethods`.
    func listMethods(_ request: ListMethodsRequest, context: ServerContext) async throws
      -> ListMethodsResponse
  }

  /// The typed client of the reflection service.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `ListMethods`.
    public func listMethods(
      _ request: ListMethodsRequest = ListMethodsRequest(), options: CallOptions = CallOptions()
    ) async throws -> ListMethodsResponse {
      try await client.unary(Reflection.listMethods, request, options: options)
    }
  }
}

extension Reflection.ServiceProtocol {
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Reflection.listMethods) { request, context in
      try await self.listMethods(request, context: context)
    }
  }
}

/// The reflection service the server registers: it lists a fixed set of methods.
public struct ReflectionService: Reflection.ServiceProtocol {
  private let methods: [MethodInfo]

  /// A service that lists `methods`.
  public init(methods: [MethodInfo]) {
    self.methods = methods.sorted { $0.path < $1.path }
  }

  public func listMethods(_ request: ListMethodsRequest, context: ServerContext) async throws
    -> ListMethodsResponse
  {
    ListMethodsResponse(methods: methods)
  }
}
