public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Schedule`: the weekly schedule shared with friends.
public struct ScheduleService: Schedule.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock

  /// The service over `store`.
  public init(
    store: any ServerStore, clock: any WallClock
  ) {
    self.store = store
    self.clock = clock
  }

  public func getMySchedule(_ request: GetMyScheduleRequest, context: ServerContext) async throws
    -> WeekSchedule
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "getMySchedule"))
  }

  public func updateDayStatus(_ request: UpdateDayStatusRequest, context: ServerContext)
    async throws -> DaySchedule
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "updateDayStatus"))
  }

  public func getFriendsSchedules(_ request: GetFriendsSchedulesRequest, context: ServerContext)
    async throws -> GetFriendsSchedulesResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "getFriendsSchedules"))
  }

}
