import BadmintonAPI
import BadmintonDomain
import BadmintonProjections
import BadmintonRPC
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import BadmintonStoreSQL
import Foundation
import PropertyBased
import StoreTestSupport
import Testing

@Suite("Suspensions")
struct SuspensionTests {
  static let day: Int64 = 24 * 3600 * 1000

  @Test(
    "a suspended player's Login and every call with an old token are refused with ACCOUNT_SUSPENDED, and lifting it lets them back",
    arguments: StoreKind.allCases)
  func suspension_refusesLoginAndSessions(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(nickname: "Rowdy")
      let bystander = try await world.player()
      let admin = try await world.administrator()
      let until = world.clock.nowUnixMs() + 3 * Self.day
      try await world.administration.suspend(
        player.id, untilUnixMs: until, reason: "  abusive messages  ", by: admin.id)

      let call = await rpcError {
        _ = try await world.client.players.getMyProfile(options: player.options)
      }
      #expect(call?.code == .permissionDenied)
      #expect(call?.reason == "ACCOUNT_SUSPENDED")
      let shown = SuspensionRules.utcText(until)
      #expect(call?.message.en == "This account is suspended until \(shown) UTC.")
      let chinese = await rpcError {
        _ = try await world.client.players.getMyProfile(
          options: CallOptions(locale: .zhCN, bearerToken: player.token))
      }
      #expect(chinese?.message.zhCN == "此账号已被停用，直至 \(shown)（UTC）。")
      let login = await rpcError {
        _ = try await world.client.accounts.login(
          LoginRequest(phone: player.phone, password: "correct horse"))
      }
      #expect(login?.reason == "ACCOUNT_SUSPENDED")
      // A wrong password is told as for anyone: the suspension is told only to the owner.
      let wrong = await rpcError {
        _ = try await world.client.accounts.login(
          LoginRequest(phone: player.phone, password: "wrong horse"))
      }
      #expect(wrong?.reason == "INVALID_CREDENTIALS")
      // Everyone else goes on.
      _ = try await world.client.players.getMyProfile(options: bystander.options)

      let stored = try #require(try await world.store.suspension(playerID: player.id))
      #expect(stored.reason == "abusive messages" && stored.untilUnixMs == until)
      #expect(stored.administratorID == admin.id)

      try await world.administration.liftSuspension(of: player.id, note: "apologised", by: admin.id)
      _ = try await world.client.players.getMyProfile(options: player.options)
      _ = try await world.client.accounts.login(
        LoginRequest(phone: player.phone, password: "correct horse"))
      let notSuspended = await domainError {
        try await world.administration.liftSuspension(of: player.id, note: "", by: admin.id)
      }
      #expect(notSuspended?.reason == "PLAYER_NOT_SUSPENDED")
    }
  }

  @Test("a suspension ends by itself at its end time, by the clock", arguments: StoreKind.allCases)
  func suspension_endsByTheClock(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let admin = try await world.administrator()
      try await world.administration.suspend(
        player.id, untilUnixMs: world.clock.nowUnixMs() + 60_000, reason: "cool down",
        by: admin.id)
      let during = await rpcError {
        _ = try await world.client.players.getMyProfile(options: player.options)
      }
      #expect(during?.reason == "ACCOUNT_SUSPENDED")
      world.clock.advance(by: 60_000)
      _ = try await world.client.players.getMyProfile(options: player.options)
      // Ended: nothing left to lift.
      let lift = await domainError {
        try await world.administration.liftSuspension(of: player.id, note: "", by: admin.id)
      }
      #expect(lift?.reason == "PLAYER_NOT_SUSPENDED")
      // Housekeeping removes it; the audit log keeps it.
      #expect(try await world.store.suspension(playerID: player.id) != nil)
      try await world.sweep()
      #expect(try await world.store.suspension(playerID: player.id) == nil)
      #expect(try await world.store.auditLog(beforeID: nil, limit: 10).map(\.action) == [.suspend])
    }
  }

  @Test(
    "a suspended player's live stream ends with ACCOUNT_SUSPENDED, and a new one is refused",
    arguments: StoreKind.allCases)
  func suspension_endsStreams(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let admin = try await world.administrator()
      var stream = try await world.client.events.subscribe(options: player.options)
        .makeAsyncIterator()
      try await world.administration.suspend(
        player.id, untilUnixMs: world.clock.nowUnixMs() + Self.day, reason: "spam", by: admin.id)
      let ended = await rpcError { _ = try await stream.next() }
      #expect(ended?.reason == "ACCOUNT_SUSPENDED")
      let refused = await rpcError {
        for try await _ in try await world.client.events.subscribe(options: player.options) {}
      }
      #expect(refused?.reason == "ACCOUNT_SUSPENDED")
    }
  }

  @Test(
    "suspended players are left out of NearbyPlayers and FindMatches until lifted",
    arguments: StoreKind.allCases)
  func suspension_leftOutOfSearches(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let admin = try await world.administrator()
      let me = try await world.player(level: 5)
      let mine = try await matching.postAvailability(
        MatchingTests.request(radius: 20, tolerance: 3), options: me.options)
      var others: [(player: PlayerWorld.Player, availability: Int64)] = []
      for miles in [1.0, 2.0, 3.0] {
        let player = try await world.player(level: 5)
        let posted = try await matching.postAvailability(
          MatchingTests.request(at: MatchingTests.north(miles), radius: 20, tolerance: 3),
          options: player.options)
        others.append((player, posted.id))
        _ = try await world.client.players.updateLocation(
          .init(
            latitude: MatchingTests.north(miles).latitude,
            longitude: MatchingTests.north(miles).longitude),
          options: player.options)
      }
      _ = try await world.client.players.updateLocation(
        .init(
          latitude: MatchingTests.shanghai.latitude, longitude: MatchingTests.shanghai.longitude),
        options: me.options)
      world.clock.advance(by: 90_000)
      let suspended = others[1]
      try await world.administration.suspend(
        suspended.player.id, untilUnixMs: world.clock.nowUnixMs() + Self.day, reason: "no-shows",
        by: admin.id)

      func found() async throws -> (nearby: Set<Int64>, matches: Set<Int64>) {
        let nearby = try await world.client.players.nearbyPlayers(
          .init(pageSize: 100), options: me.options)
        let matches = try await matching.findMatches(
          .init(availabilityID: mine.id, pageSize: 100), options: me.options)
        return (Set(nearby.players.map(\.userID)), Set(matches.candidates.map(\.availabilityID)))
      }
      let during = try await found()
      #expect(during.nearby == [others[0].player.id, others[2].player.id])
      #expect(during.matches == [others[0].availability, others[2].availability])

      try await world.administration.liftSuspension(
        of: suspended.player.id, note: "", by: admin.id)
      let after = try await found()
      #expect(after.nearby == Set(others.map(\.player.id)))
      #expect(after.matches == Set(others.map(\.availability)))
    }
  }

  @Test(
    "a suspended player is taken out of their open room, and the others are told",
    arguments: StoreKind.allCases)
  func suspension_leavesTheRoom(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let admin = try await world.administrator()
      let owner = try await world.player(nickname: "Owner")
      let guest = try await world.player(nickname: "Guest")
      let room = try await world.client.rooms.createRoom(
        .init(mode: .doubles), options: owner.options)
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: guest.options)
      var events = try await world.client.events.subscribe(options: owner.options)
        .makeAsyncIterator()
      try await world.administration.suspend(
        guest.id, untilUnixMs: world.clock.nowUnixMs() + Self.day, reason: "abuse", by: admin.id)
      let after = try await world.client.rooms.getRoom(.init(), options: owner.options)
      #expect(after.participants.map(\.player.userID) == [owner.id])
      var told = false
      while !told, let event = try await events.next() {
        if case .roomChanged(let changed)? = event.body, changed.subjectID == guest.id,
          changed.room.participants.map(\.player.userID) == [owner.id]
        {
          told = true
        }
      }
      #expect(told)
      // Suspending again, now in no room, replaces the suspension.
      try await world.administration.suspend(
        guest.id, untilUnixMs: world.clock.nowUnixMs() + 2 * Self.day, reason: "again",
        by: admin.id)
      #expect(try await world.store.suspension(playerID: guest.id)?.reason == "again")
    }
  }

  @Test(
    "no proposal reaches a suspended player, and none with one in it is accepted",
    arguments: StoreKind.allCases)
  func suspension_leftOutOfProposals(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let admin = try await world.administrator()
      let (me, other, third) = (
        try await world.player(level: 5), try await world.player(level: 5),
        try await world.player(level: 5)
      )
      var slots: [Int64] = []
      for player in [me, other, third] {
        slots.append(
          try await matching.postAvailability(
            MatchingTests.request(radius: 20, tolerance: 3), options: player.options
          ).id)
      }
      // A proposal made before the suspension cannot be accepted once it holds.
      let before = try await matching.proposeMatch(
        .init(availabilityID: slots[2], candidateAvailabilityIDs: [slots[0]]),
        options: third.options)
      try await world.administration.suspend(
        third.id, untilUnixMs: world.clock.nowUnixMs() + Self.day, reason: "spam", by: admin.id)
      let accept = await rpcError {
        _ = try await matching.respondToProposal(
          .init(proposalID: before.id, accept: true), options: me.options)
      }
      #expect(accept?.reason == "CANDIDATE_UNAVAILABLE")
      // A declination still goes through.
      _ = try await matching.respondToProposal(
        .init(proposalID: before.id, accept: false), options: me.options)
      let propose = await rpcError {
        _ = try await matching.proposeMatch(
          .init(availabilityID: slots[0], candidateAvailabilityIDs: [slots[2]]),
          options: me.options)
      }
      #expect(propose?.reason == "CANDIDATE_UNAVAILABLE")
      // Everyone else goes on.
      _ = try await matching.proposeMatch(
        .init(availabilityID: slots[0], candidateAvailabilityIDs: [slots[1]]), options: me.options)
    }
  }

  @Test(
    "for any suspensions, lifts and clock times, the players searches leave out are those whose suspension holds"
  )
  func suspensionBook_holdingMatchesOracle() async {
    // (what: suspend, lift or move the clock; which player; how far).
    let steps = zip(Gen.int(in: 0...2), Gen.int(in: 1...6), Gen.int(in: -50...200))
      .array(of: 1...60)
    await propertyCheck(count: 300, input: steps) { steps in
      let book = SuspensionBook()
      var oracle: [Int64: Int64] = [:]
      var now: Int64 = 1_000
      for (kind, player, amount) in steps {
        let player = Int64(player)
        switch kind {
        case 0:
          let until = now + Int64(amount)
          book.apply(
            .suspension(
              playerID: player,
              SuspensionRecord(
                playerID: player, untilUnixMs: until, reason: "r", administratorID: 99,
                atUnixMs: now)))
          oracle[player] = until
        case 1:
          book.apply(.suspension(playerID: player, nil))
          oracle[player] = nil
        default:
          // The clock moves, mostly on, sometimes back.
          now += Int64(amount) / 2
        }
        let expected = Set(oracle.filter { $0.value > now }.keys)
        #expect(book.holding(nowUnixMs: now) == expected)
        for id in Int64(1)...6 {
          #expect(
            book.suspendedUntil(id, nowUnixMs: now) == oracle[id].flatMap { $0 > now ? $0 : nil })
        }
      }
    }
  }

  @Test(
    "suspending checks the reason, the end and the player; administrators cannot be suspended",
    arguments: StoreKind.allCases)
  func suspend_validation(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let admin = try await world.administrator()
      let now = world.clock.nowUnixMs()
      let cases: [(String, Int64, Int64, String)] = [
        ("", now + Self.day, player.id, "SUSPENSION_REASON_INVALID"),
        ("   ", now + Self.day, player.id, "SUSPENSION_REASON_INVALID"),
        (
          String(repeating: "x", count: 501), now + Self.day, player.id, "SUSPENSION_REASON_INVALID"
        ),
        ("spam", now, player.id, "SUSPENSION_END_INVALID"),
        ("spam", now + SuspensionRules.maximumDurationMs + 1, player.id, "SUSPENSION_END_INVALID"),
        ("", now - 1, player.id, "SUSPENSION_INVALID"),
        ("spam", now + Self.day, 999_999, "PLAYER_NOT_FOUND"),
        ("spam", now + Self.day, admin.id, "ADMINISTRATOR_ACTS_ON_SELF"),
      ]
      for (reason, until, id, expected) in cases {
        let error = await domainError {
          try await world.administration.suspend(
            id, untilUnixMs: until, reason: reason, by: admin.id)
        }
        #expect(error?.reason == expected, "\(reason.prefix(10)) \(until - now) \(id)")
      }
      // Another administrator, named by a restart: not suspendable by the first.
      let other = try await world.player()
      let restarted = try await restartedAdministration(world, [admin.id, other.id])
      let administrator = await domainError {
        try await restarted.suspend(
          other.id, untilUnixMs: now + Self.day, reason: "spam", by: admin.id)
      }
      #expect(administrator?.reason == "ADMINISTRATOR_NOT_SUSPENDABLE")
      #expect(try await world.store.suspension(playerID: player.id) == nil)
      #expect(try await world.store.auditLog(beforeID: nil, limit: 10).isEmpty)
      // The longest allowed end is accepted.
      try await world.administration.suspend(
        player.id, untilUnixMs: now + SuspensionRules.maximumDurationMs, reason: "x", by: admin.id)
    }
  }

  @Test(
    "an administrator suspended before a restart named them signs in to nothing, as with a wrong password and counted as a failure, until the suspension is lifted or ends by the clock",
    arguments: StoreKind.allCases)
  func suspendedAdministrator_signsInToNothing(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let admin = try await world.administrator()
      let named = try await world.player(nickname: "Named")
      // Suspended while a player; then the server restarts with both as administrators.
      try await world.administration.suspend(
        named.id, untilUnixMs: world.clock.nowUnixMs() + 7 * Self.day, reason: "abuse",
        by: admin.id)
      // Two free failures per phone, then a minute's wait.
      let throttle = LoginThrottle(
        phone: LoginThrottle.Policy(
          freeFailures: 2, firstDelayMs: 60_000, maximumDelayMs: 60_000, windowMs: 3_600_000),
        address: .unlimited, clock: world.clock)
      let restarted = try await restartedAdministration(
        world, [admin.id, named.id], loginThrottle: throttle)
      #expect(!restarted.mayAdminister(named.id))
      #expect(restarted.mayAdminister(admin.id))
      func signIn(_ password: String) async throws -> PlayerRecord? {
        try await restarted.signIn(phone: named.phone, password: password, address: "127.0.0.1")
      }
      #expect(try await signIn("correct horse") == nil)
      #expect(try await signIn("wrong horse") == nil)
      // Both counted as failures: the phone's free ones are used up.
      let throttled = await rpcError { _ = try await signIn("correct horse") }
      #expect(throttled?.reason == "TOO_MANY_LOGIN_ATTEMPTS")
      world.clock.advance(by: 60_000)

      // Lifted by the other administrator: they sign in.
      try await restarted.liftSuspension(of: named.id, note: "appeal", by: admin.id)
      #expect(restarted.mayAdminister(named.id))
      #expect(try await signIn("correct horse")?.id == named.id)

      // Suspended again on an instance that does not name them, for a minute: the feed brings
      // it, and the clock ends it.
      try await world.administration.suspend(
        named.id, untilUnixMs: world.clock.nowUnixMs() + 60_000, reason: "cool down",
        by: admin.id)
      #expect(!restarted.mayAdminister(named.id))
      #expect(try await signIn("correct horse") == nil)
      world.clock.advance(by: 60_000)
      #expect(restarted.mayAdminister(named.id))
      #expect(try await signIn("correct horse")?.id == named.id)
    }
  }

  @Test(
    "an administrator cannot suspend themself, lift their own suspension or end their own sessions, and nothing is written for the refusal",
    arguments: StoreKind.allCases)
  func administrator_cannotActOnSelf(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let admin = try await world.administrator()
      let named = try await world.player(nickname: "Named")
      let until = world.clock.nowUnixMs() + 7 * Self.day
      try await world.administration.suspend(
        named.id, untilUnixMs: until, reason: "abuse", by: admin.id)
      let restarted = try await restartedAdministration(world, [admin.id, named.id])
      let auditBefore = try await world.administration.auditLog(beforeID: nil, limit: 10)
      #expect(auditBefore.map(\.action) == [.suspend])

      var refusals: [DomainError?] = []
      for administration in [restarted, world.administration] {
        for id in [named.id, admin.id] where administration.administratorIDs.contains(id) {
          refusals.append(
            await domainError {
              try await administration.liftSuspension(of: id, note: "mine", by: id)
            })
          refusals.append(
            await domainError {
              try await administration.suspend(
                id, untilUnixMs: until + Self.day, reason: "self", by: id)
            })
          refusals.append(
            await domainError { _ = try await administration.endSessions(of: id, by: id) })
        }
      }
      #expect(refusals.count == 9)
      for refusal in refusals {
        #expect(refusal?.reason == "ADMINISTRATOR_ACTS_ON_SELF")
        #expect(refusal?.kind == .permissionDenied)
      }
      // Nothing written: the suspension, the sessions and the audit log are as they were.
      #expect(try await world.store.suspension(playerID: named.id)?.untilUnixMs == until)
      #expect(try await world.store.suspension(playerID: admin.id) == nil)
      #expect(try await world.administration.auditLog(beforeID: nil, limit: 10) == auditBefore)
      _ = try await world.client.players.getMyProfile(options: admin.options)
      #expect(try await world.administration.overview(of: named.id)?.counts.openSessions == 1)
      // Another administrator may.
      try await restarted.liftSuspension(of: named.id, note: "appeal", by: admin.id)
      #expect(restarted.mayAdminister(named.id))
    }
  }

  @Test("a server started with a suspended --admin-id says so in its log")
  func startUp_warnsOfSuspendedAdministrator() async throws {
    let dataDir = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-suspended-admin-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dataDir) }
    try FileManager.default.createDirectory(at: dataDir, withIntermediateDirectories: true)
    let until: Int64 = 4_102_444_800_000  // 2100-01-01T00:00:00Z
    let (admin, suspended): (Int64, Int64)
    do {
      let store = try SQLitePlayerStore.open(directory: dataDir.path)
      let digest = try await PasswordHasher(cost: .testing).digest("correct horse")
      func create(_ phone: String) async throws -> Int64 {
        try await store.createPlayer(
          NewPlayer(
            phone: phone, nickname: "Admin", password: digest, selfLevel: 5, locale: "en",
            joinedAtUnixMs: 0)
        ).id
      }
      admin = try await create("+8613700000001")
      suspended = try await create("+8613700000002")
      try await store.suspend(
        SuspensionRecord(
          playerID: suspended, untilUnixMs: until, reason: "abuse", administratorID: admin,
          atUnixMs: 0))
    }
    let server = try ServerProcess.start([
      "--data-dir", dataDir.path, "--log-level", "warning", "--admin-id", "\(admin)",
      "--admin-id", "\(suspended)",
    ])
    let log = server.errors
    #expect(server.stop() == 0)
    #expect(
      log.contains(
        "administrator \(suspended) is suspended until 2100-01-01T00:00:00Z: they cannot sign in "
          + "to the console until the suspension ends or another administrator lifts it"), "\(log)")
    #expect(!log.contains("administrator \(admin) is suspended"))
  }

  @Test(
    "every console action is in the audit log, newest first, paged; ending sessions ends them all",
    arguments: StoreKind.allCases)
  func auditLog_andEndSessions(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(nickname: "Target")
      let secondLogin = try await world.client.accounts.login(
        LoginRequest(phone: player.phone, password: "correct horse"))
      let admin = try await world.administrator()
      let overview = try #require(try await world.administration.overview(of: player.id))
      #expect(overview.counts.openSessions == 2 && overview.suspension == nil)

      #expect(try await world.administration.endSessions(of: player.id, by: admin.id) == 2)
      for token in [player.token, secondLogin.token] {
        let refused = await rpcError {
          _ = try await world.client.players.getMyProfile(options: CallOptions(bearerToken: token))
        }
        #expect(refused?.reason == "SESSION_INVALID")
      }
      world.clock.advance(by: 1000)
      let until = world.clock.nowUnixMs() + Self.day
      try await world.administration.suspend(
        player.id, untilUnixMs: until, reason: "threats", by: admin.id)
      #expect(
        try await world.administration.overview(of: player.id)?.suspension?.reason == "threats")
      world.clock.advance(by: 1000)
      try await world.administration.liftSuspension(of: player.id, note: "appeal", by: admin.id)

      let log = try await world.administration.auditLog(beforeID: nil, limit: 10)
      #expect(log.map(\.action) == [.liftSuspension, .suspend, .endSessions])
      #expect(log.allSatisfy { $0.administratorID == admin.id && $0.playerID == player.id })
      #expect(log[0].note == "appeal")
      #expect(log[1].note == "until \(SuspensionRules.utcText(until)) UTC: threats")
      #expect(log[2].note == "2 sessions ended")
      #expect(log.map(\.atUnixMs) == log.map(\.atUnixMs).sorted(by: >))
      let older = try await world.administration.auditLog(beforeID: log[0].id, limit: 1)
      #expect(older == [log[1]])
      #expect(try await world.administration.auditLog(beforeID: log[2].id, limit: 10).isEmpty)
    }
  }

  @Test(
    "reviews through ReviewVerification and through the console are in the audit log; a refused one is not",
    arguments: StoreKind.allCases)
  func reviews_areAudited(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let admin = try await world.administrator()
      var requests: [Int64] = []
      for _ in 0..<2 {
        requests.append(
          try await world.client.players.submitVerification(
            .init(kind: .regionalChampionship, document: pngDocument), options: owner.options
          ).id)
      }
      _ = try await world.client.players.reviewVerification(
        .init(verificationID: requests[0], approve: true, note: "looks right"),
        options: admin.options)
      try await world.administration.reviewVerification(
        id: requests[1], approve: false, note: "blurred", by: admin.id)
      // Reviewed already: refused, and nothing written.
      let again = await domainError {
        try await world.administration.reviewVerification(
          id: requests[1], approve: true, note: "", by: admin.id)
      }
      #expect(again?.reason == "VERIFICATION_ALREADY_REVIEWED")
      let log = try await world.administration.auditLog(beforeID: nil, limit: 10)
      #expect(log.map(\.action) == [.rejectVerification, .approveVerification])
      #expect(log.allSatisfy { $0.administratorID == admin.id && $0.playerID == owner.id })
      #expect(log[0].note == "request \(requests[1]), level 8: blurred")
      #expect(log[1].note == "request \(requests[0]), level 8: looks right")
      #expect(
        try await world.client.players.getMyProfile(options: owner.options).verifiedMaxLevel == 8)
    }
  }

  @Test(
    "administrators sign in to the console with their phone and password; nobody else can, and nothing tells why",
    arguments: StoreKind.allCases)
  func signIn(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(phone: PlayerWorld.newPhone())
      let admin = try await world.administration.signIn(
        phone: PlayerWorld.administratorPhone, password: PlayerWorld.administratorPassword,
        address: "127.0.0.1")
      #expect(admin?.nickname == "Admin")
      let refused = [
        (PlayerWorld.administratorPhone, "wrong horse"),
        (player.phone, "correct horse"),
        ("+8613999999999", "correct horse"),
        ("not a phone", "correct horse"),
        (PlayerWorld.administratorPhone, String(repeating: "x", count: 10_000)),
      ]
      for (phone, password) in refused {
        #expect(
          try await world.administration.signIn(
            phone: phone, password: password, address: "127.0.0.1") == nil)
      }
    }
  }

  @Test("console sign-ins count in Login's throttle under Login's address key (an IPv6 /64)")
  func signIn_sharesLoginsThrottle() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let clock = ManualClock()
    let hasher = PasswordHasher(cost: .testing)
    let admin = try await store.createPlayer(
      NewPlayer(
        phone: "+8613900000009", nickname: "Admin",
        password: try await hasher.digest("correct horse"), selfLevel: 5, locale: "en",
        joinedAtUnixMs: 0))
    let throttle = LoginThrottle(
      phone: .unlimited,
      address: LoginThrottle.Policy(
        freeFailures: 3, firstDelayMs: 1000, maximumDelayMs: 1000, windowMs: 60_000),
      clock: clock)
    let administration = Administration(
      store: store, hasher: hasher, loginThrottle: throttle, clock: clock,
      suspensions: SuspensionBook(), administratorIDs: [admin.id])
    // Three failures from three addresses of one /64 use up its free ones.
    for host in ["2001:db8::1", "2001:db8::2", "2001:db8:0:0:ffff::3"] {
      #expect(
        try await administration.signIn(
          phone: "+8613900000009", password: "wrong horse", address: host) == nil)
    }
    let refused = await rpcError {
      _ = try await administration.signIn(
        phone: "+8613900000009", password: "correct horse", address: "2001:db8::4")
    }
    #expect(refused?.reason == "TOO_MANY_LOGIN_ATTEMPTS")
    // Login's own check, for an address of the same /64, is refused the same way.
    #expect(throws: RPCError.self) {
      try throttle.admit(phone: "+8613900000008", address: clientAddressKey("2001:db8::5"))
    }
    // Another /64 goes on.
    #expect(
      try await administration.signIn(
        phone: "+8613900000009", password: "correct horse", address: "2001:db8:1::1")?.id
        == admin.id)
  }

  @Test(
    "players are found by id, phone or the start of their nickname", arguments: StoreKind.allCases)
  func findPlayers(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player(nickname: "Alice")
      let alina = try await world.player(nickname: "alina")
      let percent = try await world.player(nickname: "50%_off")
      let chinese = try await world.player(nickname: "小林")
      func ids(_ query: String) async throws -> [Int64] {
        try await world.administration.findPlayers(query).map(\.id)
      }
      #expect(try await ids("ali") == [alice.id, alina.id])
      #expect(try await ids("ALI") == [alice.id, alina.id])
      #expect(try await ids(alice.phone) == [alice.id])
      #expect(try await ids(String(alina.id)) == [alina.id])
      #expect(try await ids("50%") == [percent.id])
      // Wildcards are taken literally.
      #expect(try await ids("%").isEmpty)
      #expect(try await ids("_").isEmpty)
      #expect(try await ids("小") == [chinese.id])
      // Only ASCII letters are folded, on both engines alike.
      let accented = try await world.player(nickname: "Émile")
      #expect(try await ids("É") == [accented.id])
      #expect(try await ids("émile").isEmpty)
      #expect(try await ids("ÉMILE") == [accented.id])
      #expect(try await ids("Émi") == [accented.id])
      #expect(try await ids("").isEmpty)
      let long = await domainError {
        _ = try await world.administration.findPlayers(String(repeating: "a", count: 65))
      }
      #expect(long?.reason == "QUERY_TOO_LONG")
    }
  }
}

/// The console's operations as a server restarted on `world`'s store naming `administratorIDs`
/// would have them: its suspensions read from the store, then following its feed.
func restartedAdministration(
  _ world: PlayerWorld, _ administratorIDs: Set<Int64>, loginThrottle: LoginThrottle? = nil
) async throws -> Administration {
  let projections = try await PlayerProjections.started(
    from: world.store, nowUnixMs: world.clock.nowUnixMs())
  return Administration(
    store: world.store, hasher: PasswordHasher(cost: .testing), loginThrottle: loginThrottle,
    clock: world.clock, suspensions: projections.suspensions, administratorIDs: administratorIDs)
}

/// The `DomainError` that `body` threw, or nil.
func domainError(_ body: () async throws -> Void) async -> DomainError? {
  do {
    try await body()
    return nil
  } catch let error as DomainError {
    return error
  } catch {
    return DomainError(.invalidArgument, "NOT_A_DOMAIN_ERROR", en: "\(error)", zhCN: "\(error)")
  }
}
