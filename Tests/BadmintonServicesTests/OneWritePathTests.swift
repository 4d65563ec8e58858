import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Foundation
import Logging
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

import struct BadmintonAPI.LocalDate

@testable import BadmintonProjections

/// Every in-memory structure the services keep (sessions, profiles, the nearby index, blocks and
/// the match board) is a projection of the store's change feed: after any sequence of calls,
/// each equals one rebuilt from the store's rows alone.
@Suite("One write path: every projection equals one rebuilt from the store")
struct OneWritePathTests {
  static let hour: Int64 = 3_600_000
  static let phones = (0..<4).map { "+86138000031\($0)0" }
  static let places = [
    GeoPoint(latitude: 31.2304, longitude: 121.4737),
    GeoPoint(latitude: 31.2404, longitude: 121.4837),
    GeoPoint(latitude: 31.3104, longitude: 121.5237),
  ]

  /// One call through the services; `a` and `b` pick the player and what the call acts on.
  enum Step: CustomStringConvertible {
    case register(Int), login(Int), logout(Int), locate(Int, Int), block(Int, Int),
      unblock(Int, Int), post(Int, Int), cancel(Int, Int), propose(Int, Int), answer(Int, Int),
      complete(Int, Int), survey(Int, Int), level(Int, Int), room(Int, Int), advance(Int),
      cancelMatch(Int, Int)

    var description: String {
      switch self {
      case .register(let a): "register(\(a))"
      case .login(let a): "login(\(a))"
      case .logout(let a): "logout(\(a))"
      case .locate(let a, let b): "locate(\(a), \(b))"
      case .block(let a, let b): "block(\(a), \(b))"
      case .unblock(let a, let b): "unblock(\(a), \(b))"
      case .post(let a, let b): "post(\(a), \(b))"
      case .cancel(let a, let b): "cancel(\(a), \(b))"
      case .propose(let a, let b): "propose(\(a), \(b))"
      case .answer(let a, let b): "answer(\(a), \(b))"
      case .complete(let a, let b): "complete(\(a), \(b))"
      case .survey(let a, let b): "survey(\(a), \(b))"
      case .level(let a, let b): "level(\(a), \(b))"
      case .room(let a, let b): "room(\(a), \(b))"
      case .advance(let b): "advance(\(b))"
      case .cancelMatch(let a, let b): "cancelMatch(\(a), \(b))"
      }
    }
  }

  static let steps = zip(Gen.int(in: 0...22), Gen.int(in: 0...99), Gen.int(in: 0...99)).map {
    drawn -> Step in
    let (kind, a, b) = drawn
    return switch kind {
    case 0: .register(a)
    case 1: .login(a)
    case 2: .logout(a)
    case 3: .locate(a, b)
    case 4: .block(a, b)
    case 5: .unblock(a, b)
    case 6, 7, 8, 9: .post(a, b)
    case 10: .cancel(a, b)
    case 11, 12, 13: .propose(a, b)
    case 14, 15: .answer(a, b)
    case 16: .complete(a, b)
    case 17: .survey(a, b)
    case 18: .level(a, b)
    case 19: .room(a, b)
    case 20, 21: .cancelMatch(a, b)
    default: .advance(b)
    }
  }

  /// Counts the calls that succeeded, by kind.
  final class Tally: Sendable {
    let counts = Mutex<[String: Int]>([:])
  }

  /// Where the calls of the sequence running now are counted, if anywhere.
  @TaskLocal static var tally: Tally?

  static func did(_ what: String, _ succeeded: Bool) {
    if succeeded { tally?.counts.withLock { $0[what, default: 0] += 1 } }
  }

  /// A sequence in which every kind of write succeeds once, each step after the one it needs.
  static let script: [Step] = [
    .locate(0, 0), .block(0, 1), .unblock(0, 1), .post(0, 0), .post(1, 0), .propose(0, 0),
    .answer(1, 0), .cancelMatch(0, 0), .post(2, 0), .cancel(2, 0), .room(2, 0), .complete(2, 1),
    .survey(3, 1), .level(3, 0), .logout(3), .advance(0),
  ]

  @Test(
    "a scripted sequence reaches every kind of write, and every projection follows each",
    arguments: StoreKind.allCases)
  func script_reachesEveryWrite(kind: StoreKind) async throws {
    let tally = Tally()
    try await Self.$tally.withValue(tally) {
      try await withStore(kind) { store in
        let world = try await World(store: store)
        for a in Self.phones.indices { try await Self.run(.register(a), world) }
        for a in Self.phones.indices { try await Self.run(.login(a), world) }
        for step in Self.script {
          try await Self.run(step, world)
          _ = try await Self.expectEqualToReplay(world, after: step)
        }
      }
    }
    let done = tally.counts.withLock { $0 }
    for kind in [
      "locate", "block", "unblock", "post", "cancel", "propose", "match", "cancelMatch", "room",
      "complete", "survey", "level", "logout",
    ] {
      #expect(done[kind, default: 0] > 0, "no \(kind) succeeded")
    }
  }

  /// The services on a store, called in-process, with what the sequence made.
  final class World {
    let store: any ServerStore
    let clock = ManualClock()
    let started: PlayerServices
    var ids: [Int: Int64] = [:]
    var tokens: [Int: [String]] = [:]
    var proposals: [Int64] = []
    var matches: [Int64] = []

    init(store: any ServerStore) async throws {
      self.store = store
      started = try await PlayerServices.start(
        store: store,
        configuration: PlayerServicesConfiguration(
          sessionLifetime: .seconds(6 * 3600), passwordCost: .testing,
          loginPolicyPerPhone: .unlimited, loginPolicyPerAddress: .unlimited,
          registrationsPerAddressPerHour: 0, uploadsPerAddressPerHour: 0),
        clock: clock)
    }

    func service<Service>(_ type: Service.Type) -> Service {
      started.services.lazy.compactMap { $0 as? Service }.first!
    }

    var anonymous: ServerContext {
      ServerContext(
        callID: 1, method: "/test", metadata: [], deadline: nil, peer: "[IPv4]192.0.2.1:4000",
        logger: Logger(label: "test"))
    }

    /// A call as player `a` through one of their sessions the server still accepts.
    func call(_ a: Int) async throws -> ServerContext? {
      for token in tokens[a, default: []].reversed() {
        if let principal = try await started.authenticator.authenticate(bearerToken: token) {
          return ServerContext(
            callID: 1, method: "/test",
            metadata: [Metadata(key: "authorization", value: "Bearer \(token)")],
            deadline: nil, peer: "[IPv4]192.0.2.1:4000", logger: Logger(label: "test"),
            principal: principal)
        }
      }
      return nil
    }

    /// The UTC date `days` after today by the clock.
    func date(daysAhead days: Int) -> LocalDate {
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = TimeZone(identifier: "UTC")!
      let instant = Date(
        timeIntervalSince1970: Double(clock.nowUnixMs() + Int64(days) * 86_400_000) / 1000)
      let parts = calendar.dateComponents([.year, .month, .day], from: instant)
      return LocalDate(
        year: Int32(parts.year!), month: Int32(parts.month!), day: Int32(parts.day!))
    }
  }

  @Test(
    "for any registrations, logins, logouts, moves, blocks, posts, cancellations, proposals, answers, completions, surveys, level changes, room matches and sweeps, every projection equals one rebuilt from the store",
    arguments: StoreKind.allCases)
  func everyProjection_equalsReplay(kind: StoreKind) async throws {
    await propertyCheck(count: 30, input: Self.steps.array(of: 1...40)) { steps in
      do {
        try await withStore(kind) { store in
          let world = try await World(store: store)
          // Every player starts registered and logged in, so that most steps act.
          for a in Self.phones.indices { try await Self.run(.register(a), world) }
          for a in Self.phones.indices { try await Self.run(.login(a), world) }
          for step in steps {
            try await Self.run(step, world)
            guard try await Self.expectEqualToReplay(world, after: step) else { return }
          }
        }
      } catch {
        Issue.record("unexpected \(error)")
      }
    }
  }

  /// Runs `step`. Refusals (unknown player, too fast a move, blocked, booked) are part of the
  /// sequence: the projections must follow whatever the store committed.
  static func run(_ step: Step, _ world: World) async throws {
    let accounts = world.service(AccountsService.self)
    let players = world.service(PlayersService.self)
    let friends = world.service(FriendsService.self)
    let matching = world.service(MatchingService.self)
    let surveys = world.service(SurveysService.self)
    let rooms = world.service(RoomsService.self)
    func index(_ a: Int) -> Int { a % phones.count }
    func id(_ a: Int) -> Int64? { world.ids[index(a)] }
    func pick<T>(_ items: [T], _ b: Int) -> T? { items.isEmpty ? nil : items[b % items.count] }
    /// Posts singles availability in central Shanghai on one of two days, at one of two
    /// overlapping times; true when it was stored.
    func post(_ call: ServerContext, _ b: Int) async -> Bool {
      let start = Int32(540 + (b / 2 % 2) * 30)
      let posted = try? await matching.postAvailability(
        PostAvailabilityRequest(
          mode: .singles, date: world.date(daysAhead: 1 + b % 2), startMinute: start,
          endMinute: start + 120, timeZone: "UTC", location: places[0], radiusMiles: 10,
          skillTolerance: SkillTolerance(levels: Int32(3 + b / 4 % 2))), context: call)
      return posted != nil
    }
    func active(_ playerID: Int64) async throws -> [Int64] {
      try await world.store.activeAvailability(playerID: playerID, now: world.clock.nowUnixMs())
        .map(\.id)
    }
    switch step {
    case .register(let a):
      if let registered = try? await accounts.register(
        RegisterRequest(
          phone: phones[index(a)], nickname: "P\(index(a))", password: "correct horse",
          selfLevel: Int32(3 + index(a))), context: world.anonymous)
      {
        world.ids[index(a)] = registered.userID
      }
    case .login(let a):
      if let login = try? await accounts.login(
        LoginRequest(phone: phones[index(a)], password: "correct horse"),
        context: world.anonymous)
      {
        world.tokens[index(a), default: []].append(login.token)
      }
    case .logout(let a):
      guard let call = try await world.call(index(a)) else { return }
      did("logout", (try? await accounts.logout(LogoutRequest(), context: call)) != nil)
    case .locate(let a, let b):
      guard let call = try await world.call(index(a)) else { return }
      let place = places[b % places.count]
      let moved = try? await players.updateLocation(
        UpdateLocationRequest(latitude: place.latitude, longitude: place.longitude),
        context: call)
      did("locate", moved != nil)
    case .block(let a, let b), .unblock(let a, let b):
      guard let call = try await world.call(index(a)), let other = id(b) else { return }
      if case .block = step {
        did("block", (try? await friends.block(BlockRequest(userID: other), context: call)) != nil)
      } else {
        did(
          "unblock",
          (try? await friends.unblock(UnblockRequest(userID: other), context: call)) != nil)
      }
    case .post(let a, let b):
      guard let call = try await world.call(index(a)) else { return }
      did("post", await post(call, b))
    case .cancel(let a, let b):
      guard let call = try await world.call(index(a)), let me = id(a),
        let availability = pick(try await active(me), b)
      else { return }
      let cancelled = try? await matching.cancelAvailability(
        CancelAvailabilityRequest(availabilityID: availability), context: call)
      did("cancel", cancelled != nil)
    case .propose(let a, let b):
      guard let call = try await world.call(index(a)), let me = id(a) else { return }
      // Someone with nothing posted posts first.
      if try await active(me).isEmpty { did("post", await post(call, b)) }
      for availability in try await active(me) {
        guard
          let found = try? matching.findMatches(
            FindMatchesRequest(availabilityID: availability, pageSize: 10), context: call),
          let partner = pick(found.candidates, b)
        else { continue }
        if let proposal = try? await matching.proposeMatch(
          ProposeMatchRequest(
            availabilityID: availability, candidateAvailabilityIDs: [partner.availabilityID]),
          context: call)
        {
          world.proposals.append(proposal.id)
          did("propose", true)
        }
        return
      }
    case .answer(let a, let b):
      // Mostly the newest proposal, which is most likely still waiting.
      guard let proposalID = b % 2 == 0 ? world.proposals.last : pick(world.proposals, b),
        let proposal = try await world.store.proposal(id: proposalID),
        let invitee = proposal.details.invitees.first?.playerID,
        let who = world.ids.first(where: { $0.value == invitee })?.key,
        let call = try await world.call(who)
      else { return }
      if let answered = try? await matching.respondToProposal(
        RespondToProposalRequest(proposalID: proposalID, accept: a % 4 != 0), context: call),
        answered.matchID != 0
      {
        world.matches.append(answered.matchID)
        did("match", true)
      }
    case .complete(let a, let b), .survey(let a, let b), .cancelMatch(let a, let b):
      guard let matchID = pick(world.matches, b),
        let match = try await world.store.match(id: matchID),
        let by = pick(match.playerIDs, a),
        let who = world.ids.first(where: { $0.value == by })?.key,
        let call = try await world.call(who)
      else { return }
      switch step {
      case .complete:
        let completed = try? await surveys.completeMatch(
          CompleteMatchRequest(matchID: matchID, winningTeam: 1), context: call)
        did("complete", completed != nil)
      case .cancelMatch:
        let cancelled = try? await matching.cancelMatch(
          CancelMatchRequest(matchID: matchID), context: call)
        did("cancelMatch", cancelled != nil)
      default:
        let ratings = match.playerIDs.filter { $0 != by }.map {
          PlayerRating(
            userID: $0, skillLevel: Int32(1 + b % 9), punctuality: .onTime, character: 4)
        }
        let submitted = try? await surveys.submitSurvey(
          SubmitSurveyRequest(matchID: matchID, ratings: ratings), context: call)
        did("survey", submitted != nil)
      }
    case .level(let a, let b):
      guard let call = try await world.call(index(a)) else { return }
      var change = UpdateProfileRequest()
      change.selfLevel = Int32(1 + b % 7)
      did("level", (try? await players.updateProfile(change, context: call)) != nil)
    case .room(let a, let b):
      let guestIndex = index(a + 1 + b % (phones.count - 1))
      guard let owner = try await world.call(index(a)), let guest = try await world.call(guestIndex)
      else { return }
      if let room = try? await rooms.createRoom(CreateRoomRequest(mode: .singles), context: owner),
        (try? await rooms.joinRoom(JoinRoomRequest(code: room.code), context: guest)) != nil,
        let started = try? await rooms.startMatch(StartMatchRequest(), context: owner)
      {
        world.matches.append(started.match.id)
        did("room", true)
      }
      for call in [owner, guest] {
        _ = try? await rooms.leaveRoom(LeaveRoomRequest(), context: call)
      }
    case .advance(let b):
      world.clock.advance(by: Int64(1 + b % 4) * hour)
      try await world.started.housekeeping.sweep()
    }
  }

  /// Expects every projection to equal one rebuilt from the store's rows now, and every token
  /// to authenticate exactly when the store holds its unexpired session; false on a difference.
  static func expectEqualToReplay(_ world: World, after step: Step) async throws -> Bool {
    let now = world.clock.nowUnixMs()
    let live = world.started.projections
    let fresh = try await PlayerProjections.replayed(from: world.store, nowUnixMs: now)
    let board = world.started.board.contents(nowUnixMs: now)
    let freshBoard = try await MatchBoard.replayed(from: world.store, nowUnixMs: now)
      .contents(nowUnixMs: now)
    var equal = true
    func check(_ same: Bool, _ what: String) {
      #expect(same, "\(what) after \(step)")
      equal = equal && same
    }
    check(live.players.snapshot == fresh.players.snapshot, "players")
    // Expired sessions stay in memory until a sweep deletes them; the clock refuses them.
    check(
      live.sessions.snapshot.filter { $0.value.expiresAtUnixMs > now }
        == fresh.sessions.snapshot, "sessions")
    check(live.index.snapshot == fresh.index.snapshot, "nearby index")
    check(live.blocks.snapshot.rows == fresh.blocks.snapshot.rows, "blocks")
    check(live.blocks.snapshot.blocked == fresh.blocks.snapshot.blocked, "blocked players")
    check(board == freshBoard, "match board")
    for token in world.tokens.values.joined() {
      let stored = try await world.store.session(tokenHash: SessionToken.hash(token))
      let principal = try await world.started.authenticator.authenticate(bearerToken: token)
      check(
        principal?.userID == stored.flatMap { $0.expiresAtUnixMs > now ? $0.playerID : nil },
        "authentication")
    }
    return equal
  }
}
