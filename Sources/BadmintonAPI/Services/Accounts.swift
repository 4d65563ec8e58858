public import BadmintonRPC

/// The accounts service, `badminton.v1.Accounts`: `Register` and `Login` need no authentication.
public enum Accounts {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Accounts"

  /// `Register`: creates an account.
  public static let register = MethodDescriptor<RegisterRequest, RegisterResponse>(
    service: serviceName, method: "Register", kind: .unary, idempotent: false,
    requiresAuthentication: false)

  /// `Login`: starts a session and returns its token.
  public static let login = MethodDescriptor<LoginRequest, LoginResponse>(
    service: serviceName, method: "Login", kind: .unary, idempotent: false,
    requiresAuthentication: false)

  /// `Logout`: ends the session whose token the call carries.
  public static let logout = MethodDescriptor<LogoutRequest, LogoutResponse>(
    service: serviceName, method: "Logout", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName, methods: [register.info, login.info, logout.info])

  /// What an accounts service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `Register`.
    func register(_ request: RegisterRequest, context: ServerContext) async throws
      -> RegisterResponse
    /// Answers `Login`.
    func login(_ request: LoginRequest, context: ServerContext) async throws -> LoginResponse
    /// Answers `Logout`.
    func logout(_ request: LogoutRequest, context: ServerContext) async throws -> LogoutResponse
  }

  /// The typed client of the accounts service.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `Register`.
    public func register(_ request: RegisterRequest, options: CallOptions = CallOptions())
      async throws -> RegisterResponse
    {
      try await client.unary(Accounts.register, request, options: options)
    }

    /// Calls `Login`.
    public func login(_ request: LoginRequest, options: CallOptions = CallOptions())
      async throws -> LoginResponse
    {
      try await client.unary(Accounts.login, request, options: options)
    }

    /// Calls `Logout`.
    public func logout(
      _ request: LogoutRequest = LogoutRequest(), options: CallOptions = CallOptions()
    ) async throws -> LogoutResponse {
      try await client.unary(Accounts.logout, request, options: options)
    }
  }
}

extension Accounts.ServiceProtocol {
  /// Adds `Register`, `Login` and `Logout` to `registry`.
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Accounts.register) { request, context in
      try await self.register(request, context: context)
    }
    registry.register(Accounts.login) { request, context in
      try await self.login(request, context: context)
    }
    registry.register(Accounts.logout) { request, context in
      try await self.logout(request, context: context)
    }
  }
}

extension RPCClient {
  /// The typed client of the accounts service.
  public var accounts: Accounts.Client { Accounts.Client(client: self) }
}
