/// A player's suspension as stored: an administrator stopped them until `untilUnixMs`.
public struct SuspensionRecord: Hashable, Sendable {
  public var playerID: Int64
  /// When the suspension ends, in milliseconds since 1970-01-01 UTC.
  public var untilUnixMs: Int64
  /// Why, as the administrator wrote it.
  public var reason: String
  /// The administrator who suspended the player.
  public var administratorID: Int64
  /// When they did.
  public var atUnixMs: Int64

  /// A record with the given fields.
  public init(
    playerID: Int64, untilUnixMs: Int64, reason: String, administratorID: Int64, atUnixMs: Int64
  ) {
    self.playerID = playerID
    self.untilUnixMs = untilUnixMs
    self.reason = reason
    self.administratorID = administratorID
    self.atUnixMs = atUnixMs
  }
}

/// What an administrator did, as the audit log names it. A name this version does not know (one
/// a newer server wrote to a shared database) is kept as it is.
public struct AuditAction: RawRepresentable, Hashable, Sendable {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  public static let suspend = AuditAction(rawValue: "suspend")
  public static let liftSuspension = AuditAction(rawValue: "lift_suspension")
  public static let endSessions = AuditAction(rawValue: "end_sessions")
  public static let approveVerification = AuditAction(rawValue: "approve_verification")
  public static let rejectVerification = AuditAction(rawValue: "reject_verification")
}

/// One entry of the audit log: who did what, to whom, when, and their note.
public struct AuditRecord: Hashable, Sendable {
  /// Grows with every entry.
  public var id: Int64
  public var atUnixMs: Int64
  public var administratorID: Int64
  public var action: AuditAction
  /// The player acted on.
  public var playerID: Int64?
  /// The administrator's note or reason, and what the action set (a suspension's end).
  public var note: String

  /// A record with the given fields.
  public init(
    id: Int64, atUnixMs: Int64, administratorID: Int64, action: AuditAction, playerID: Int64?,
    note: String
  ) {
    self.id = id
    self.atUnixMs = atUnixMs
    self.administratorID = administratorID
    self.action = action
    self.playerID = playerID
    self.note = note
  }
}

/// How many players one blocks and is blocked by, and their sessions unexpired now.
public struct PlayerActivityCounts: Hashable, Sendable {
  public var blocking: Int
  public var blockedBy: Int
  public var openSessions: Int

  /// Counts with the given values.
  public init(blocking: Int, blockedBy: Int, openSessions: Int) {
    self.blocking = blocking
    self.blockedBy = blockedBy
    self.openSessions = openSessions
  }
}

/// What administrators do to players, and the audit log that records it. Every action is
/// written together with its audit entry, in one transaction (a verification's review too,
/// `PlayerStore.reviewVerification`).
public protocol AdministrationStore: Sendable {
  /// Hands every stored suspension to `apply` as the change the feed would give for it, all
  /// from one read (ended ones too: whether one holds is the clock's to say).
  func replaySuspensions(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws
  /// The player's suspension, ended or not.
  func suspension(playerID: Int64) async throws -> SuspensionRecord?
  /// Suspends a player (replacing a suspension they have) and records it in the audit log;
  /// `PLAYER_NOT_FOUND` for an unknown player.
  func suspend(_ suspension: SuspensionRecord) async throws
  /// Removes the player's suspension and records it with `note`; `PLAYER_NOT_SUSPENDED` when
  /// they have none that holds at `atUnixMs`.
  func liftSuspension(playerID: Int64, note: String, administratorID: Int64, atUnixMs: Int64)
    async throws
  /// Ends every session of the player and records it; returns how many ended.
  /// `PLAYER_NOT_FOUND` for an unknown player.
  func endSessions(playerID: Int64, administratorID: Int64, atUnixMs: Int64) async throws -> Int
  /// Removes the suspensions that ended by `unixMs` (the audit log keeps them); returns how
  /// many.
  func deleteSuspensions(endedBy unixMs: Int64) async throws -> Int
  /// The audit log, newest first: entries with an id below `beforeID` (all when nil), at most
  /// `limit`.
  func auditLog(beforeID: Int64?, limit: Int) async throws -> [AuditRecord]
  /// Players whose id or phone is `query`, or whose nickname starts with it (ASCII letters in
  /// either case), by id, at most `limit`.
  func findPlayers(matching query: String, limit: Int) async throws -> [PlayerRecord]
  /// How many players `playerID` blocks and is blocked by, and their sessions unexpired at
  /// `nowUnixMs`.
  func activityCounts(playerID: Int64, nowUnixMs: Int64) async throws -> PlayerActivityCounts
}
