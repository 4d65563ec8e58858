public import BadmintonRPC

/// Rooms (`badminton.v1.Rooms`): every method needs authentication.
public enum Rooms {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Rooms"

  /// `CreateRoom`.
  public static let createRoom = MethodDescriptor<CreateRoomRequest, Room>(
    service: serviceName, method: "CreateRoom", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `JoinRoom`: ROOM_CODE_INVALID, ROOM_EXPIRED, ROOM_FULL, ALREADY_IN_ROOM.
  public static let joinRoom = MethodDescriptor<JoinRoomRequest, Room>(
    service: serviceName, method: "JoinRoom", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `GetRoom`: Participants only.
  public static let getRoom = MethodDescriptor<GetRoomRequest, Room>(
    service: serviceName, method: "GetRoom", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `InviteToRoom`: The owner only, friends only.
  public static let inviteToRoom = MethodDescriptor<InviteToRoomRequest, InviteToRoomResponse>(
    service: serviceName, method: "InviteToRoom", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `KickFromRoom`: The owner only, before the match starts.
  public static let kickFromRoom = MethodDescriptor<KickFromRoomRequest, Room>(
    service: serviceName, method: "KickFromRoom", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `LeaveRoom`: Ownership passes to the earliest joined; the last one out closes the room.
  public static let leaveRoom = MethodDescriptor<LeaveRoomRequest, LeaveRoomResponse>(
    service: serviceName, method: "LeaveRoom", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `StartMatch`: The owner only, when the room is ready: creates a confirmed match of its players.
  public static let startMatch = MethodDescriptor<StartMatchRequest, StartMatchResponse>(
    service: serviceName, method: "StartMatch", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName,
    methods: [
      createRoom.info, joinRoom.info, getRoom.info, inviteToRoom.info, kickFromRoom.info,
      leaveRoom.info, startMatch.info,
    ])

  /// What a `badminton.v1.Rooms` service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `CreateRoom`.
    func createRoom(_ request: CreateRoomRequest, context: ServerContext) async throws -> Room
    /// Answers `JoinRoom`.
    func joinRoom(_ request: JoinRoomRequest, context: ServerContext) async throws -> Room
    /// Answers `GetRoom`.
    func getRoom(_ request: GetRoomRequest, context: ServerContext) async throws -> Room
    /// Answers `InviteToRoom`.
    func inviteToRoom(_ request: InviteToRoomRequest, context: ServerContext) async throws
      -> InviteToRoomResponse
    /// Answers `KickFromRoom`.
    func kickFromRoom(_ request: KickFromRoomRequest, context: ServerContext) async throws -> Room
    /// Answers `LeaveRoom`.
    func leaveRoom(_ request: LeaveRoomRequest, context: ServerContext) async throws
      -> LeaveRoomResponse
    /// Answers `StartMatch`.
    func startMatch(_ request: StartMatchRequest, context: ServerContext) async throws
      -> StartMatchResponse
  }

  /// The typed client of `badminton.v1.Rooms`.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `CreateRoom`.
    public func createRoom(_ request: CreateRoomRequest, options: CallOptions = CallOptions())
      async throws -> Room
    {
      try await client.unary(Rooms.createRoom, request, options: options)
    }

    /// Calls `JoinRoom`.
    public func joinRoom(_ request: JoinRoomRequest, options: CallOptions = CallOptions())
      async throws -> Room
    {
      try await client.unary(Rooms.joinRoom, request, options: options)
    }

    /// Calls `GetRoom`.
    public func getRoom(_ request: GetRoomRequest, options: CallOptions = CallOptions())
      async throws -> Room
    {
      try await client.unary(Rooms.getRoom, request, options: options)
    }

    /// Calls `InviteToRoom`.
    public func inviteToRoom(_ request: InviteToRoomRequest, options: CallOptions = CallOptions())
      async throws -> InviteToRoomResponse
    {
      try await client.unary(Rooms.inviteToRoom, request, options: options)
    }

    /// Calls `KickFromRoom`.
    public func kickFromRoom(_ request: KickFromRoomRequest, options: CallOptions = CallOptions())
      async throws -> Room
    {
      try await client.unary(Rooms.kickFromRoom, request, options: options)
    }

    /// Calls `LeaveRoom`.
    public func leaveRoom(_ request: LeaveRoomRequest, options: CallOptions = CallOptions())
      async throws -> LeaveRoomResponse
    {
      try await client.unary(Rooms.leaveRoom, request, options: options)
    }

    /// Calls `StartMatch`.
    public func startMatch(_ request: StartMatchRequest, options: CallOptions = CallOptions())
      async throws -> StartMatchResponse
    {
      try await client.unary(Rooms.startMatch, request, options: options)
    }

  }
}

extension Rooms.ServiceProtocol {
  /// Adds every method of `badminton.v1.Rooms` to `registry`.
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Rooms.createRoom) { request, context in
      try await self.createRoom(request, context: context)
    }
    registry.register(Rooms.joinRoom) { request, context in
      try await self.joinRoom(request, context: context)
    }
    registry.register(Rooms.getRoom) { request, context in
      try await self.getRoom(request, context: context)
    }
    registry.register(Rooms.inviteToRoom) { request, context in
      try await self.inviteToRoom(request, context: context)
    }
    registry.register(Rooms.kickFromRoom) { request, context in
      try await self.kickFromRoom(request, context: context)
    }
    registry.register(Rooms.leaveRoom) { request, context in
      try await self.leaveRoom(request, context: context)
    }
    registry.register(Rooms.startMatch) { request, context in
      try await self.startMatch(request, context: context)
    }
  }
}

extension RPCClient {
  /// The typed client of `badminton.v1.Rooms`.
  public var rooms: Rooms.Client { Rooms.Client(client: self) }
}
