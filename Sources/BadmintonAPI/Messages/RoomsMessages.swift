public import BadmintonRPC
public import CBadmintonProto

/// `badminton.v1.RoomState`. (`badminton.v1.RoomState`).
public struct RoomState: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `ROOM_STATE_UNSPECIFIED`.
  public static let unspecified = RoomState(rawValue: 0)
  /// `ROOM_OPEN`: Taking players.
  public static let open = RoomState(rawValue: 1)
  /// `ROOM_STARTED`: The owner started the match; `match_id` names it.
  public static let started = RoomState(rawValue: 2)
  /// `ROOM_CLOSED`: The last participant left.
  public static let closed = RoomState(rawValue: 3)
  /// `ROOM_EXPIRED`: 30 minutes passed without activity.
  public static let expired = RoomState(rawValue: 4)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "ROOM_STATE_UNSPECIFIED"
    case 1: "ROOM_OPEN"
    case 2: "ROOM_STARTED"
    case 3: "ROOM_CLOSED"
    case 4: "ROOM_EXPIRED"
    default: "ROOM_STATE_\(rawValue)"
    }
  }
}

/// `badminton.v1.RoomParticipant`.
public struct RoomParticipant: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RoomParticipant`.
  public typealias CMessage = Badminton__V1__RoomParticipant
  /// protoc-c's descriptor of `badminton.v1.RoomParticipant`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RoomParticipant")

  /// Player. Always encoded; all defaults when absent on the wire.
  public var player: PlayerCard
  /// Joined at unix ms.
  public var joinedAtUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(player: PlayerCard()) }

  /// A message with the given fields.
  public init(
    player: PlayerCard = PlayerCard(),
    joinedAtUnixMs: Int64 = 0
  ) {
    self.player = player
    self.joinedAtUnixMs = joinedAtUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.player = try CField.message(c.player, as: PlayerCard.self) ?? PlayerCard()
    self.joinedAtUnixMs = c.joined_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__room_participant__init(&c)
    c.player = arena.pointer(to: player.cMessage(in: arena))
    c.joined_at_unix_ms = joinedAtUnixMs
    return c
  }
}

/// `badminton.v1.Room`.
public struct Room: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Room`.
  public typealias CMessage = Badminton__V1__Room
  /// protoc-c's descriptor of `badminton.v1.Room`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Room")

  /// Id.
  public var id: Int64
  /// 6 characters from ABCDEFGHJKMNPQRSTUVWXYZ23456789.
  public var code: String
  /// Mode.
  public var mode: MatchMode
  /// State.
  public var state: RoomState
  /// Owner id.
  public var ownerID: Int64
  /// Earliest joined first.
  public var participants: [RoomParticipant]
  /// Exactly 2 participants for singles, 4 for doubles.
  public var ready: Bool
  /// Created at unix ms.
  public var createdAtUnixMs: Int64
  /// Last activity at unix ms.
  public var lastActivityAtUnixMs: Int64
  /// When the room expires unless something happens in it first.
  public var expiresAtUnixMs: Int64
  /// Set once started.
  public var matchID: Int64

  /// The message with every field at its default.
  public init() { self.init(id: 0) }

  /// A message with the given fields.
  public init(
    id: Int64 = 0,
    code: String = "",
    mode: MatchMode = .unspecified,
    state: RoomState = .unspecified,
    ownerID: Int64 = 0,
    participants: [RoomParticipant] = [],
    ready: Bool = false,
    createdAtUnixMs: Int64 = 0,
    lastActivityAtUnixMs: Int64 = 0,
    expiresAtUnixMs: Int64 = 0,
    matchID: Int64 = 0
  ) {
    self.id = id
    self.code = code
    self.mode = mode
    self.state = state
    self.ownerID = ownerID
    self.participants = participants
    self.ready = ready
    self.createdAtUnixMs = createdAtUnixMs
    self.lastActivityAtUnixMs = lastActivityAtUnixMs
    self.expiresAtUnixMs = expiresAtUnixMs
    self.matchID = matchID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.id = c.id
    self.code = CField.string(c.code)
    self.mode = MatchMode(rawValue: CField.enumValue(c.mode))
    self.state = RoomState(rawValue: CField.enumValue(c.state))
    self.ownerID = c.owner_id
    self.participants = try CField.messages(
      c.n_participants, c.participants, as: RoomParticipant.self)
    self.ready = c.ready != 0
    self.createdAtUnixMs = c.created_at_unix_ms
    self.lastActivityAtUnixMs = c.last_activity_at_unix_ms
    self.expiresAtUnixMs = c.expires_at_unix_ms
    self.matchID = c.match_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__room__init(&c)
    c.id = id
    c.code = arena.string(code)
    c.mode = CField.cEnum(mode.rawValue, as: Badminton__V1__MatchMode.self)
    c.state = CField.cEnum(state.rawValue, as: Badminton__V1__RoomState.self)
    c.owner_id = ownerID
    (c.n_participants, c.participants) = arena.messages(participants)
    c.ready = ready ? 1 : 0
    c.created_at_unix_ms = createdAtUnixMs
    c.last_activity_at_unix_ms = lastActivityAtUnixMs
    c.expires_at_unix_ms = expiresAtUnixMs
    c.match_id = matchID
    return c
  }
}

/// `badminton.v1.CreateRoomRequest`.
public struct CreateRoomRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.CreateRoomRequest`.
  public typealias CMessage = Badminton__V1__CreateRoomRequest
  /// protoc-c's descriptor of `badminton.v1.CreateRoomRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.CreateRoomRequest")

  /// Mode.
  public var mode: MatchMode

  /// The message with every field at its default.
  public init() { self.init(mode: .unspecified) }

  /// A message with the given fields.
  public init(
    mode: MatchMode = .unspecified
  ) {
    self.mode = mode
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.mode = MatchMode(rawValue: CField.enumValue(c.mode))
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__create_room_request__init(&c)
    c.mode = CField.cEnum(mode.rawValue, as: Badminton__V1__MatchMode.self)
    return c
  }
}

/// `badminton.v1.JoinRoomRequest`.
public struct JoinRoomRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.JoinRoomRequest`.
  public typealias CMessage = Badminton__V1__JoinRoomRequest
  /// protoc-c's descriptor of `badminton.v1.JoinRoomRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.JoinRoomRequest")

  /// Any case.
  public var code: String

  /// The message with every field at its default.
  public init() { self.init(code: "") }

  /// A message with the given fields.
  public init(
    code: String = ""
  ) {
    self.code = code
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.code = CField.string(c.code)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__join_room_request__init(&c)
    c.code = arena.string(code)
    return c
  }
}

/// `badminton.v1.GetRoomRequest`.
public struct GetRoomRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetRoomRequest`.
  public typealias CMessage = Badminton__V1__GetRoomRequest
  /// protoc-c's descriptor of `badminton.v1.GetRoomRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetRoomRequest")

  /// 0: the caller's open room.
  public var roomID: Int64

  /// The message with every field at its default.
  public init() { self.init(roomID: 0) }

  /// A message with the given fields.
  public init(
    roomID: Int64 = 0
  ) {
    self.roomID = roomID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.roomID = c.room_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_room_request__init(&c)
    c.room_id = roomID
    return c
  }
}

/// `badminton.v1.InviteToRoomRequest`.
public struct InviteToRoomRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.InviteToRoomRequest`.
  public typealias CMessage = Badminton__V1__InviteToRoomRequest
  /// protoc-c's descriptor of `badminton.v1.InviteToRoomRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.InviteToRoomRequest")

  /// A friend of the caller, who owns an open room.
  public var userID: Int64

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0
  ) {
    self.userID = userID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__invite_to_room_request__init(&c)
    c.user_id = userID
    return c
  }
}

/// `badminton.v1.InviteToRoomResponse`.
public struct InviteToRoomResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.InviteToRoomResponse`.
  public typealias CMessage = Badminton__V1__InviteToRoomResponse
  /// protoc-c's descriptor of `badminton.v1.InviteToRoomResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.InviteToRoomResponse")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__invite_to_room_response__init(&c)
    return c
  }
}

/// `badminton.v1.KickFromRoomRequest`.
public struct KickFromRoomRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.KickFromRoomRequest`.
  public typealias CMessage = Badminton__V1__KickFromRoomRequest
  /// protoc-c's descriptor of `badminton.v1.KickFromRoomRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.KickFromRoomRequest")

  /// User id.
  public var userID: Int64

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0
  ) {
    self.userID = userID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__kick_from_room_request__init(&c)
    c.user_id = userID
    return c
  }
}

/// `badminton.v1.LeaveRoomRequest`.
public struct LeaveRoomRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LeaveRoomRequest`.
  public typealias CMessage = Badminton__V1__LeaveRoomRequest
  /// protoc-c's descriptor of `badminton.v1.LeaveRoomRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LeaveRoomRequest")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__leave_room_request__init(&c)
    return c
  }
}

/// `badminton.v1.LeaveRoomResponse`.
public struct LeaveRoomResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LeaveRoomResponse`.
  public typealias CMessage = Badminton__V1__LeaveRoomResponse
  /// protoc-c's descriptor of `badminton.v1.LeaveRoomResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LeaveRoomResponse")

  /// The message, which has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__leave_room_response__init(&c)
    return c
  }
}

/// `badminton.v1.StartMatchRequest`.
public struct StartMatchRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.StartMatchRequest`.
  public typealias CMessage = Badminton__V1__StartMatchRequest
  /// protoc-c's descriptor of `badminton.v1.StartMatchRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.StartMatchRequest")

  /// Absent: from now for one hour. 1 to 8 hours, not starting in the past.
  public var slot: TimeSlot?

  /// The message with every field at its default.
  public init() { self.init(slot: nil) }

  /// A message with the given fields.
  public init(
    slot: TimeSlot? = nil
  ) {
    self.slot = slot
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.slot = try CField.message(c.slot, as: TimeSlot.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__start_match_request__init(&c)
    c.slot = slot.map { arena.pointer(to: $0.cMessage(in: arena)) }
    return c
  }
}

/// `badminton.v1.StartMatchResponse`.
public struct StartMatchResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.StartMatchResponse`.
  public typealias CMessage = Badminton__V1__StartMatchResponse
  /// protoc-c's descriptor of `badminton.v1.StartMatchResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.StartMatchResponse")

  /// Room. Always encoded; all defaults when absent on the wire.
  public var room: Room
  /// Match. Always encoded; all defaults when absent on the wire.
  public var match: Match

  /// The message with every field at its default.
  public init() { self.init(room: Room()) }

  /// A message with the given fields.
  public init(
    room: Room = Room(),
    match: Match = Match()
  ) {
    self.room = room
    self.match = match
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.room = try CField.message(c.room, as: Room.self) ?? Room()
    self.match = try CField.message(c.match, as: Match.self) ?? Match()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__start_match_response__init(&c)
    c.room = arena.pointer(to: room.cMessage(in: arena))
    c.match = arena.pointer(to: match.cMessage(in: arena))
    return c
  }
}

/// `badminton.v1.RoomChange`. (`badminton.v1.RoomChange`).
public struct RoomChange: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `ROOM_CHANGE_UNSPECIFIED`.
  public static let unspecified = RoomChange(rawValue: 0)
  /// `ROOM_CHANGE_JOINED`.
  public static let joined = RoomChange(rawValue: 1)
  /// `ROOM_CHANGE_LEFT`.
  public static let left = RoomChange(rawValue: 2)
  /// `ROOM_CHANGE_KICKED`.
  public static let kicked = RoomChange(rawValue: 3)
  /// `ROOM_CHANGE_INVITED`.
  public static let invited = RoomChange(rawValue: 4)
  /// `ROOM_CHANGE_STARTED`.
  public static let started = RoomChange(rawValue: 5)
  /// `ROOM_CHANGE_CLOSED`.
  public static let closed = RoomChange(rawValue: 6)
  /// `ROOM_CHANGE_EXPIRED`.
  public static let expired = RoomChange(rawValue: 7)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "ROOM_CHANGE_UNSPECIFIED"
    case 1: "ROOM_CHANGE_JOINED"
    case 2: "ROOM_CHANGE_LEFT"
    case 3: "ROOM_CHANGE_KICKED"
    case 4: "ROOM_CHANGE_INVITED"
    case 5: "ROOM_CHANGE_STARTED"
    case 6: "ROOM_CHANGE_CLOSED"
    case 7: "ROOM_CHANGE_EXPIRED"
    default: "ROOM_CHANGE_\(rawValue)"
    }
  }
}

/// Event body: something happened in a room the player is in (or was kicked from). (`badminton.v1.RoomChanged`).
public struct RoomChanged: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RoomChanged`.
  public typealias CMessage = Badminton__V1__RoomChanged
  /// protoc-c's descriptor of `badminton.v1.RoomChanged`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RoomChanged")

  /// Room. Always encoded; all defaults when absent on the wire.
  public var room: Room
  /// Change.
  public var change: RoomChange
  /// Who did it; 0 for an expiry.
  public var actorID: Int64
  /// Who it happened to: the player who joined, left, was kicked or invited.
  public var subjectID: Int64

  /// The message with every field at its default.
  public init() { self.init(room: Room()) }

  /// A message with the given fields.
  public init(
    room: Room = Room(),
    change: RoomChange = .unspecified,
    actorID: Int64 = 0,
    subjectID: Int64 = 0
  ) {
    self.room = room
    self.change = change
    self.actorID = actorID
    self.subjectID = subjectID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.room = try CField.message(c.room, as: Room.self) ?? Room()
    self.change = RoomChange(rawValue: CField.enumValue(c.change))
    self.actorID = c.actor_id
    self.subjectID = c.subject_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__room_changed__init(&c)
    c.room = arena.pointer(to: room.cMessage(in: arena))
    c.change = CField.cEnum(change.rawValue, as: Badminton__V1__RoomChange.self)
    c.actor_id = actorID
    c.subject_id = subjectID
    return c
  }
}

/// Event body: a friend invites the player to their room. (`badminton.v1.RoomInvitation`).
public struct RoomInvitation: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RoomInvitation`.
  public typealias CMessage = Badminton__V1__RoomInvitation
  /// protoc-c's descriptor of `badminton.v1.RoomInvitation`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RoomInvitation")

  /// Room. Always encoded; all defaults when absent on the wire.
  public var room: Room
  /// Inviter. Always encoded; all defaults when absent on the wire.
  public var inviter: PlayerCard

  /// The message with every field at its default.
  public init() { self.init(room: Room()) }

  /// A message with the given fields.
  public init(
    room: Room = Room(),
    inviter: PlayerCard = PlayerCard()
  ) {
    self.room = room
    self.inviter = inviter
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.room = try CField.message(c.room, as: Room.self) ?? Room()
    self.inviter = try CField.message(c.inviter, as: PlayerCard.self) ?? PlayerCard()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__room_invitation__init(&c)
    c.room = arena.pointer(to: room.cMessage(in: arena))
    c.inviter = arena.pointer(to: inviter.cMessage(in: arena))
    return c
  }
}
