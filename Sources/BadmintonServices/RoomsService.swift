public import BadmintonAPI
import BadmintonDomain
public import BadmintonProjections
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Rooms`: game rooms. A player opens a room, friends join it by its code, and the
/// owner starts the match once the room holds the players its mode needs. Every call first
/// expires the rooms idle for 30 minutes, so an expired room never accepts anything, whether or
/// not the hourly sweep has passed.
public struct RoomsService: Rooms.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock
  let events: EventPublisher
  let board: MatchBoard
  let blocks: BlockBook

  /// The service over `store`; a room's match may not start for a player `board` finds booked
  /// then (the board learns of every match from the store's change feed).
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
    let caller = try context.requirePrincipal().userID
    let mode = try Self.mode(request.mode)
    let outcome = try await write(answer: { Self.message($0.room!, players: $0.players) }) {
      notify in
      try await store.createRoom(
        ownerID: caller, mode: mode, now: clock.nowUnixMs(),
        code: {
          // On Linux this generator reads getrandom(2), the kernel's cryptographic source.
          var generator = SystemRandomNumberGenerator()
          return RoomCode.generate(using: &generator)
        }, notify: notify)
    }
    return Self.message(outcome.room!, players: outcome.players)
  }

  public func joinRoom(_ request: JoinRoomRequest, context: ServerContext) async throws -> Room {
    let caller = try context.requirePrincipal().userID
    guard let code = RoomCode.normalized(request.code) else { throw RoomErrors.codeInvalid }
    let outcome = try await write(answer: { Self.message($0.room!, players: $0.players) }) {
      notify in
      try await store.joinRoom(code: code, playerID: caller, now: clock.nowUnixMs(), notify: notify)
    }
    return Self.message(outcome.room!, players: outcome.players)
  }

  public func getRoom(_ request: GetRoomRequest, context: ServerContext) async throws -> Room {
    let caller = try context.requirePrincipal().userID
    let outcome = try await write { notify in
      try await store.room(
        id: request.roomID, playerID: caller, now: clock.nowUnixMs(), notify: notify)
    }
    return Self.message(outcome.room!, players: outcome.players)
  }

  public func inviteToRoom(_ request: InviteToRoomRequest, context: ServerContext) async throws
    -> InviteToRoomResponse
  {
    let caller = try context.requirePrincipal().userID
    // A player who blocked the owner is never told: the store leaves them out of the outcome.
    _ = try await write(answer: { _ in InviteToRoomResponse() }) { notify in
      try await store.inviteToRoom(
        ownerID: caller, inviteeID: request.userID, now: clock.nowUnixMs(), notify: notify)
    }
    return InviteToRoomResponse()
  }

  public func kickFromRoom(_ request: KickFromRoomRequest, context: ServerContext) async throws
    -> Room
  {
    let caller = try context.requirePrincipal().userID
    let outcome = try await write(answer: { Self.message($0.room!, players: $0.players) }) {
      notify in
      try await store.kickFromRoom(
        ownerID: caller, playerID: request.userID, now: clock.nowUnixMs(), notify: notify)
    }
    return Self.message(outcome.room!, players: outcome.players)
  }

  public func leaveRoom(_ request: LeaveRoomRequest, context: ServerContext) async throws
    -> LeaveRoomResponse
  {
    let caller = try context.requirePrincipal().userID
    _ = try await write(answer: { _ in LeaveRoomResponse() }) { notify in
      try await store.leaveRoom(playerID: caller, now: clock.nowUnixMs(), notify: notify)
    }
    return LeaveRoomResponse()
  }

  public func startMatch(_ request: StartMatchRequest, context: ServerContext) async throws
    -> StartMatchResponse
  {
    let caller = try context.requirePrincipal().userID
    let now = clock.nowUnixMs()
    let slot = try RoomRules.matchSlot(
      requested: request.slot.map {
        BadmintonDomain.TimeSlot(startUnixMs: $0.startUnixMs, endUnixMs: $0.endUnixMs)
      }, nowUnixMs: now)
    let outcome = try await write(answer: Self.started) { notify in
      try await store.startMatch(ownerID: caller, slot: slot, now: now, notify: notify)
    }
    return Self.started(outcome)
  }

  /// StartMatch's answer: the room and the match it started.
  @Sendable static func started(_ outcome: RoomOutcome) -> StartMatchResponse {
    StartMatchResponse(
      room: Self.message(outcome.room!, players: outcome.players),
      match: MatchingService.message(outcome.match!, players: outcome.players))
  }

  /// Closes the rooms idle for 30 minutes and tells their participants.
  public func sweep() async throws {
    _ = try await write { notify in
      try await store.expireRooms(now: clock.nowUnixMs(), notify: notify)
    }
  }

  // MARK: Writes

  /// Runs one store write with the events of its outcome.
  private func write(
    _ body: (@escaping @Sendable (RoomOutcome) -> OutgoingEvents) async throws -> RoomOutcome
  ) async throws -> RoomOutcome {
    return try await body { outcome in Self.events(of: outcome) }
  }

  /// Runs the store write that answers a keyed call, `answer` making the response from its
  /// outcome (docs/protocol.md, section 18).
  private func write<Response: ProtobufMessage>(
    answer: @escaping @Sendable (RoomOutcome) -> Response,
    _ body: (@escaping @Sendable (RoomOutcome) -> OutgoingEvents) async throws -> RoomOutcome
  ) async throws -> RoomOutcome {
    try await withKeyedAnswer(answer) { try await write(body) }
  }

  /// The events of a write: each change to its room's players, and an invitation.
  static func events(of outcome: RoomOutcome) -> OutgoingEvents {
    var events: OutgoingEvents = []
    for change in outcome.changes {
      let changed = RoomChanged(
        room: message(change.room, players: outcome.players), change: message(change.change),
        actorID: change.actorID, subjectID: change.subjectID)
      let payload = Event(body: .roomChanged(changed)).serializedBytes()
      events += change.recipients.map { ($0, payload) }
    }
    if let invited = outcome.invitedPlayerID, let room = outcome.room,
      let owner = outcome.players[room.ownerID]
    {
      let invitation = RoomInvitation(
        room: message(room, players: outcome.players), inviter: PlayerCard(owner))
      events.append((invited, Event(body: .roomInvitation(invitation)).serializedBytes()))
    }
    return events
  }

  // MARK: Messages

  private static func mode(_ mode: APIMatchMode) throws(DomainError) -> BadmintonDomain.MatchMode {
    switch mode {
    case .singles: return .singles
    case .doubles: return .doubles
    default:
      throw .invalidField(
        "mode", "MATCH_MODE_INVALID", en: "The mode must be SINGLES or DOUBLES.",
        zhCN: "模式须为单打或双打。")
    }
  }

  static func message(_ room: RoomRecord, players: [Int64: PlayerRecord]) -> Room {
    let state: RoomState =
      switch room.state {
      case .open: .open
      case .started: .started
      case .closed: .closed
      case .expired: .expired
      }
    return Room(
      id: room.id, code: room.code, mode: MatchingService.message(room.mode), state: state,
      ownerID: room.ownerID,
      participants: room.participants.map { participant in
        RoomParticipant(
          player: players[participant.playerID].map(PlayerCard.init)
            ?? PlayerCard(userID: participant.playerID),
          joinedAtUnixMs: participant.joinedAtUnixMs)
      },
      ready: room.state == .open
        && RoomRules.isReady(mode: room.mode, participantCount: room.participants.count),
      createdAtUnixMs: room.createdAtUnixMs, lastActivityAtUnixMs: room.lastActivityAtUnixMs,
      expiresAtUnixMs: RoomRules.expiresAt(lastActivityAtUnixMs: room.lastActivityAtUnixMs),
      matchID: room.matchID ?? 0)
  }

  static func message(_ change: StoredRoomChange) -> RoomChange {
    switch change {
    case .joined: .joined
    case .left: .left
    case .kicked: .kicked
    case .invited: .invited
    case .started: .started
    case .closed: .closed
    case .expired: .expired
    }
  }
}
