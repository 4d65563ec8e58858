public import BadmintonDomain

/// Where a room stands.
public enum StoredRoomState: Int, Hashable, Sendable {
  /// Taking players.
  case open = 1
  /// The owner started the match.
  case started = 2
  /// The last participant left.
  case closed = 3
  /// 30 minutes passed without activity.
  case expired = 4
}

/// One player of a room.
public struct RoomParticipantRecord: Hashable, Sendable {
  /// The player's id.
  public var playerID: Int64
  /// When they joined, in milliseconds since 1970-01-01 UTC.
  public var joinedAtUnixMs: Int64

  /// A participant with the given fields.
  public init(playerID: Int64, joinedAtUnixMs: Int64) {
    self.playerID = playerID
    self.joinedAtUnixMs = joinedAtUnixMs
  }
}

/// A room as stored.
public struct RoomRecord: Hashable, Sendable {
  /// The room's id.
  public var id: Int64
  /// 6 characters of `RoomCode.alphabet`.
  public var code: String
  /// Singles or doubles.
  public var mode: MatchMode
  /// Where the room stands.
  public var state: StoredRoomState
  /// The participant who may invite, kick and start.
  public var ownerID: Int64
  /// Earliest joined first. A closed room has none; a started or expired one keeps those it had.
  public var participants: [RoomParticipantRecord]
  /// When the room was opened.
  public var createdAtUnixMs: Int64
  /// The last create, join, leave, kick or invitation.
  public var lastActivityAtUnixMs: Int64
  /// The match a started room made.
  public var matchID: Int64?

  /// A record with the given fields.
  public init(
    id: Int64, code: String, mode: MatchMode, state: StoredRoomState, ownerID: Int64,
    participants: [RoomParticipantRecord], createdAtUnixMs: Int64, lastActivityAtUnixMs: Int64,
    matchID: Int64?
  ) {
    self.id = id
    self.code = code
    self.mode = mode
    self.state = state
    self.ownerID = ownerID
    self.participants = participants
    self.createdAtUnixMs = createdAtUnixMs
    self.lastActivityAtUnixMs = lastActivityAtUnixMs
    self.matchID = matchID
  }

  /// The ids of the participants, earliest joined first.
  public var playerIDs: [Int64] { participants.map(\.playerID) }
}

/// What happened in a room.
public enum StoredRoomChange: Int, Hashable, Sendable {
  /// A player joined.
  case joined = 1
  /// A player left.
  case left = 2
  /// The owner removed a player.
  case kicked = 3
  /// The owner invited a friend.
  case invited = 4
  /// The owner started the match.
  case started = 5
  /// The last participant left.
  case closed = 6
  /// 30 minutes passed without activity.
  case expired = 7
}

/// One change of a room and who is told of it.
public struct RoomChangeRecord: Hashable, Sendable {
  /// The room after the change.
  public var room: RoomRecord
  /// What happened.
  public var change: StoredRoomChange
  /// Who did it; 0 for an expiry.
  public var actorID: Int64
  /// Who it happened to; 0 when it happened to the whole room.
  public var subjectID: Int64
  /// The players told: the participants after the change, and a kicked player.
  public var recipients: [Int64]

  /// A change with the given fields.
  public init(
    room: RoomRecord, change: StoredRoomChange, actorID: Int64, subjectID: Int64,
    recipients: [Int64]
  ) {
    self.room = room
    self.change = change
    self.actorID = actorID
    self.subjectID = subjectID
    self.recipients = recipients
  }
}

/// What one write did to rooms: the rooms it found expired and the change asked for.
public struct RoomOutcome: Sendable {
  /// The room the caller acted on, after the write; nil when the write failed or only expired
  /// rooms.
  public var room: RoomRecord?
  /// Every change the write made, the expiries first.
  public var changes: [RoomChangeRecord]
  /// The player to send an invitation to, unless they blocked the inviter.
  public var invitedPlayerID: Int64?
  /// The match a start made.
  public var match: MatchRecord?
  /// Every player of the rooms changed, the inviter and the invited, to show them.
  public var players: [Int64: PlayerRecord]

  /// An outcome with the given parts.
  public init(
    room: RoomRecord? = nil, changes: [RoomChangeRecord] = [], invitedPlayerID: Int64? = nil,
    match: MatchRecord? = nil, players: [Int64: PlayerRecord] = [:]
  ) {
    self.room = room
    self.changes = changes
    self.invitedPlayerID = invitedPlayerID
    self.match = match
    self.players = players
  }
}

/// Game rooms and their participants, behind an interface of our own. Every method that writes
/// returns only after the write is committed.
///
/// Every method but `room(id:)` first expires the open rooms whose last activity is 30 minutes
/// or more before `now`, in its own transaction; those expiries are committed, with their events,
/// even when the method then fails. The events `notify` makes of the outcome (on failure, of the
/// expiries alone) are written in the same transaction.
public protocol RoomStore: Sendable {
  /// Opens a room of `mode` owned by `ownerID` with a code from `code`, drawn again while it
  /// clashes with an open room's. A player in an open room gets `ALREADY_IN_ROOM`.
  func createRoom(
    ownerID: Int64, mode: MatchMode, now: Int64, code: @escaping @Sendable () -> String,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome
  /// Adds `playerID` to the open room with `code` (already normalised). A code of no room, or of
  /// a started or closed room, gives `ROOM_CODE_INVALID`; of an expired one `ROOM_EXPIRED`; a
  /// player in an open room `ALREADY_IN_ROOM`; a room with every seat taken `ROOM_FULL`.
  func joinRoom(
    code: String, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome
  /// The room `id` if `playerID` is among its participants, else `ROOM_NOT_FOUND`; with `id` 0,
  /// the player's open room, else `NOT_IN_ROOM`.
  func room(
    id: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome
  /// Invites `inviteeID`, a friend of `ownerID`, to the owner's open room. Not in a room gives
  /// `NOT_IN_ROOM`; not the owner `NOT_ROOM_OWNER`; oneself `NOT_YOURSELF`; not a friend
  /// `NOT_FRIENDS`; a participant `ALREADY_ROOM_PARTICIPANT`. `invitedPlayerID` is nil when the
  /// invitee has blocked the owner.
  func inviteToRoom(
    ownerID: Int64, inviteeID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome
  /// Removes `playerID` from the open room of `ownerID`. Not in a room gives `NOT_IN_ROOM`; not
  /// the owner `NOT_ROOM_OWNER`; oneself `NOT_YOURSELF`; a player not in the room
  /// `NOT_ROOM_PARTICIPANT`.
  func kickFromRoom(
    ownerID: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome
  /// Takes `playerID` out of their open room, else `NOT_IN_ROOM`. An owner hands the room to the
  /// participant who joined earliest; the last one out closes it.
  func leaveRoom(
    playerID: Int64, now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome
  /// Starts the open room of `ownerID`: stores a confirmed match of its participants during
  /// `slot` and marks the room started, in one transaction. Not in a room gives `NOT_IN_ROOM`;
  /// not the owner `NOT_ROOM_OWNER`; a room without exactly the players its mode needs
  /// `ROOM_NOT_READY`; a participant booked during `slot` (`BookingRules.isBooked` over the
  /// participant's matches, read in the same transaction) `ROOM_PLAYER_BUSY`.
  func startMatch(
    ownerID: Int64, slot: TimeSlot, now: Int64,
    notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome
  /// Expires the open rooms idle for 30 minutes or more at `now`.
  func expireRooms(
    now: Int64, notify: @escaping @Sendable (RoomOutcome) -> OutgoingEvents
  ) async throws -> RoomOutcome
}

extension StoredRoomState {
  /// The room status the domain's rules read.
  public var status: RoomStatus {
    switch self {
    case .open: .open
    case .started: .started
    case .closed: .closed
    case .expired: .expired
    }
  }
}
