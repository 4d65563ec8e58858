public import BadmintonDomain
public import BadmintonProjections
import BadmintonRPC
public import BadmintonStore

/// One player as an administrator sees them: the profile, what they did lately, and whether
/// they are suspended.
public struct PlayerOverview: Sendable {
  public var player: PlayerRecord
  /// Their latest matches that have ended or were cancelled, latest first.
  public var recentMatches: [MatchRecord]
  public var counts: PlayerActivityCounts
  /// Their suspension, when it holds now.
  public var suspension: SuspensionRecord?
}

/// What the operator console does, over the same store, password digests and login throttle as
/// the RPC API: administrators sign in, find players, end their sessions, suspend them and lift
/// suspensions; every action is kept in the audit log. Suspension takes effect through the
/// change feed, on every instance: the authenticator refuses the player's sessions and Login
/// refuses them, their live streams end, and searches leave them out; an administrator named
/// by `--admin-id` while suspended cannot sign in to the console or keep a console session
/// (`mayAdminister`). No administrator acts on their own account.
public struct Administration: Sendable {
  /// Players one search lists at most.
  public static let maximumResults = 50
  /// The longest search text.
  public static let maximumQueryLength = 64
  /// Matches one overview lists.
  public static let recentMatchCount = 10

  private let store: any ServerStore
  private let hasher: PasswordHasher
  private let loginThrottle: LoginThrottle?
  private let clock: any WallClock
  private let suspensions: SuspensionBook
  /// The players who may sign in.
  public let administratorIDs: Set<Int64>

  /// The console's operations over `store`; sign-in checks passwords with `hasher` and counts
  /// attempts in `loginThrottle`, the ones Login uses.
  public init(
    store: any ServerStore, hasher: PasswordHasher, loginThrottle: LoginThrottle?,
    clock: any WallClock, suspensions: SuspensionBook, administratorIDs: Set<Int64>
  ) {
    self.store = store
    self.hasher = hasher
    self.loginThrottle = loginThrottle
    self.clock = clock
    self.suspensions = suspensions
    self.administratorIDs = administratorIDs
  }

  /// The current time of the services' clock.
  public func nowUnixMs() -> Int64 { clock.nowUnixMs() }

  /// When the player's suspension ends, if one holds at `nowUnixMs` (from memory).
  public func suspendedUntil(_ playerID: Int64, nowUnixMs: Int64) -> Int64? {
    suspensions.suspendedUntil(playerID, nowUnixMs: nowUnixMs)
  }

  /// Whether the player may use the console now: they are an administrator and no suspension
  /// of theirs holds (from memory, so a suspension made on another instance counts as soon as
  /// the change feed brings it).
  public func mayAdminister(_ playerID: Int64) -> Bool {
    administratorIDs.contains(playerID)
      && suspensions.suspendedUntil(playerID, nowUnixMs: clock.nowUnixMs()) == nil
  }

  /// The administrator whose phone and password these are; nil for any other phone and
  /// password (unknown phone, wrong password, a player who is not an administrator, an
  /// administrator who is suspended), after the same password work, each counted as a failed
  /// attempt. Throws `TOO_MANY_LOGIN_ATTEMPTS` while the phone or `address` must wait: console
  /// and Login attempts count together.
  public func signIn(phone: String, password: String, address: String) async throws
    -> PlayerRecord?
  {
    guard PlayerRules.isWithinPasswordLimits(password) else { return nil }
    // Keyed as Login keys it (an IPv6 /64, an IPv4-mapped address as IPv4), so the two count
    // together for one client.
    let address = clientAddressKey(address)
    try loginThrottle?.admit(phone: phone, address: address)
    let player: PlayerRecord
    do {
      player = try await AccountsService.checkedPlayer(
        phone: phone, password: password, store: store, hasher: hasher)
    } catch let error as DomainError where error.reason == AccountsService.invalidCredentials.reason
    {
      return nil
    } catch {
      loginThrottle?.notChecked(phone: phone, address: address)
      throw error
    }
    // A suspended administrator is answered as a wrong password is (Login tells the owner of
    // the password why; the console tells no one), and the attempt counts as a failure.
    guard mayAdminister(player.id) else { return nil }
    loginThrottle?.succeeded(phone: phone, address: address)
    return player
  }

  /// Players whose id or phone is `query` or whose nickname starts with it, by id; none for an
  /// empty query. `QUERY_TOO_LONG` past `maximumQueryLength` characters.
  public func findPlayers(_ query: String) async throws -> [PlayerRecord] {
    guard query.count <= Self.maximumQueryLength, query.utf8.count <= 4 * Self.maximumQueryLength
    else {
      throw DomainError.invalidField(
        "q", "QUERY_TOO_LONG", en: "Search with at most 64 characters.",
        zhCN: "搜索内容最多 64 个字符。")
    }
    guard !query.isEmpty, !query.unicodeScalars.contains(where: { $0.value == 0 }) else {
      return []
    }
    return try await store.findPlayers(matching: query, limit: Self.maximumResults)
  }

  /// The player with `id` as an administrator sees them; nil for an unknown player.
  public func overview(of id: Int64) async throws -> PlayerOverview? {
    guard let player = try await store.player(id: id) else { return nil }
    let now = clock.nowUnixMs()
    async let matches = store.matches(
      playerID: id, past: true, now: now, after: nil, limit: Self.recentMatchCount)
    async let counts = store.activityCounts(playerID: id, nowUnixMs: now)
    let suspension = try await store.suspension(playerID: id).flatMap {
      SuspensionRules.holds(untilUnixMs: $0.untilUnixMs, nowUnixMs: now) ? $0 : nil
    }
    return PlayerOverview(
      player: player, recentMatches: try await matches, counts: try await counts,
      suspension: suspension)
  }

  /// Ends every session of the player; returns how many ended. `ADMINISTRATOR_ACTS_ON_SELF`
  /// for the administrator's own.
  public func endSessions(of playerID: Int64, by administratorID: Int64) async throws -> Int {
    guard playerID != administratorID else { throw SuspensionRules.administratorActsOnSelf }
    return try await store.endSessions(
      playerID: playerID, administratorID: administratorID, atUnixMs: clock.nowUnixMs())
  }

  /// Suspends the player until `untilUnixMs` for `reason` (`SuspensionRules.validate`) and
  /// takes them out of their open room; an administrator cannot be suspended
  /// (`ADMINISTRATOR_NOT_SUSPENDABLE`), so that the console always has someone to lift a
  /// suspension, nor suspend themself (`ADMINISTRATOR_ACTS_ON_SELF`, checked first).
  public func suspend(
    _ playerID: Int64, untilUnixMs: Int64, reason: String, by administratorID: Int64
  ) async throws {
    guard playerID != administratorID else { throw SuspensionRules.administratorActsOnSelf }
    let now = clock.nowUnixMs()
    let reason = try SuspensionRules.validate(
      reason: reason, untilUnixMs: untilUnixMs, nowUnixMs: now)
    guard !administratorIDs.contains(playerID) else { throw Self.administratorNotSuspendable }
    try await store.suspend(
      SuspensionRecord(
        playerID: playerID, untilUnixMs: untilUnixMs, reason: reason,
        administratorID: administratorID, atUnixMs: now))
    // Out of the open room they are in, as if they left it: the others are told, and a match
    // started from the room cannot include them.
    do {
      _ = try await store.leaveRoom(playerID: playerID, now: now) { RoomsService.events(of: $0) }
    } catch let error as DomainError where error.reason == RoomErrors.notInRoom.reason {}
  }

  /// Lifts the player's suspension, keeping `note` in the audit log. An administrator cannot
  /// lift their own (`ADMINISTRATOR_ACTS_ON_SELF`): one named by `--admin-id` after they were
  /// suspended waits for the end or for another administrator.
  public func liftSuspension(of playerID: Int64, note: String, by administratorID: Int64)
    async throws
  {
    guard playerID != administratorID else { throw SuspensionRules.administratorActsOnSelf }
    try SuspensionRules.validateNote(note)
    try await store.liftSuspension(
      playerID: playerID, note: note, administratorID: administratorID,
      atUnixMs: clock.nowUnixMs())
  }

  /// The audit log, newest first, below `beforeID`.
  public func auditLog(beforeID: Int64?, limit: Int) async throws -> [AuditRecord] {
    try await store.auditLog(beforeID: beforeID, limit: min(max(limit, 1), 200))
  }

  /// The players with `ids`, by id.
  public func players(ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    try await store.players(ids: ids)
  }

  /// Pending verification requests, oldest first, at most `limit`.
  public func pendingVerifications(limit: Int) async throws -> [VerificationRecord] {
    Array(try await store.pendingVerifications().prefix(max(0, limit)))
  }

  /// The verification request `id`, whatever its state.
  public func verification(id: Int64) async throws -> VerificationRecord? {
    try await store.verification(id: id)
  }

  /// The whole document of request `id` (at most `EvidenceDocument.maximumBytes`).
  public func verificationDocument(id: Int64) async throws -> [UInt8]? {
    try await store.verificationDocument(id: id)
  }

  /// Approves or rejects request `id` as ReviewVerification does: the player's verified level
  /// changes at once, they get the `verification_reviewed` event, and the audit log has it.
  @discardableResult
  public func reviewVerification(id: Int64, approve: Bool, note: String, by administratorID: Int64)
    async throws -> VerificationRecord
  {
    try await PlayersService.review(
      id, approve: approve, note: note, reviewerID: administratorID, store: store, clock: clock)
  }

  /// An administrator named for suspension.
  public static let administratorNotSuspendable = DomainError(
    .failedPrecondition, "ADMINISTRATOR_NOT_SUSPENDABLE",
    en: "Administrators cannot be suspended; remove their --admin-id first.",
    zhCN: "管理员不能被停用；请先移除其 --admin-id。")
}
