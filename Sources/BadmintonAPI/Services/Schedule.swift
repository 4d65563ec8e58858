public import BadmintonRPC

/// Schedule (`badminton.v1.Schedule`): every method needs authentication.
public enum Schedule {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Schedule"

  /// `GetMySchedule`.
  public static let getMySchedule = MethodDescriptor<GetMyScheduleRequest, WeekSchedule>(
    service: serviceName, method: "GetMySchedule", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `UpdateDayStatus`: CANNOT_UPDATE_PAST_DATE for a day before today; setting a day again replaces it.
  public static let updateDayStatus = MethodDescriptor<UpdateDayStatusRequest, DaySchedule>(
    service: serviceName, method: "UpdateDayStatus", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `GetFriendsSchedules`: Friends' weeks only.
  public static let getFriendsSchedules = MethodDescriptor<
    GetFriendsSchedulesRequest, GetFriendsSchedulesResponse
  >(
    service: serviceName, method: "GetFriendsSchedules", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName,
    methods: [getMySchedule.info, updateDayStatus.info, getFriendsSchedules.info])

  /// What a `badminton.v1.Schedule` service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `GetMySchedule`.
    func getMySchedule(_ request: GetMyScheduleRequest, context: ServerContext) async throws
      -> WeekSchedule
    /// Answers `UpdateDayStatus`.
    func updateDayStatus(_ request: UpdateDayStatusRequest, context: ServerContext) async throws
      -> DaySchedule
    /// Answers `GetFriendsSchedules`.
    func getFriendsSchedules(_ request: GetFriendsSchedulesRequest, context: ServerContext)
      async throws -> GetFriendsSchedulesResponse
  }

  /// The typed client of `badminton.v1.Schedule`.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `GetMySchedule`.
    public func getMySchedule(_ request: GetMyScheduleRequest, options: CallOptions = CallOptions())
      async throws -> WeekSchedule
    {
      try await client.unary(Schedule.getMySchedule, request, options: options)
    }

    /// Calls `UpdateDayStatus`.
    public func updateDayStatus(
      _ request: UpdateDayStatusRequest, options: CallOptions = CallOptions()
    ) async throws -> DaySchedule {
      try await client.unary(Schedule.updateDayStatus, request, options: options)
    }

    /// Calls `GetFriendsSchedules`.
    public func getFriendsSchedules(
      _ request: GetFriendsSchedulesRequest, options: CallOptions = CallOptions()
    ) async throws -> GetFriendsSchedulesResponse {
      try await client.unary(Schedule.getFriendsSchedules, request, options: options)
    }

  }
}

extension Schedule.ServiceProtocol {
  /// Adds every method of `badminton.v1.Schedule` to `registry`.
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Schedule.getMySchedule) { request, context in
      try await self.getMySchedule(request, context: context)
    }
    registry.register(Schedule.updateDayStatus) { request, context in
      try await self.updateDayStatus(request, context: context)
    }
    registry.register(Schedule.getFriendsSchedules) { request, context in
      try await self.getFriendsSchedules(request, context: context)
    }
  }
}

extension RPCClient {
  /// The typed client of `badminton.v1.Schedule`.
  public var schedule: Schedule.Client { Schedule.Client(client: self) }
}
