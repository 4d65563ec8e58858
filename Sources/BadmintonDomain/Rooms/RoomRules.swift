/// Where a room stands.
public enum RoomStatus: Hashable, Sendable {
  /// Taking players.
  case open
  /// Its owner started the match.
  case started
  /// Its last participant left.
  case closed
  /// 30 minutes passed without activity.
  case expired
}

/// What a join depends on, read by the store in the join's transaction.
public struct RoomJoin: Hashable, Sendable {
  /// Where the room stands.
  public var status: RoomStatus
  /// The room's mode.
  public var mode: MatchMode
  /// The room's last activity, in unix milliseconds.
  public var lastActivityAtUnixMs: Int64
  /// How many players the room holds.
  public var participantCount: Int
  /// Whether the joiner is in an open room already, this one or another.
  public var joinerInOpenRoom: Bool
  /// Whether someone in the room has blocked the joiner.
  public var blockedByParticipant: Bool
  /// Whether the joiner has blocked someone in the room.
  public var blockedParticipant: Bool

  /// A join with the given fields.
  public init(
    status: RoomStatus, mode: MatchMode, lastActivityAtUnixMs: Int64, participantCount: Int,
    joinerInOpenRoom: Bool, blockedByParticipant: Bool, blockedParticipant: Bool
  ) {
    self.status = status
    self.mode = mode
    self.lastActivityAtUnixMs = lastActivityAtUnixMs
    self.participantCount = participantCount
    self.joinerInOpenRoom = joinerInOpenRoom
    self.blockedByParticipant = blockedByParticipant
    self.blockedParticipant = blockedParticipant
  }
}

/// The rules of game rooms: how many players a mode needs, when a room is ready, when it expires
/// and which time a started match takes.
public enum RoomRules {
  /// How long a room stays open without activity: 30 minutes.
  public static let idleLimitMs: Int64 = 30 * 60 * 1000
  /// How long a match started without a chosen time lasts: 1 hour from now.
  public static let defaultMatchDurationMs: Int64 = 3_600_000
  /// How far in the past a chosen start may lie, for clocks that differ a little: 1 minute.
  public static let startToleranceMs: Int64 = 60_000

  /// The players a room of `mode` holds when full: 2 for singles, 4 for doubles.
  public static func requiredPlayers(for mode: MatchMode) -> Int {
    switch mode {
    case .singles: 2
    case .doubles: 4
    }
  }

  /// Whether a room of `mode` with `participantCount` players can start: exactly the players
  /// the mode needs.
  public static func isReady(mode: MatchMode, participantCount: Int) -> Bool {
    participantCount == requiredPlayers(for: mode)
  }

  /// When a room whose last activity was at `lastActivityAtUnixMs` expires.
  public static func expiresAt(lastActivityAtUnixMs: Int64) -> Int64 {
    lastActivityAtUnixMs + idleLimitMs
  }

  /// Whether a room whose last activity was at `lastActivityAtUnixMs` has expired at
  /// `nowUnixMs`: 30 minutes or more have passed.
  public static func isExpired(lastActivityAtUnixMs: Int64, nowUnixMs: Int64) -> Bool {
    nowUnixMs >= expiresAt(lastActivityAtUnixMs: lastActivityAtUnixMs)
  }

  /// Checks a join at `nowUnixMs`, in this order: the room has started or closed
  /// (`ROOM_CODE_INVALID`, as for an unknown code); it has expired, also at this very instant
  /// (`ROOM_EXPIRED`); the joiner is in an open room (`ALREADY_IN_ROOM`); someone in it has
  /// blocked the joiner (`ROOM_CODE_INVALID` again) or the joiner has blocked someone in it
  /// (`PLAYER_BLOCKED`, see `BlockRules.checkJoin`); it holds the players its mode needs
  /// (`ROOM_FULL`).
  public static func checkJoin(_ join: RoomJoin, nowUnixMs: Int64) throws(DomainError) {
    switch join.status {
    case .started, .closed: throw RoomErrors.codeInvalid
    case .expired: throw RoomErrors.expired
    case .open:
      guard
        !isExpired(lastActivityAtUnixMs: join.lastActivityAtUnixMs, nowUnixMs: nowUnixMs)
      else { throw RoomErrors.expired }
    }
    guard !join.joinerInOpenRoom else { throw RoomErrors.alreadyInRoom }
    try BlockRules.checkJoin(
      blockedByMember: join.blockedByParticipant, blockedMember: join.blockedParticipant,
      unknown: RoomErrors.codeInvalid)
    guard join.participantCount < requiredPlayers(for: join.mode) else { throw RoomErrors.full }
  }

  /// Checks that a player may open a room: they are in no open room (`ALREADY_IN_ROOM`).
  public static func checkCreate(ownerInOpenRoom: Bool) throws(DomainError) {
    guard !ownerInOpenRoom else { throw RoomErrors.alreadyInRoom }
  }

  /// Checks that `callerID` may act as the owner of the open room owned by `ownerID`
  /// (`NOT_ROOM_OWNER`).
  public static func checkOwner(callerID: Int64, ownerID: Int64) throws(DomainError) {
    guard callerID == ownerID else { throw RoomErrors.notOwner }
  }

  /// What becomes of the owner's invitation of `inviteeID` to a room of `participantIDs`: the
  /// invitee must be another player (`NOT_YOURSELF`), a friend (`NOT_FRIENDS`) and not in the
  /// room (`ALREADY_ROOM_PARTICIPANT`); blocks then decide as for any contact
  /// (`BlockRules.contact`): an invitee who blocked the owner never gets it.
  public static func invite(
    ownerID: Int64, inviteeID: Int64, participantIDs: [Int64], areFriends: Bool,
    ownerBlockedInvitee: Bool, inviteeBlockedOwner: Bool
  ) throws(DomainError) -> Delivery {
    guard inviteeID != ownerID else { throw SocialErrors.notYourself }
    guard areFriends else { throw SocialErrors.notFriends }
    guard !participantIDs.contains(inviteeID) else { throw RoomErrors.alreadyParticipant }
    return try BlockRules.contact(
      senderBlockedRecipient: ownerBlockedInvitee, recipientBlockedSender: inviteeBlockedOwner)
  }

  /// Checks that the owner `ownerID` may kick `playerID` from a room of `participantIDs`: another
  /// player (`NOT_YOURSELF`) in the room (`NOT_ROOM_PARTICIPANT`).
  public static func checkKick(ownerID: Int64, playerID: Int64, participantIDs: [Int64])
    throws(DomainError)
  {
    guard playerID != ownerID else { throw SocialErrors.notYourself }
    guard participantIDs.contains(playerID) else { throw RoomErrors.notParticipant }
  }

  /// Checks that a room of `mode` may start a match over `slot`, its players' matches being
  /// `matches` (one list per player): the room is ready (`ROOM_NOT_READY`) and no player is
  /// booked during the slot (`ROOM_PLAYER_BUSY`, see `BookingRules.isBooked`).
  public static func checkStart(mode: MatchMode, slot: TimeSlot, matches: [[BookedMatch]])
    throws(DomainError)
  {
    guard isReady(mode: mode, participantCount: matches.count) else { throw RoomErrors.notReady }
    guard !matches.contains(where: { BookingRules.isBooked($0, during: slot) }) else {
      throw RoomErrors.playerBusy
    }
  }

  /// How far ahead a started match may begin: 14 days, as far as availability may be posted.
  public static let maximumLeadMs: Int64 = 14 * 24 * 3_600_000

  /// The time of a match started at `nowUnixMs`: `requested`, which must start no earlier than a
  /// minute ago and at most 14 days ahead and last 1 to 8 hours, or from now for one hour when
  /// nothing was requested.
  public static func matchSlot(requested: TimeSlot?, nowUnixMs: Int64) throws(DomainError)
    -> TimeSlot
  {
    guard let requested else {
      return TimeSlot(startUnixMs: nowUnixMs, endUnixMs: nowUnixMs + defaultMatchDurationMs)
    }
    // The start is checked first, so that the duration below cannot overflow whatever the
    // client sent.
    guard requested.startUnixMs >= nowUnixMs - startToleranceMs else {
      throw .invalidField(
        "slot.start_unix_ms", "TIME_SLOT_INVALID",
        en: "The start time must not be in the past.", zhCN: "开始时间不能早于现在")
    }
    guard requested.startUnixMs <= nowUnixMs + maximumLeadMs else {
      throw .invalidField(
        "slot.start_unix_ms", "TIME_SLOT_INVALID",
        en: "The match must start within 14 days.", zhCN: "比赛须在14天内开始")
    }
    let hours =
      TimeSlotRules.minimumDurationSeconds * 1000...TimeSlotRules.maximumDurationSeconds
      * 1000
    let (duration, overflow) = requested.endUnixMs.subtractingReportingOverflow(
      requested.startUnixMs)
    guard !overflow, hours.contains(duration) else {
      throw TimeSlotRules.durationInvalid("slot.end_unix_ms")
    }
    return requested
  }
}
