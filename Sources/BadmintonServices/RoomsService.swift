public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Rooms`: game rooms.
public struct RoomsService: Rooms.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock
  let events: EventPublisher
  let board: MatchBoard
  let blocks: BlockBook

  /// The service over `store`; started matches are booked on `board`.
  public init(
    store: any ServerStore, clock: any WallClock, events: EventPublisher, board: MatchBoard,
    blocks: BlockBook
  ) {
    self.store = store
    self.clock = clock
    self.events = events
    self.board = board
    self.blocks = blocks
  }

  public func createRoom(_ request: CreateRoomRequest, context: ServerContext) async throws -> Room
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "createRoom"))
  }

  public func joinRoom(_ request: JoinRoomRequest, context: ServerContext) async throws -> Room {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "joinRoom"))
  }

  public func getRoom(_ request: GetRoomRequest, context: ServerContext) async throws -> Room {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "getRoom"))
  }

  public func kickFromRoom(_ request: KickFromRoomRequest, context: ServerContext) async throws
    -> Room
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "kickFromRoom"))
  }

  /// Closes the rooms idle for 30 minutes and tells their participants.
  public func sweep() async throws {}

  public func inviteToRoom(_ request: InviteToRoomRequest, context: ServerContext) async throws
    -> InviteToRoomResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED",
      message: LocalizedText(verbatim: "inviteToRoom"))
  }

  public func leaveRoom(_ request: LeaveRoomRequest, context: ServerContext) async throws
    -> LeaveRoomResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "leaveRoom"))
  }

  public func startMatch(_ request: StartMatchRequest, context: ServerContext) async throws
    -> StartMatchResponse
  {
    throw RPCError(
      code: .unimplemented, reason: "UNIMPLEMENTED", message: LocalizedText(verbatim: "startMatch"))
  }

}
