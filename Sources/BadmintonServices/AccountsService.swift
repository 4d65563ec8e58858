public import BadmintonAPI
import BadmintonDomain
public import BadmintonProjections
public import BadmintonRPC
public import BadmintonStore
import Logging

/// `badminton.v1.Accounts`: registration, login and logout.
public struct AccountsService: Accounts.ServiceProtocol {
  private let store: any PlayerStore
  private let hasher: PasswordHasher
  private let clock: any WallClock
  private let sessionLifetimeMs: Int64
  private let loginThrottle: LoginThrottle?
  private let registrations: AddressRateLimiter?
  private let suspensions: SuspensionBook?

  /// The service over `store`; sessions last `sessionLifetime`. Failed logins are slowed down
  /// by `loginThrottle` and registrations limited per address by `registrations`, when given;
  /// the players `suspensions` holds suspended cannot log in.
  public init(
    store: any PlayerStore, hasher: PasswordHasher, clock: any WallClock, sessionLifetime: Duration,
    loginThrottle: LoginThrottle? = nil, registrations: AddressRateLimiter? = nil,
    suspensions: SuspensionBook? = nil
  ) {
    self.suspensions = suspensions
    self.store = store
    self.hasher = hasher
    self.clock = clock
    self.sessionLifetimeMs = sessionLifetime.components.seconds * 1000
    self.loginThrottle = loginThrottle
    self.registrations = registrations
  }

  /// Wrong phone or wrong password: the same answer for both.
  static let invalidCredentials = DomainError(
    .unauthenticated, "INVALID_CREDENTIALS", en: "The phone number or password is wrong.",
    zhCN: "手机号或密码错误。")

  public func register(_ request: RegisterRequest, context: ServerContext) async throws
    -> RegisterResponse
  {
    let phone = try PlayerRules.validatePhone(request.phone)
    let nickname = try PlayerRules.validateNickname(request.nickname)
    try PlayerRules.validatePassword(request.password)
    try PlayerRules.validateSelfLevel(Int(request.selfLevel))
    let locale = try PlayerRules.validateLocale(request.locale)
    // Counted before any work, and whether or not the phone turns out to be taken, so that
    // asking which phones have accounts costs a registration each.
    let address = clientAddressKey(context.peerAddress)
    try registrations?.take(address)
    // The digest is made before the store is asked, so PHONE_TAKEN costs the same work as a
    // registration that succeeds.
    let digest: PasswordDigest
    do {
      digest = try await hasher.digest(request.password)
    } catch {
      // Refused as busy (or cancelled) before the store was asked: the call did nothing and
      // learned nothing, so it does not count.
      registrations?.giveBack(address)
      throw error
    }
    let player = try await store.createPlayer(
      NewPlayer(
        phone: phone, nickname: nickname, password: digest, selfLevel: Int(request.selfLevel),
        locale: locale, joinedAtUnixMs: clock.nowUnixMs()))
    hasher.stored(digest)
    context.logger.info("registered", metadata: ["user": "\(player.id)"])
    return RegisterResponse(userID: player.id)
  }

  public func login(_ request: LoginRequest, context: ServerContext) async throws -> LoginResponse {
    // No stored password is longer, and a longer one would only make the server work harder.
    guard PlayerRules.isWithinPasswordLimits(request.password) else {
      throw Self.invalidCredentials
    }
    let address = clientAddressKey(context.peerAddress)
    try loginThrottle?.admit(phone: request.phone, address: address)
    let player: PlayerRecord
    do {
      player = try await checkedPlayer(request)
    } catch let error as DomainError where error.reason == Self.invalidCredentials.reason {
      throw error
    } catch {
      // The password was never checked: the attempt does not count.
      loginThrottle?.notChecked(phone: request.phone, address: address)
      throw error
    }
    loginThrottle?.succeeded(phone: request.phone, address: address)
    // Told only to whoever knows the password, so that it says nothing of other accounts.
    if let until = suspensions?.suspendedUntil(player.id, nowUnixMs: clock.nowUnixMs()) {
      throw SuspensionRules.accountSuspended(untilUnixMs: until)
    }
    if hasher.needsNewDigest(player.password) {
      // Made again at the configured cost while the password is at hand, so that the stored
      // digests (and the work an unknown phone costs) follow the operator's cost. Best effort:
      // a busy queue or a failed write leaves the old digest, which still works.
      if let digest = try? await hasher.digest(request.password),
        (try? await store.replacePassword(id: player.id, current: player.password, with: digest))
          == true
      {
        hasher.replaced(player.password, with: digest)
      }
    }
    let token = SessionToken.generate()
    let now = clock.nowUnixMs()
    let session = SessionRecord(
      tokenHash: SessionToken.hash(token), playerID: player.id, createdAtUnixMs: now,
      expiresAtUnixMs: now + sessionLifetimeMs)
    try await store.createSession(session)
    return LoginResponse(token: token, userID: player.id, expiresAtUnixMs: session.expiresAtUnixMs)
  }

  /// The player whose phone and password `request` names; `INVALID_CREDENTIALS` otherwise,
  /// after the same password work either way.
  private func checkedPlayer(_ request: LoginRequest) async throws -> PlayerRecord {
    try await Self.checkedPlayer(
      phone: request.phone, password: request.password, store: store, hasher: hasher)
  }

  /// The player whose phone and password these are; `INVALID_CREDENTIALS` otherwise, after the
  /// same password work either way. Login and the operator console's sign-in both check so.
  static func checkedPlayer(
    phone: String, password: String, store: any PlayerStore, hasher: PasswordHasher
  ) async throws -> PlayerRecord {
    // A phone no registration could have stored is an unknown phone, answered without asking
    // the store (whose database may refuse such text outright, U+0000 on PostgreSQL): it
    // costs a password check and counts against the throttle like any unknown phone.
    let storable = (try? PlayerRules.validatePhone(phone)) != nil
    guard storable, let player = try await store.player(phone: phone) else {
      try await hasher.verifyNothing(password, phone: phone)
      throw Self.invalidCredentials
    }
    guard try await hasher.verify(password, against: player.password) else {
      throw Self.invalidCredentials
    }
    return player
  }

  public func logout(_ request: LogoutRequest, context: ServerContext) async throws
    -> LogoutResponse
  {
    _ = try context.requirePrincipal()
    if let token = context.bearerToken {
      try await store.deleteSession(tokenHash: SessionToken.hash(token))
    }
    return LogoutResponse()
  }
}
