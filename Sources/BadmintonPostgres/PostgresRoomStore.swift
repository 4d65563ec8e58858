public import BadmintonDomain
public import BadmintonStore

// Not built yet: each method below throws until it is.
extension PostgresStore: RoomStore {
  public func createRoom(
    ownerID: Int64, mode: MatchMode, now: Int64, code: @escaping @Sendable () -> String,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    throw NotBuilt()
  }

  public func joinRoom(
    code: String, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    throw NotBuilt()
  }

  public func room(
    id: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    throw NotBuilt()
  }

  public func inviteToRoom(
    ownerID: Int64, inviteeID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    throw NotBuilt()
  }

  public func kickFromRoom(
    ownerID: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    throw NotBuilt()
  }

  public func leaveRoom(
    playerID: Int64, now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    throw NotBuilt()
  }

  public func startMatch(
    ownerID: Int64, slot: TimeSlot, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome {
    throw NotBuilt()
  }

  public func expireRooms(now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents)
    async throws -> RoomOutcome
  {
    throw NotBuilt()
  }
}
