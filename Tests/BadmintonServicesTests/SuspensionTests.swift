import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import BadmintonStore
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
        ("spam", now + Self.day, admin.id, "ADMINISTRATOR_NOT_SUSPENDABLE"),
      ]
      for (reason, until, id, expected) in cases {
        let error = await domainError {
          try await world.administration.suspend(
            id, untilUnixMs: until, reason: reason, by: admin.id)
        }
        #expect(error?.reason == expected, "\(reason.prefix(10)) \(until - now) \(id)")
      }
      #expect(try await world.store.suspension(playerID: player.id) == nil)
      #expect(try await world.store.auditLog(beforeID: nil, limit: 10).isEmpty)
      // The longest allowed end is accepted.
      try await world.administration.suspend(
        player.id, untilUnixMs: now + SuspensionRules.maximumDurationMs, reason: "x", by: admin.id)
    }
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
      #expect(try await ids("").isEmpty)
      let long = await domainError {
        _ = try await world.administration.findPlayers(String(repeating: "a", count: 65))
      }
      #expect(long?.reason == "QUERY_TOO_LONG")
    }
  }
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
