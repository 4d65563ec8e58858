public import BadmintonRPC
public import BadmintonStore

/// Checks session tokens against the store: the session must exist, be unexpired, and belong
/// to an existing player. Administrators are the players whose phone the operator named.
public struct SessionAuthenticator: Authenticator {
  private let store: any PlayerStore
  private let clock: any WallClock
  private let administratorPhones: Set<String>

  /// An authenticator over `store`.
  public init(store: any PlayerStore, clock: any WallClock, administratorPhones: Set<String>) {
    self.store = store
    self.clock = clock
    self.administratorPhones = administratorPhones
  }

  public func authenticate(bearerToken: String) async throws -> Principal? {
    guard let session = try await store.session(tokenHash: SessionToken.hash(bearerToken)),
      session.expiresAtUnixMs > clock.nowUnixMs(),
      let player = try await store.player(id: session.playerID)
    else { return nil }
    return Principal(userID: player.id, isAdministrator: administratorPhones.contains(player.phone))
  }
}
