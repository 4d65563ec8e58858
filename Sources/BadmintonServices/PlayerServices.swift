public import BadmintonDomain
public import BadmintonProjections
public import BadmintonRPC
public import BadmintonStore
import Foundation
import Logging

/// How the player services run.
public struct PlayerServicesConfiguration: Sendable {
  /// How long a login session lasts. Default 30 days.
  public var sessionLifetime: Duration
  /// scrypt's cost for new password digests.
  public var passwordCost: PasswordHasher.Cost
  /// Ids of the players who may review verifications; each must be a registered player.
  public var administratorIDs: Set<Int64>
  /// How long events stay in a player's inbox. Default 30 days.
  public var eventRetention: Duration
  /// Events a live subscriber may fall behind by before its stream is ended.
  public var maximumBufferedEvents: Int
  /// The server's largest frame body (`WireConfiguration.maximumBodySize`): paged answers are
  /// filled up to a budget below it. At least `ResponseBudget.minimumBodySize`. Default: the
  /// wire's default.
  public var maximumResponseBytes: Int
  /// Password hashes that may run at once in the whole process. Default: one per core.
  public var passwordHashSlots: Int
  /// Password hashes that may wait for a slot; more are refused. Default: four per slot.
  public var passwordHashWaiting: Int
  /// How failed logins are slowed down per phone number.
  public var loginPolicyPerPhone: LoginThrottle.Policy
  /// How failed logins are slowed down per client address.
  public var loginPolicyPerAddress: LoginThrottle.Policy
  /// Registrations one address may make per hour; 0 for no limit. Default 10.
  public var registrationsPerAddressPerHour: Int
  /// Verification uploads one address may make per hour; 0 for no limit. Default 20.
  public var uploadsPerAddressPerHour: Int
  /// Bytes that the unfinished verification uploads of all players may hold on disk together,
  /// counted at the bytes received. Default 1 GiB.
  public var openUploadBytes: Int64
  /// Idempotency keys one player may hold at once (those of the last 24 hours). Default
  /// `WriteKeyRules.maximumKeysPerPlayer`.
  public var writeKeysPerPlayer: Int
  /// Bytes of recent keyed answers each instance holds, so that a repeat on the same instance
  /// needs no transaction; 0 for none. Default 16 MiB.
  public var recentWriteAnswerBytes: Int

  /// A configuration with the defaults for whatever is not given.
  public init(
    sessionLifetime: Duration = .seconds(30 * 24 * 3600),
    passwordCost: PasswordHasher.Cost = .standard,
    administratorIDs: Set<Int64> = [],
    eventRetention: Duration = .seconds(30 * 24 * 3600),
    maximumBufferedEvents: Int = 256,
    passwordHashSlots: Int? = nil,
    passwordHashWaiting: Int? = nil,
    loginPolicyPerPhone: LoginThrottle.Policy = .phone,
    loginPolicyPerAddress: LoginThrottle.Policy = .address,
    registrationsPerAddressPerHour: Int = 10,
    uploadsPerAddressPerHour: Int = 20,
    openUploadBytes: Int64 = 1 << 30,
    maximumResponseBytes: Int = WireConfiguration().maximumBodySize,
    writeKeysPerPlayer: Int = WriteKeyRules.maximumKeysPerPlayer,
    recentWriteAnswerBytes: Int = 16 << 20
  ) {
    self.recentWriteAnswerBytes = max(0, recentWriteAnswerBytes)
    self.writeKeysPerPlayer = max(1, writeKeysPerPlayer)
    let slots = max(1, passwordHashSlots ?? ProcessInfo.processInfo.activeProcessorCount)
    self.passwordHashSlots = slots
    self.passwordHashWaiting = passwordHashWaiting ?? 4 * slots
    self.loginPolicyPerPhone = loginPolicyPerPhone
    self.loginPolicyPerAddress = loginPolicyPerAddress
    self.registrationsPerAddressPerHour = registrationsPerAddressPerHour
    self.uploadsPerAddressPerHour = uploadsPerAddressPerHour
    self.openUploadBytes = openUploadBytes
    self.sessionLifetime = sessionLifetime
    self.passwordCost = passwordCost
    self.administratorIDs = administratorIDs
    self.eventRetention = eventRetention
    self.maximumBufferedEvents = maximumBufferedEvents
    self.maximumResponseBytes = maximumResponseBytes
  }
}

/// The accounts, players, events, matching, friends, rooms, messages, schedule and surveys
/// services over one store, with the authenticator that checks
/// their callers' sessions and the housekeeping that prunes what expires.
public struct PlayerServices: Sendable {
  /// The services to register.
  public let services: [any RPCService]
  /// The authenticator the server checks callers with.
  public let authenticator: any Authenticator
  /// The nearby index the services share.
  public let index: NearbyIndex
  /// The players, sessions, nearby index and blocks in memory, following the store's feed.
  public let projections: PlayerProjections
  /// Publishes events to players' inboxes and live subscribers.
  public let events: EventPublisher
  /// The active availability that searches run on.
  public let board: MatchBoard
  /// Removes expired sessions and events while the server runs.
  public let housekeeping: Housekeeping
  /// What the operator console does.
  public let administration: Administration

  /// Builds the services: checks that every administrator is a registered player, builds the
  /// in-memory projections from `store` and subscribes them to its feed, rebuilds the match
  /// index, then removes expired sessions and adds the recurring days that became due.
  public static func start(
    store: any ServerStore, configuration: PlayerServicesConfiguration,
    clock: any WallClock = SystemWallClock()
  ) async throws -> PlayerServices {
    guard configuration.maximumResponseBytes >= ResponseBudget.minimumBodySize else {
      throw PlayerServicesError.responseLimitTooSmall(configuration.maximumResponseBytes)
    }
    let budget = ResponseBudget(maximumBodySize: configuration.maximumResponseBytes)
    for id in configuration.administratorIDs.sorted() {
      guard try await store.player(id: id) != nil else {
        throw PlayerServicesError.unknownAdministrator(id)
      }
    }
    // The projections and the board are built from the store at the same time, on two readers.
    async let startedProjections = PlayerProjections.started(
      from: store, nowUnixMs: clock.nowUnixMs())
    async let rebuiltBoard = MatchBoard.rebuilt(from: store, nowUnixMs: clock.nowUnixMs())
    let projections = try await startedProjections
    let board = try await rebuiltBoard
    let index = projections.index
    let blocks = projections.blocks
    let hasher = PasswordHasher(
      cost: configuration.passwordCost,
      queue: PasswordHashingQueue(
        slots: configuration.passwordHashSlots,
        maximumWaiting: configuration.passwordHashWaiting))
    try await hasher.loadStoredCosts(from: store)
    let hour: Int64 = 3600 * 1000
    let hub = EventHub(feed: store.feed, maximumBuffered: configuration.maximumBufferedEvents)
    // A suspended player's live streams end as the suspension is handed over, on every
    // instance.
    let suspensions = projections.suspensions
    store.feed.subscribe { [hub] committed in
      for case .suspension(let playerID, let suspension?) in committed.changes
      where SuspensionRules.holds(
        untilUnixMs: suspension.untilUnixMs, nowUnixMs: clock.nowUnixMs())
      {
        hub.end(
          playerID: playerID,
          throwing: SuspensionRules.accountSuspended(untilUnixMs: suspension.untilUnixMs).rpcError)
      }
    }
    // Everything that follows the feed is subscribed: on a shared database, the other
    // instances' commits since the store opened flow in from here.
    store.startFeed()
    let events = EventPublisher(store: store, clock: clock)
    let matching = MatchingService(
      store: store, board: board, players: projections.players, blocks: blocks, clock: clock,
      events: events, budget: budget, suspensions: projections.suspensions)
    let rooms = RoomsService(
      store: store, clock: clock, events: events, board: board, blocks: blocks)
    let surveys = SurveysService(store: store, clock: clock, events: events, budget: budget)
    let housekeeping = Housekeeping(
      store: store, clock: clock, eventRetention: configuration.eventRetention, matching: matching,
      rooms: rooms, surveys: surveys)
    try await housekeeping.sweep()
    // Login and the operator console's sign-in count attempts together.
    let loginThrottle = LoginThrottle(
      phone: configuration.loginPolicyPerPhone, address: configuration.loginPolicyPerAddress,
      clock: clock)
    return PlayerServices(
      services: [
        AccountsService(
          store: store, hasher: hasher, clock: clock,
          sessionLifetime: configuration.sessionLifetime,
          loginThrottle: loginThrottle,
          registrations: AddressRateLimiter(
            limit: configuration.registrationsPerAddressPerHour, periodMs: hour,
            reason: "REGISTRATION_RATE_LIMITED",
            action: LocalizedText(en: "registrations", zhCN: "注册"), clock: clock),
          suspensions: suspensions),
        PlayersService(
          store: store, index: index, players: projections.players, blocks: blocks, clock: clock,
          events: events,
          uploads: AddressRateLimiter(
            limit: configuration.uploadsPerAddressPerHour, periodMs: hour,
            reason: "UPLOAD_RATE_LIMITED",
            action: LocalizedText(en: "uploads", zhCN: "上传"), clock: clock),
          openUploadBytes: configuration.openUploadBytes, suspensions: suspensions),
        EventsService(store: store, hub: hub, suspensions: suspensions, clock: clock),
        matching,
        FriendsService(store: store, clock: clock, events: events, budget: budget),
        rooms,
        MessagesService(store: store, clock: clock, budget: budget),
        ScheduleService(store: store, clock: clock, budget: budget),
        surveys,
        // Last: it wraps the keyed writes the services above registered.
        KeyedWrites(
          store: store, clock: clock, limit: configuration.writeKeysPerPlayer,
          recentAnswerBytes: configuration.recentWriteAnswerBytes),
      ],
      authenticator: SessionAuthenticator(
        sessions: projections.sessions, suspensions: suspensions, clock: clock,
        administratorIDs: configuration.administratorIDs),
      index: index, projections: projections, events: events, board: board,
      housekeeping: housekeeping,
      administration: Administration(
        store: store, hasher: hasher, loginThrottle: loginThrottle, clock: clock,
        suspensions: suspensions, administratorIDs: configuration.administratorIDs))
  }
}

/// Why the player services could not start.
public enum PlayerServicesError: Error, Hashable, CustomStringConvertible {
  /// An administrator id names no registered player: naming an id before its account exists
  /// would make whoever registers next an administrator.
  case unknownAdministrator(Int64)
  /// The largest response is too small for one page of the largest items.
  case responseLimitTooSmall(Int)

  public var description: String {
    switch self {
    case .unknownAdministrator(let id):
      "administrator \(id) is not a registered player; register the account first, then name its id"
    case .responseLimitTooSmall(let bytes):
      "a response limit of \(bytes) bytes is below \(ResponseBudget.minimumBodySize)"
    }
  }
}
