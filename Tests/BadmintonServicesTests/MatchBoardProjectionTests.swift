import BadmintonAPI
import BadmintonProjections
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Foundation
import Logging
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

import struct BadmintonDomain.MatchRequest

/// The player services on a store, called directly as one player or another, with the match
/// board they share.
private struct ServiceWorld {
  let store: any ServerStore
  let clock: ManualClock
  let services: PlayerServices
  let matching: MatchingService
  let rooms: RoomsService
  let surveys: SurveysService
  let players: PlayersService

  static let shanghai = GeoPoint(latitude: 31.2304, longitude: 121.4737)

  /// Services over `store` (which may already hold data), started at `clock`'s time.
  static func start(
    store: any ServerStore, clock: ManualClock = ManualClock()
  ) async throws -> ServiceWorld {
    let services = try await PlayerServices.start(
      store: store, configuration: PlayerServicesConfiguration(passwordCost: .testing),
      clock: clock)
    func service<T>(_ type: T.Type) -> T { services.services.compactMap { $0 as? T }.first! }
    return ServiceWorld(
      store: store, clock: clock, services: services, matching: service(MatchingService.self),
      rooms: service(RoomsService.self), surveys: service(SurveysService.self),
      players: service(PlayersService.self))
  }

  /// A new player at `level`, registered straight in the store.
  static func register(_ store: any PlayerStore, level: Int = 4) async throws -> Int64 {
    try await store.createPlayer(
      NewPlayer(
        phone: PlayerWorld.newPhone(), nickname: "P",
        password: PasswordDigest(hash: [1], salt: [2], parameters: "x"), selfLevel: level,
        locale: "en", joinedAtUnixMs: 0)
    ).id
  }

  func register(level: Int = 4) async throws -> Int64 {
    try await Self.register(store, level: level)
  }

  /// A call made by `playerID`.
  func context(_ playerID: Int64) -> ServerContext {
    ServerContext(
      callID: 1, method: "test", metadata: [], deadline: nil, peer: "test",
      logger: Logger(label: "test"),
      principal: Principal(userID: playerID, isAdministrator: false))
  }

  /// The UTC date `days` after today by the world's clock.
  func date(daysAhead days: Int) -> LocalDate {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let instant = Date(
      timeIntervalSince1970: Double(clock.nowUnixMs() + Int64(days) * 86_400_000) / 1000)
    let parts = calendar.dateComponents([.year, .month, .day], from: instant)
    return LocalDate(year: Int32(parts.year!), month: Int32(parts.month!), day: Int32(parts.day!))
  }

  /// Posts singles availability in central Shanghai, in UTC, two hours from `startMinute`.
  func post(
    _ playerID: Int64, daysAhead: Int = 2, startMinute: Int32 = 600, tolerance: Int32 = 2,
    at location: GeoPoint = shanghai
  ) async throws -> Int64 {
    try await matching.postAvailability(
      PostAvailabilityRequest(
        mode: .singles, date: date(daysAhead: daysAhead), startMinute: startMinute,
        endMinute: startMinute + 120, timeZone: "UTC", location: location, radiusMiles: 10,
        skillTolerance: SkillTolerance(levels: tolerance)),
      context: context(playerID)
    ).id
  }

  /// The first page of FindMatches for `availabilityID`.
  func find(_ availabilityID: Int64, as playerID: Int64, pageSize: Int32 = 20) async throws
    -> [MatchCandidate]
  {
    try matching.findMatches(
      FindMatchesRequest(availabilityID: availabilityID, pageSize: pageSize),
      context: context(playerID)
    ).candidates
  }

  /// A singles match of `owner` and `guest` from now for an hour, started from a room.
  func roomMatch(_ owner: Int64, _ guest: Int64) async throws -> Int64 {
    let room = try await rooms.createRoom(
      CreateRoomRequest(mode: .singles), context: context(owner))
    _ = try await rooms.joinRoom(JoinRoomRequest(code: room.code), context: context(guest))
    return try await rooms.startMatch(StartMatchRequest(), context: context(owner)).match.id
  }

  /// The board as the services left it, and one built from the store's rows alone, as they
  /// stand now.
  func boards() async throws -> (live: MatchBoard.Contents, replayed: MatchBoard.Contents) {
    let now = clock.nowUnixMs()
    let replayed = try await MatchBoard.replayed(from: store, nowUnixMs: now)
    return (services.board.contents(nowUnixMs: now), replayed.contents(nowUnixMs: now))
  }
}

/// Blocks nobody, and the first time it is asked after `arm`, first runs the action it was
/// armed with: a change that lands in the middle of a call that asks.
private final class InterposedBlocks: BlockRelations {
  private let action = Mutex<(@Sendable () async throws -> Void)?>(nil)

  func arm(_ body: @escaping @Sendable () async throws -> Void) {
    action.withLock { $0 = body }
  }

  func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64> {
    if let body = action.withLock({ $0.take() }) { try await body() }
    return []
  }

  func playersBlockedNow(eitherWayWith playerID: Int64) -> Set<Int64> { [] }

  func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool { false }
}

@Suite("The match board follows the store's change feed")
struct MatchBoardProjectionTests {
  static let hour: Int64 = 3_600_000

  // MARK: Drifts

  @Test(
    "a survey that changes a player's display level re-ranks their availability at once",
    arguments: StoreKind.allCases)
  func survey_relevelsAvailability(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let world = try await ServiceWorld.start(store: store)
      let rated = try await world.register(level: 4)
      let rater = try await world.register(level: 4)
      let searcher = try await world.register(level: 8)
      _ = try await world.post(rated, tolerance: 2)
      let search = try await world.post(searcher, tolerance: 0)
      #expect(try await world.find(search, as: searcher).isEmpty)
      // Five ratings of 9 show the calculated level: round(0.3 x 4 + 0.7 x 9) = 8.
      for _ in 0..<5 {
        let match = try await world.roomMatch(rated, rater)
        _ = try await world.surveys.completeMatch(
          CompleteMatchRequest(matchID: match, winningTeam: 1), context: world.context(rater))
        _ = try await world.surveys.submitSurvey(
          SubmitSurveyRequest(
            matchID: match,
            ratings: [
              PlayerRating(userID: rated, skillLevel: 9, punctuality: .onTime, character: 4)
            ]),
          context: world.context(rater))
        world.clock.advance(by: Self.hour)
      }
      let profile = try await world.store.player(id: rated)
      #expect(profile?.displayLevel.level == 8)
      let found = try await world.find(search, as: searcher)
      #expect(found.map(\.userID) == [rated])
      #expect(found.first?.skillDifference == 0)
      let boards = try await world.boards()
      #expect(boards.live == boards.replayed)
    }
  }

  @Test(
    "a post whose player changes level while it is under way leaves every entry at the new level",
    arguments: StoreKind.allCases)
  func post_duringLevelChange_keepsTheNewLevel(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let world = try await ServiceWorld.start(store: store)
      let player = try await world.register(level: 4)
      let first = try await world.post(player, startMinute: 600)
      // A matching service whose post is interrupted, after it has started, by the player's own
      // profile change.
      let blocks = InterposedBlocks()
      let matching = MatchingService(
        store: world.store, board: world.services.board,
        players: world.services.projections.players, blocks: blocks, clock: world.clock,
        events: world.services.events)
      let players = world.players
      let context = world.context(player)
      blocks.arm {
        var change = UpdateProfileRequest()
        change.selfLevel = 7
        _ = try await players.updateProfile(change, context: context)
      }
      let second = try await matching.postAvailability(
        PostAvailabilityRequest(
          mode: .singles, date: world.date(daysAhead: 2), startMinute: 900, endMinute: 1020,
          timeZone: "UTC", location: ServiceWorld.shanghai, radiusMiles: 10,
          skillTolerance: SkillTolerance(levels: 2)),
        context: context
      ).id
      let board = world.services.board
      #expect(board.request(first)?.displayLevel == 7)
      #expect(board.request(second)?.displayLevel == 7)
      let boards = try await world.boards()
      #expect(boards.live == boards.replayed)
    }
  }

  @Test(
    "a room's match is booked on the board when its commit is published, before any other write",
    arguments: StoreKind.allCases)
  func roomMatch_isBookedAtCommit(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let world = try await ServiceWorld.start(store: store)
      let owner = try await world.register()
      let guest = try await world.register()
      let board = world.services.board
      let clock = world.clock
      // What the board said of each match while the writer published its commit.
      let seen = Mutex<[Int64: Bool]>([:])
      world.store.feed.subscribe { committed in
        for case .match(let id, let match?) in committed.changes where match.state == .confirmed {
          let booked = board.contents(nowUnixMs: clock.nowUnixMs()).bookings[id] != nil
          seen.withLock { $0[id] = booked }
        }
      }
      let match = try await world.roomMatch(owner, guest)
      #expect(seen.withLock { $0 } == [match: true])
      let booking = board.contents(nowUnixMs: clock.nowUnixMs()).bookings[match]
      #expect(Set(booking?.playerIDs ?? []) == [owner, guest])
    }
  }

  // MARK: Standing searches

  @Test(
    "a post tells at most 100 standing searches, the best fits first, in a write after its own commit",
    arguments: StoreKind.allCases)
  func post_tellsStandingSearchesAfterCommit(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let world = try await ServiceWorld.start(store: store, clock: clock)
      let limit = MatchingService.standingSearchNoticeLimit
      #expect(limit == 100)
      // More standing searches than the limit, at every level and a spread of distances.
      var waiting: [Int64] = []
      for index in 0..<(limit + 20) {
        let player = try await world.register(level: 1 + index % 9)
        let north = GeoPoint(
          latitude: ServiceWorld.shanghai.latitude + Double(index % 7) * 0.01,
          longitude: ServiceWorld.shanghai.longitude)
        _ = try await world.post(player, tolerance: 8, at: north)
        waiting.append(player)
      }
      let commits = Mutex<[[StoreChange]]>([])
      store.feed.subscribe { committed in commits.withLock { $0.append(committed.changes) } }
      let poster = try await world.register(level: 5)
      let posted = try await world.post(poster, tolerance: 8)
      // The availability's own transaction holds no event; the notices came after it.
      let written = commits.withLock { $0 }
      let own = try #require(
        written.firstIndex { changes in
          changes.contains { if case .availability(posted, _) = $0 { true } else { false } }
        })
      #expect(!written[own].contains { if case .event = $0 { true } else { false } })
      #expect(
        written[(own + 1)...].contains {
          $0.contains { if case .event = $0 { true } else { false } }
        }
      )
      // The players told are the first page of the poster's own search, of the limit's size.
      let best = try await world.find(posted, as: poster, pageSize: Int32(limit))
      var told: Set<Int64> = []
      for player in waiting {
        // Each was told of the posts after its own as well; only the last one counts here.
        for event in try await store.events(playerID: player, after: 0, limit: 1_000) {
          let decoded = try Event(serializedBytes: event.payload)
          guard case .partnerAvailable(let notice)? = decoded.body,
            notice.candidate.availabilityID == posted
          else { continue }
          #expect(notice.candidate.userID == poster)
          #expect(!told.contains(player))
          told.insert(player)
        }
      }
      #expect(told.count == limit)
      #expect(told == Set(best.map(\.userID)))
    }
  }

  // MARK: The board equals a replay of the store

  /// One call through the services; `a` and `b` pick the players and items it acts on.
  enum Step: CustomStringConvertible {
    case post(Int, Int)
    case cancel(Int, Int)
    case propose(Int, Int)
    case answer(Int, Int)
    case complete(Int, Int)
    case survey(Int, Int)
    case level(Int, Int)
    case advance(Int)
    case cancelMatch(Int, Int)
    case room(Int, Int)
    case recurring(Int, Int)

    var description: String {
      switch self {
      case .post(let a, let b): "post(\(a), \(b))"
      case .cancel(let a, let b): "cancel(\(a), \(b))"
      case .propose(let a, let b): "propose(\(a), \(b))"
      case .answer(let a, let b): "answer(\(a), \(b))"
      case .complete(let a, let b): "complete(\(a), \(b))"
      case .survey(let a, let b): "survey(\(a), \(b))"
      case .level(let a, let b): "level(\(a), \(b))"
      case .advance(let b): "advance(\(b))"
      case .cancelMatch(let a, let b): "cancelMatch(\(a), \(b))"
      case .room(let a, let b): "room(\(a), \(b))"
      case .recurring(let a, let b): "recurring(\(a), \(b))"
      }
    }
  }

  static let steps = zip(Gen.int(in: 0...14), Gen.int(in: 0...99), Gen.int(in: 0...99)).map {
    drawn -> Step in
    let (kind, a, b) = drawn
    return switch kind {
    case 0, 1, 2: .post(a, b)
    case 3: .cancel(a, b)
    case 4, 5: .propose(a, b)
    case 6, 7: .answer(a, b)
    case 8: .complete(a, b)
    case 9: .survey(a, b)
    case 10: .level(a, b)
    case 11: .advance(b)
    case 12: .cancelMatch(a, b)
    case 13: .room(a, b)
    default: .recurring(a, b)
    }
  }

  @Test(
    "for any posts, cancellations, proposals, answers, completions, surveys and level changes, the board equals one replayed from the store",
    arguments: StoreKind.allCases)
  func board_equalsReplay(kind: StoreKind) async throws {
    await propertyCheck(count: 40, input: Self.steps.array(of: 1...40)) { steps in
      do {
        try await withStore(kind) { store in
          // Two players exist before the services start, two join after.
          var players = [
            try await ServiceWorld.register(store, level: 3),
            try await ServiceWorld.register(store, level: 5),
          ]
          let world = try await ServiceWorld.start(store: store)
          players += [try await world.register(level: 4), try await world.register(level: 6)]
          var proposals: [Int64] = []
          var matches: [Int64] = []
          for step in steps {
            try await run(step, world, players, &proposals, &matches)
            let boards = try await world.boards()
            #expect(boards.live == boards.replayed, "after \(step)")
            guard boards.live == boards.replayed else { return }
          }
        }
      } catch {
        Issue.record("unexpected \(error)")
      }
    }
  }

  /// Runs `step`; refusals are part of the game and leave the board as the store has it.
  private func run(
    _ step: Step, _ world: ServiceWorld, _ players: [Int64], _ proposals: inout [Int64],
    _ matches: inout [Int64]
  ) async throws {
    let matching = world.matching
    func player(_ a: Int) -> Int64 { players[a % players.count] }
    func pick<T>(_ items: [T], _ b: Int) -> T? { items.isEmpty ? nil : items[b % items.count] }
    func active(_ playerID: Int64) async throws -> [Int64] {
      try await world.store.activeAvailability(playerID: playerID, now: world.clock.nowUnixMs())
        .map(\.id)
    }
    switch step {
    case .post(let a, let b):
      // Two days and two starts an hour apart: most posts of a day fit each other.
      _ = try? await world.post(
        player(a), daysAhead: 1 + b % 2, startMinute: Int32(540 + (b / 2 % 2) * 60),
        tolerance: Int32(2 + b / 4 % 3))
    case .cancel(let a, let b):
      guard let id = pick(try await active(player(a)), b) else { return }
      _ = try? await matching.cancelAvailability(
        CancelAvailabilityRequest(availabilityID: id), context: world.context(player(a)))
    case .propose(let a, let b):
      // From the first of the player's availability, counting from `b`, that finds anyone.
      let mine = try await active(player(a))
      for offset in mine.indices {
        let availability = mine[(b + offset) % mine.count]
        guard let found = try? await world.find(availability, as: player(a)),
          let partner = pick(found, b)
        else { continue }
        if let proposal = try? await matching.proposeMatch(
          ProposeMatchRequest(
            availabilityID: availability, candidateAvailabilityIDs: [partner.availabilityID]),
          context: world.context(player(a)))
        {
          proposals.append(proposal.id)
        }
        return
      }
    case .answer(let a, let b):
      guard let id = pick(proposals, b),
        let proposal = try await world.store.proposal(id: id),
        let invitee = proposal.details.invitees.first?.playerID
      else { return }
      if let answered = try? await matching.respondToProposal(
        RespondToProposalRequest(proposalID: id, accept: a % 4 != 0),
        context: world.context(invitee)), answered.matchID != 0
      {
        matches.append(answered.matchID)
      }
    case .complete(let a, let b):
      guard let id = pick(matches, b), let match = try await world.store.match(id: id),
        let by = pick(match.playerIDs, a)
      else { return }
      _ = try? await world.surveys.completeMatch(
        CompleteMatchRequest(matchID: id, winningTeam: 1), context: world.context(by))
    case .survey(let a, let b):
      guard let id = pick(matches, b), let match = try await world.store.match(id: id),
        let by = pick(match.playerIDs, a)
      else { return }
      let ratings = match.playerIDs.filter { $0 != by }.map {
        PlayerRating(
          userID: $0, skillLevel: Int32(1 + b % 9), punctuality: .onTime, character: 4)
      }
      _ = try? await world.surveys.submitSurvey(
        SubmitSurveyRequest(matchID: id, ratings: ratings), context: world.context(by))
    case .level(let a, let b):
      var change = UpdateProfileRequest()
      change.selfLevel = Int32(1 + b % 7)
      _ = try? await world.players.updateProfile(change, context: world.context(player(a)))
    case .advance(let b):
      world.clock.advance(by: Int64(1 + b % 10) * Self.hour)
      try await world.services.housekeeping.sweep()
    case .cancelMatch(let a, let b):
      guard let id = pick(matches, b), let match = try await world.store.match(id: id),
        let by = pick(match.playerIDs, a)
      else { return }
      _ = try? await matching.cancelMatch(
        CancelMatchRequest(matchID: id), context: world.context(by))
    case .room(let a, let b):
      let owner = player(a)
      let guest = player(a + 1 + b % (players.count - 1))
      if let match = try? await world.roomMatch(owner, guest) { matches.append(match) }
      for someone in [owner, guest] {
        _ = try? await world.rooms.leaveRoom(LeaveRoomRequest(), context: world.context(someone))
      }
    case .recurring(let a, let b):
      _ = try? await matching.saveRecurringSlots(
        SaveRecurringSlotsRequest(
          slots: [
            RecurringSlot(
              weekday: Int32(1 + b % 7), startMinute: 600, endMinute: 720, mode: .singles,
              active: true)
          ],
          timeZone: "UTC", location: ServiceWorld.shanghai, radiusMiles: 10,
          skillTolerance: SkillTolerance(levels: 3)),
        context: world.context(player(a)))
    }
  }
}
