import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Logging
import StoreTestSupport
import Testing

@Suite("Accounts and sessions")
struct AccountsTests {
  @Test(
    "register, log in, call as yourself, log out; the token then stops working",
    arguments: StoreKind.allCases)
  func sessionLifecycle(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let phone = PlayerWorld.newPhone()
      let registered = try await world.client.accounts.register(
        RegisterRequest(
          phone: phone, nickname: "  小林  ", password: "shuttlecock", selfLevel: 5, locale: "zh-CN"))
      let login = try await world.client.accounts.login(
        LoginRequest(phone: phone, password: "shuttlecock"))
      #expect(login.userID == registered.userID)
      #expect(login.token.count == 64)
      #expect(login.token.allSatisfy { $0.isHexDigit })
      #expect(login.expiresAtUnixMs == world.clock.nowUnixMs() + 30 * 24 * 3600 * 1000)

      let options = CallOptions(bearerToken: login.token)
      let me = try await world.client.players.getMyProfile(options: options)
      #expect(me.userID == registered.userID)
      #expect(me.nickname == "小林")
      #expect(me.phone == phone)
      #expect(me.locale == "zh-CN")
      #expect(me.selfLevel == 5 && me.displayLevel == 5 && me.newPlayer)
      #expect(me.reputation == ReputationSummary.empty)

      _ = try await world.client.accounts.logout(options: options)
      let after = await rpcError {
        _ = try await world.client.players.getMyProfile(options: options)
      }
      #expect(after?.code == .unauthenticated)
      #expect(after?.reason == "SESSION_INVALID")
    }
  }

  @Test("the password is stored only as a salted scrypt digest", arguments: StoreKind.allCases)
  func password_isNotStored(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let a = try await world.player(password: "same password")
      let b = try await world.player(password: "same password")
      let storedA = try #require(try await world.store.player(id: a.id))
      let storedB = try #require(try await world.store.player(id: b.id))
      #expect(storedA.password.parameters.hasPrefix("scrypt:"))
      #expect(storedA.password.hash.count == 32)
      #expect(storedA.password.salt != storedB.password.salt)
      #expect(storedA.password.hash != storedB.password.hash)
      #expect(!storedA.password.hash.elementsEqual(Array("same password".utf8)))
    }
  }

  @Test("a wrong phone and a wrong password get the same error", arguments: StoreKind.allCases)
  func wrongCredentials_lookAlike(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(password: "right password")
      let wrongPassword = await rpcError {
        _ = try await world.client.accounts.login(
          LoginRequest(phone: player.phone, password: "wrong password"))
      }
      let wrongPhone = await rpcError {
        _ = try await world.client.accounts.login(
          LoginRequest(phone: "+8613700000001", password: "right password"))
      }
      #expect(wrongPassword?.code == .unauthenticated)
      #expect(wrongPassword?.reason == "INVALID_CREDENTIALS")
      #expect(wrongPassword == wrongPhone)
    }
  }

  @Test(
    "registration refuses bad input with a reason per field, and a phone twice",
    arguments: StoreKind.allCases)
  func register_validation(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      func reason(_ request: RegisterRequest, locale: RPCLocale = .en) async -> RPCError? {
        await rpcError {
          _ = try await world.client.accounts.register(
            request, options: CallOptions(locale: locale))
        }
      }
      let good = RegisterRequest(
        phone: PlayerWorld.newPhone(), nickname: "Ann", password: "12345678", selfLevel: 3)
      var request = good
      request.phone = "13800138000"
      #expect(await reason(request)?.reason == "PHONE_INVALID")
      request = good
      request.nickname = String(repeating: "n", count: 31)
      #expect(await reason(request)?.violations.first?.field == "nickname")
      request = good
      request.password = "short"
      #expect(await reason(request)?.reason == "PASSWORD_TOO_SHORT")
      request = good
      request.locale = "de"
      #expect(await reason(request)?.reason == "LOCALE_UNSUPPORTED")
      request = good
      request.selfLevel = 0
      #expect(await reason(request)?.reason == "SKILL_LEVEL_OUT_OF_RANGE")
      for level: Int32 in [8, 9] {
        request = good
        request.selfLevel = level
        let refused = await reason(request, locale: .zhCN)
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.reason == "SKILL_LEVEL_REQUIRES_VERIFICATION")
        #expect(refused?.message.en == "8-9级需要赛事认证，请选择1-7级")
      }
      _ = try await world.client.accounts.register(good)
      let twice = await reason(good)
      #expect(twice?.code == .alreadyExists)
      #expect(twice?.reason == "PHONE_TAKEN")
    }
  }

  @Test("a session expires after its lifetime", arguments: StoreKind.allCases)
  func session_expires(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      _ = try await world.client.players.getMyProfile(options: player.options)
      world.clock.advance(by: 30 * 24 * 3600 * 1000)
      let expired = await rpcError {
        _ = try await world.client.players.getMyProfile(options: player.options)
      }
      #expect(expired?.reason == "SESSION_INVALID")
    }
  }

  @Test("logging out ends only the session that logs out", arguments: StoreKind.allCases)
  func logout_endsOnlyItsSession(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(password: "password one")
      let second = try await world.client.accounts.login(
        LoginRequest(phone: player.phone, password: "password one"))
      let other = try await world.player()
      _ = try await world.client.accounts.logout(options: CallOptions(bearerToken: second.token))
      _ = try await world.client.players.getMyProfile(options: player.options)
      _ = try await world.client.players.getMyProfile(options: other.options)
    }
  }
}

@Suite("Administrators")
struct AdministratorTests {
  @Test(
    "the services refuse to start naming an administrator who is not a registered player",
    arguments: StoreKind.allCases)
  func unknownAdministrator_stopsStart(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      await #expect(throws: PlayerServicesError.unknownAdministrator(1)) {
        _ = try await PlayerServices.start(
          store: store,
          configuration: PlayerServicesConfiguration(
            passwordCost: .testing, administratorIDs: [1]))
      }
    }
  }

  @Test(
    "only the player whose id is named reviews; registering the same-looking account does not",
    arguments: StoreKind.allCases)
  func administrator_isTheNamedID(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let admin = try await world.administrator()
      let other = try await world.player(phone: PlayerWorld.newPhone(), nickname: "Admin")
      #expect(
        try await world.client.players.listPendingVerifications(.init(), options: admin.options)
          .verifications.isEmpty)
      let refused = await rpcError {
        _ = try await world.client.players.listPendingVerifications(.init(), options: other.options)
      }
      #expect(refused?.reason == "ADMINISTRATOR_ONLY")
    }
  }
}

@Suite("Housekeeping")
struct HousekeepingTests {
  @Test("a sweep removes exactly the expired sessions", arguments: StoreKind.allCases)
  func sweep_removesExpired(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let early = try await world.player()
      world.clock.advance(by: 10 * 24 * 3600 * 1000)
      let late = try await world.player()
      world.clock.advance(by: 25 * 24 * 3600 * 1000)  // early's session is now 35 days old
      let sweeper = Housekeeping(
        store: world.store, clock: world.clock, logger: Logger(label: "test"))
      #expect(try await sweeper.sweep().sessions == 1)
      #expect(try await world.store.session(tokenHash: SessionToken.hash(early.token)) == nil)
      #expect(try await world.store.session(tokenHash: SessionToken.hash(late.token)) != nil)
      #expect(try await sweeper.sweep().sessions == 0)
    }
  }
}
