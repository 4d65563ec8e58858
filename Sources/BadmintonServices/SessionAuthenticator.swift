public import BadmintonProjections
public import BadmintonRPC
import BadmintonStore

/// Checks session tokens against the sessions in memory (`SessionBook`, a projection of the
/// store's feed): the session must exist and be unexpired by the clock. A session's player
/// always exists, as the store removes a player's sessions with them. Administrators are the
/// players whose ids the operator named. No call asks the store anything to authenticate.
public struct SessionAuthenticator: ImmediateAuthenticator {
  private let sessions: SessionBook
  private let clock: any WallClock
  private let administratorIDs: Set<Int64>

  /// An authenticator over `sessions`.
  public init(sessions: SessionBook, clock: any WallClock, administratorIDs: Set<Int64>) {
    self.sessions = sessions
    self.clock = clock
    self.administratorIDs = administratorIDs
  }

  public func authenticate(bearerToken: String) async throws -> Principal? {
    authenticateNow(bearerToken: bearerToken)
  }

  public func authenticateNow(bearerToken: String) -> Principal? {
    guard let session = sessions.session(tokenHash: SessionToken.hash(bearerToken)),
      session.expiresAtUnixMs > clock.nowUnixMs()
    else { return nil }
    return Principal(
      userID: session.playerID, isAdministrator: administratorIDs.contains(session.playerID))
  }
}
