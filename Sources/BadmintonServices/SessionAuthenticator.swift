import BadmintonDomain
public import BadmintonProjections
public import BadmintonRPC
import BadmintonStore

/// Checks session tokens against the sessions in memory (`SessionBook`, a projection of the
/// store's feed): the session must exist and be unexpired by the clock. A session's player
/// always exists, as the store removes a player's sessions with them. Administrators are the
/// players whose ids the operator named. A suspended player's sessions are refused with
/// `ACCOUNT_SUSPENDED` until the suspension ends or is lifted (`SuspensionBook`). No call asks
/// the store anything to authenticate.
public struct SessionAuthenticator: ImmediateAuthenticator {
  private let sessions: SessionBook
  private let suspensions: SuspensionBook?
  private let clock: any WallClock
  private let administratorIDs: Set<Int64>

  /// An authenticator over `sessions`, refusing the players `suspensions` holds suspended.
  public init(
    sessions: SessionBook, suspensions: SuspensionBook? = nil, clock: any WallClock,
    administratorIDs: Set<Int64>
  ) {
    self.sessions = sessions
    self.suspensions = suspensions
    self.clock = clock
    self.administratorIDs = administratorIDs
  }

  public func authenticate(bearerToken: String) async throws -> Principal? {
    try authenticateNow(bearerToken: bearerToken)
  }

  public func authenticateNow(bearerToken: String) throws -> Principal? {
    let now = clock.nowUnixMs()
    guard let session = sessions.session(tokenHash: SessionToken.hash(bearerToken)),
      session.expiresAtUnixMs > now
    else { return nil }
    if let until = suspensions?.suspendedUntil(session.playerID, nowUnixMs: now) {
      throw SuspensionRules.accountSuspended(untilUnixMs: until).rpcError
    }
    return Principal(
      userID: session.playerID, isAdministrator: administratorIDs.contains(session.playerID))
  }
}
