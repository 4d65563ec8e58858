import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Dispatch
import Logging
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

@testable import BadmintonProjections

/// The player services on a store, called in-process as the server calls them.
private struct LocalServices {
  let store: any ServerStore
  let clock: ManualClock
  let started: PlayerServices

  /// The services on `store`, whose sessions last `sessionLifetime`.
  static func start(
    on store: any ServerStore, sessionLifetime: Duration = .seconds(30 * 24 * 3600)
  ) async throws -> LocalServices {
    let clock = ManualClock()
    let started = try await PlayerServices.start(
      store: store,
      configuration: PlayerServicesConfiguration(
        sessionLifetime: sessionLifetime, passwordCost: .testing,
        loginPolicyPerPhone: .unlimited, loginPolicyPerAddress: .unlimited,
        registrationsPerAddressPerHour: 0, uploadsPerAddressPerHour: 0),
      clock: clock)
    return LocalServices(store: store, clock: clock, started: started)
  }

  func service<Service>(_ type: Service.Type) -> Service {
    started.services.lazy.compactMap { $0 as? Service }.first!
  }

  var accounts: AccountsService { service(AccountsService.self) }
  var players: PlayersService { service(PlayersService.self) }
  var friends: FriendsService { service(FriendsService.self) }
  var projections: PlayerProjections { started.projections }

  /// A call without a session.
  var anonymous: ServerContext { context(from: "192.0.2.1") }

  /// A call showing `token`, authenticated as the server does it; nil when the token is refused.
  func call(_ token: String) async throws -> ServerContext? {
    guard let principal = try await started.authenticator.authenticate(bearerToken: token) else {
      return nil
    }
    return ServerContext(
      callID: 1, method: "/test",
      metadata: [Metadata(key: "authorization", value: "Bearer \(token)")],
      deadline: nil, peer: "[IPv4]192.0.2.1:40000", logger: Logger(label: "test"),
      principal: principal)
  }

  /// Registers `phone` and logs in; returns the id and the token.
  func player(_ phone: String, nickname: String = "Player") async throws -> (
    id: Int64, token: String
  ) {
    let id = try await accounts.register(
      RegisterRequest(
        phone: phone, nickname: nickname, password: "correct horse", selfLevel: 4),
      context: anonymous
    ).userID
    let login = try await accounts.login(
      LoginRequest(phone: phone, password: "correct horse"), context: anonymous)
    return (id, login.token)
  }
}

/// Counts the jobs a task enqueues on it: a task that never suspends enqueues one.
private final class CountingExecutor: TaskExecutor, @unchecked Sendable {
  let jobs = Atomic(0)
  private let queue = DispatchQueue(label: "counting executor")

  func enqueue(_ job: consuming ExecutorJob) {
    jobs.wrappingAdd(1, ordering: .relaxed)
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}

@Suite("Sessions, profiles, nearby and blocks are served from memory")
struct ProjectionTests {
  @Test(
    "a logout is refused on the very next call: the session is gone before Logout returns",
    arguments: StoreKind.allCases)
  func logout_refusedAtOnce(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let local = try await LocalServices.start(on: store)
      let me = try await local.player("+8613800001001")
      let call = try #require(try await local.call(me.token))
      #expect(local.projections.sessions.count == 1)
      _ = try await local.accounts.logout(LogoutRequest(), context: call)
      #expect(local.projections.sessions.count == 0)
      #expect(try await local.call(me.token) == nil)
    }
  }

  @Test(
    "an expired session is refused by the clock, before housekeeping removes it",
    arguments: StoreKind.allCases)
  func expiredSession_refusedByClock(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let local = try await LocalServices.start(on: store, sessionLifetime: .seconds(3600))
      let me = try await local.player("+8613800001002")
      local.clock.advance(by: 3600 * 1000 - 1)
      #expect(try await local.call(me.token) != nil)
      local.clock.advance(by: 1)
      #expect(try await local.call(me.token) == nil)
      // Still in memory until the sweep deletes it; the deletion reaches the book by the feed.
      #expect(local.projections.sessions.count == 1)
      local.clock.advance(by: 1)
      try await local.started.housekeeping.sweep()
      #expect(local.projections.sessions.count == 0)
    }
  }

  @Test(
    "a session stored before the server starts authenticates; an expired one does not",
    arguments: StoreKind.allCases)
  func restart_replaysSessions(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let local = try await LocalServices.start(on: store, sessionLifetime: .seconds(3600))
      let early = try await local.player("+8613800001003")
      local.clock.advance(by: 1800 * 1000)
      let late = try await local.player("+8613800001004")
      local.clock.advance(by: 1800 * 1000)
      let restarted = try await PlayerServices.start(
        store: local.store,
        configuration: PlayerServicesConfiguration(passwordCost: .testing), clock: local.clock)
      #expect(try await restarted.authenticator.authenticate(bearerToken: early.token) == nil)
      #expect(
        try await restarted.authenticator.authenticate(bearerToken: late.token)?.userID == late.id)
    }
  }

  @Test(
    "an authenticated GetMyProfile never suspends: no store, no other thread",
    arguments: StoreKind.allCases)
  func getMyProfile_staysOnItsExecutor(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let local = try await LocalServices.start(on: store)
      let me = try await local.player("+8613800001005", nickname: "Mei")
      let executor = CountingExecutor()
      let authenticator = local.started.authenticator
      let players = local.players
      let token = me.token
      let profile = try await Task(executorPreference: executor) {
        // As the server's call task runs it: authenticate, then the handler.
        guard let principal = try await authenticator.authenticate(bearerToken: token) else {
          throw RPCError.sessionInvalid
        }
        return try players.getMyProfile(
          GetMyProfileRequest(),
          context: context(from: "192.0.2.1", principal: principal))
      }.value
      #expect(profile.nickname == "Mei")
      #expect(executor.jobs.load(ordering: .relaxed) == 1)
    }
  }

  @Test(
    "profiles show an UpdateProfile and an UpdateLocation as soon as the write returns",
    arguments: StoreKind.allCases)
  func profile_reflectsWritesAtOnce(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let local = try await LocalServices.start(on: store)
      let me = try await local.player("+8613800001006")
      let other = try await local.player("+8613800001007")
      let mine = try #require(try await local.call(me.token))
      let theirs = try #require(try await local.call(other.token))
      _ = try await local.players.updateProfile(
        UpdateProfileRequest(nickname: "Renamed", selfLevel: 6, locale: "zh-CN"), context: mine)
      let profile = try local.players.getMyProfile(GetMyProfileRequest(), context: mine)
      #expect(profile.nickname == "Renamed" && profile.selfLevel == 6 && profile.locale == "zh-CN")
      let seen = try await local.players.getProfile(
        GetProfileRequest(userID: me.id), context: theirs)
      #expect(seen.nickname == "Renamed" && seen.selfLevel == 6 && seen.phone.isEmpty)

      local.clock.advance(by: 5000)
      let moved = try await local.players.updateLocation(
        UpdateLocationRequest(latitude: 31.2304, longitude: 121.4737), context: mine)
      #expect(
        try local.players.getMyProfile(GetMyProfileRequest(), context: mine)
          .locationUpdatedAtUnixMs == moved.updatedAtUnixMs)
      #expect(
        local.projections.index.location(of: me.id)
          == LocationPrivacy.shownPosition(of: Coordinate(latitude: 31.2304, longitude: 121.4737)))
    }
  }

  @Test(
    "GetProfile shows a completion's games and a survey's reputation as soon as each returns",
    arguments: StoreKind.allCases)
  func profile_reflectsSurveysAtOnce(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let bob = try await world.player()
      let room = try await world.client.rooms.createRoom(
        .init(mode: .singles), options: alice.options)
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: bob.options)
      let match = try await world.client.rooms.startMatch(.init(), options: alice.options).match
      _ = try await world.client.surveys.completeMatch(
        .init(matchID: match.id, winningTeam: 1), options: alice.options)
      let played = try await world.client.players.getProfile(
        .init(userID: bob.id), options: alice.options)
      #expect(played.totalGames == 1)
      #expect(played.reputation.evaluationCount == 0)
      _ = try await world.client.surveys.submitSurvey(
        .init(
          matchID: match.id,
          ratings: [
            PlayerRating(userID: bob.id, skillLevel: 5, punctuality: .onTime, character: 4)
          ]),
        options: alice.options)
      let rated = try await world.client.players.getProfile(
        .init(userID: bob.id), options: alice.options)
      #expect(rated.reputation.evaluationCount == 1)
      #expect(rated.reputation.averageCharacterRating == 4)
      let own = try await world.client.players.getMyProfile(options: bob.options)
      #expect(own.reputation == rated.reputation)
    }
  }

  @Test(
    "a block reaches nearby searches as soon as Block returns, and leaves with Unblock",
    arguments: StoreKind.allCases)
  func block_reachesNearbyAtOnce(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let local = try await LocalServices.start(on: store)
      let me = try await local.player("+8613800001008")
      let other = try await local.player("+8613800001009")
      let mine = try #require(try await local.call(me.token))
      let theirs = try #require(try await local.call(other.token))
      for call in [mine, theirs] {
        _ = try await local.players.updateLocation(
          UpdateLocationRequest(latitude: 31.2304, longitude: 121.4737), context: call)
      }
      func nearby() async throws -> [Int64] {
        try await local.players.nearbyPlayers(NearbyPlayersRequest(), context: mine).players.map(
          \.userID)
      }
      #expect(try await nearby() == [other.id])
      // The other player blocks the caller: the caller no longer finds them.
      _ = try await local.friends.block(BlockRequest(userID: me.id), context: theirs)
      #expect(try await nearby() == [])
      _ = try await local.friends.unblock(UnblockRequest(userID: me.id), context: theirs)
      #expect(try await nearby() == [other.id])
    }
  }

  /// One step of the property test.
  enum Step: CustomStringConvertible {
    case register(Int), login(Int), logout(Int), rename(Int, Int), level(Int, Int)
    case move(Int, Int), block(Int, Int), unblock(Int, Int), wait(Int), sweep

    var description: String {
      switch self {
      case .register(let a): "register \(a)"
      case .login(let a): "login \(a)"
      case .logout(let a): "logout \(a)"
      case .rename(let a, let n): "rename \(a) \(n)"
      case .level(let a, let l): "level \(a) \(l)"
      case .move(let a, let p): "move \(a) \(p)"
      case .block(let a, let b): "block \(a) \(b)"
      case .unblock(let a, let b): "unblock \(a) \(b)"
      case .wait(let minutes): "wait \(minutes) min"
      case .sweep: "sweep"
      }
    }
  }

  /// Places a player may move to: near one another, and one far away.
  static let places = [
    Coordinate(latitude: 31.2304, longitude: 121.4737),
    Coordinate(latitude: 31.2404, longitude: 121.4837),
    Coordinate(latitude: 31.2204, longitude: 121.4637),
    Coordinate(latitude: 39.9042, longitude: 116.4074),
  ]

  @Test(
    "for any registrations, logins, logouts, profile and location changes and blocks, each projection equals one rebuilt from the store",
    arguments: StoreKind.allCases)
  func projections_equalReplay(kind: StoreKind) async throws {
    let players = 3
    let step = zip(Gen.int(in: 0...9), Gen.int(in: 0..<players), Gen.int(in: 0...3)).map {
      drawn -> Step in
      let (kind, a, b) = drawn
      return switch kind {
      case 0: .register(a)
      case 1: .login(a)
      case 2: .logout(a)
      case 3: .rename(a, b)
      case 4: .level(a, b + 1)
      case 5: .move(a, b)
      case 6: .block(a, b % players)
      case 7: .unblock(a, b % players)
      case 8: .wait([1, 20, 45, 90][b])
      default: .sweep
      }
    }
    await propertyCheck(count: 25, input: step.array(of: 1...30)) { steps in
      try await withStore(kind) { store in
        // Sessions last an hour, so that waits and sweeps expire and remove some.
        let local = try await LocalServices.start(on: store, sessionLifetime: .seconds(3600))
        let phones = (0..<players).map { "+86138000020\($0)0" }
        var ids: [Int: Int64] = [:]
        var tokens: [Int: [String]] = [:]
        // Every player but the last starts registered and logged in, so that most steps act.
        for a in 0..<(players - 1) {
          let started = try await local.player(phones[a])
          ids[a] = started.id
          tokens[a] = [started.token]
        }
        func anyCall(_ a: Int) async throws -> ServerContext? {
          for token in tokens[a, default: []].reversed() {
            if let call = try await local.call(token) { return call }
          }
          return nil
        }
        for step in steps {
          // Refusals (no such player, too fast, blocking oneself) are part of the sequence: the
          // projections must follow whatever the store committed.
          _ = await rpcError {
            switch step {
            case .register(let a):
              ids[a] = try await local.accounts.register(
                RegisterRequest(
                  phone: phones[a], nickname: "P\(a)", password: "correct horse", selfLevel: 4),
                context: local.anonymous
              ).userID
            case .login(let a):
              let login = try await local.accounts.login(
                LoginRequest(phone: phones[a], password: "correct horse"), context: local.anonymous)
              tokens[a, default: []].append(login.token)
            case .logout(let a):
              guard let call = try await anyCall(a) else { return }
              _ = try await local.accounts.logout(LogoutRequest(), context: call)
            case .rename(let a, let n):
              guard let call = try await anyCall(a) else { return }
              _ = try await local.players.updateProfile(
                UpdateProfileRequest(nickname: "Name \(n)"), context: call)
            case .level(let a, let level):
              guard let call = try await anyCall(a) else { return }
              _ = try await local.players.updateProfile(
                UpdateProfileRequest(selfLevel: Int32(level)), context: call)
            case .move(let a, let p):
              guard let call = try await anyCall(a) else { return }
              _ = try await local.players.updateLocation(
                UpdateLocationRequest(
                  latitude: Self.places[p].latitude, longitude: Self.places[p].longitude),
                context: call)
            case .block(let a, let b):
              guard let call = try await anyCall(a), let id = ids[b] else { return }
              _ = try await local.friends.block(BlockRequest(userID: id), context: call)
            case .unblock(let a, let b):
              guard let call = try await anyCall(a), let id = ids[b] else { return }
              _ = try await local.friends.unblock(UnblockRequest(userID: id), context: call)
            case .wait(let minutes):
              local.clock.advance(by: Int64(minutes) * 60_000)
            case .sweep:
              try await local.started.housekeeping.sweep()
            }
          }
          try await Self.expectEqualToReplay(
            local, tokens: tokens.values.flatMap { $0 }, after: step)
        }
      }
    }
  }

  /// Expects each projection to equal one rebuilt from the store now, and every token to
  /// authenticate exactly when the store holds its unexpired session.
  private static func expectEqualToReplay(
    _ local: LocalServices, tokens: [String], after step: Step
  ) async throws {
    let now = local.clock.nowUnixMs()
    let live = local.projections
    let fresh = try await PlayerProjections.replayed(from: local.store, nowUnixMs: now)
    #expect(live.players.snapshot == fresh.players.snapshot, "after \(step)")
    // Expired sessions stay in memory until a sweep deletes them; the replay leaves them out.
    #expect(
      live.sessions.snapshot.filter { $0.value.expiresAtUnixMs > now }
        == fresh.sessions.snapshot, "after \(step)")
    #expect(live.index.snapshot == fresh.index.snapshot, "after \(step)")
    #expect(live.blocks.snapshot.rows == fresh.blocks.snapshot.rows, "after \(step)")
    #expect(live.blocks.snapshot.blocked == fresh.blocks.snapshot.blocked, "after \(step)")
    for token in tokens {
      let stored = try await local.store.session(tokenHash: SessionToken.hash(token))
      let principal = try await local.started.authenticator.authenticate(bearerToken: token)
      #expect(
        principal?.userID == stored.flatMap { $0.expiresAtUnixMs > now ? $0.playerID : nil },
        "after \(step)")
    }
  }
}
