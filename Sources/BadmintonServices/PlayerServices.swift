public import BadmintonRPC
public import BadmintonStore
import Logging

/// How the player services run.
public struct PlayerServicesConfiguration: Sendable {
  /// How long a login session lasts. Default 30 days.
  public var sessionLifetime: Duration
  /// scrypt's cost for new password digests.
  public var passwordCost: PasswordHasher.Cost
  /// Phones of the players who may review verifications.
  public var administratorPhones: Set<String>

  /// A configuration with the defaults for whatever is not given.
  public init(
    sessionLifetime: Duration = .seconds(30 * 24 * 3600),
    passwordCost: PasswordHasher.Cost = .standard,
    administratorPhones: Set<String> = []
  ) {
    self.sessionLifetime = sessionLifetime
    self.passwordCost = passwordCost
    self.administratorPhones = administratorPhones
  }
}

/// The accounts and players services over one store, with the authenticator that checks their
/// callers' sessions.
public struct PlayerServices: Sendable {
  /// The services to register.
  public let services: [any RPCService]
  /// The authenticator the server checks callers with.
  public let authenticator: any Authenticator
  /// The nearby index the services share.
  public let index: NearbyIndex

  /// Builds the services: removes expired sessions and rebuilds the nearby index from `store`.
  public static func start(
    store: any PlayerStore, configuration: PlayerServicesConfiguration,
    clock: any WallClock = SystemWallClock(), blocks: any BlockRelations = NoBlockRelations()
  ) async throws -> PlayerServices {
    _ = try await store.deleteSessions(expiredBefore: clock.nowUnixMs())
    let index = try await NearbyIndex.rebuilt(from: store)
    let hasher = PasswordHasher(cost: configuration.passwordCost)
    return PlayerServices(
      services: [
        AccountsService(
          store: store, hasher: hasher, clock: clock, sessionLifetime: configuration.sessionLifetime
        ),
        PlayersService(store: store, index: index, blocks: blocks, clock: clock),
      ],
      authenticator: SessionAuthenticator(
        store: store, clock: clock, administratorPhones: configuration.administratorPhones),
      index: index)
  }
}
