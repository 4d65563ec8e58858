public import BadmintonRPC
public import BadmintonStore

/// Checks session tokens against the store: the session must exist, be unexpired, and belong
/// to an existing player. Administrators are the players whose ids the operator named.
public struct SessionAuthenticator: Authenticator {
  private let store: any PlayerStore
  private let clock: any WallClock
  private let administratorIDs: Set<Int64>

  /// An authenticator over `store`.
  public init(store: any PlayerStore, clock: any WallClock, administratorIDs: Set<Int64>) {
    self.store = store
    self.clock = clock
    self.administratorIDs = administratorIDs
  }

  public func authenticate(bearerToken: String) async throws -> Principal? {
    guard let session = try await store.session(tokenHash: SessionToken.hash(bearerToken)),
      session.expiresAtUnixMs > clock.nowUnixMs(),
      let player = try await store.player(id: session.playerID)
    else { return nil }
    return Principal(userID: player.id, isAdministrator: administratorIDs.contains(player.id))
  }
}
