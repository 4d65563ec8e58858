import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Logging
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

/// A key derivation whose work the test holds: each call waits at the gate until the test lets
/// it through, then returns a cheap deterministic key. Records the cost of every call.
final class GatedDerivation: PasswordDerivation {
  private struct State {
    var started = 0
    var finished = 0
    var open = false
    var waiting: [CheckedContinuation<Void, Never>] = []
    var costs: [PasswordHasher.Cost] = []
  }

  private let state: Mutex<State>

  /// A derivation whose gate starts `open` or shut.
  init(open: Bool) { state = Mutex(State(open: open)) }

  func derive(_ password: [UInt8], salt: [UInt8], cost: PasswordHasher.Cost) async throws
    -> [UInt8]
  {
    await withCheckedContinuation { continuation in
      let go = state.withLock { state -> Bool in
        state.started += 1
        state.costs.append(cost)
        if state.open { return true }
        state.waiting.append(continuation)
        return false
      }
      if go { continuation.resume() }
    }
    state.withLock { $0.finished += 1 }
    let key = password + salt + [UInt8(truncatingIfNeeded: cost.rounds)]
    return Array((key + Array(repeating: 0, count: 32)).prefix(32))
  }

  /// Lets the oldest waiting call finish its work.
  func releaseOne() {
    let next = state.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }
    next?.resume()
  }

  /// Lets every call through from now on.
  func open() {
    let all = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.open = true
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in all { continuation.resume() }
  }

  var started: Int { state.withLock { $0.started } }
  var finished: Int { state.withLock { $0.finished } }
  var costs: [PasswordHasher.Cost] { state.withLock { $0.costs } }
}

/// A count that tasks running at once may add to.
final class Tally: Sendable {
  private let count = Mutex(0)

  /// Adds one.
  func add() { count.withLock { $0 += 1 } }

  /// The count now.
  var value: Int { count.withLock { $0 } }
}

/// Waits until `condition` holds, yielding first; fails the test when it never does.
func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation)
  async throws
{
  for _ in 0..<1_000 where !condition() { await Task.yield() }
  // A condition that waits on the store (a login reads the player first) may take a round trip
  // to the database: polled until then. The bound only ends a failure.
  let deadline = ContinuousClock.now + .seconds(60)
  while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
  try #require(condition(), sourceLocation: sourceLocation)
}

/// The error `body` threw as a caller would see it (a domain error as its status), or nil.
func refusal(_ body: () async throws -> Void) async -> RPCError? {
  do {
    try await body()
    return nil
  } catch let error as any RPCErrorConvertible {
    return error.rpcError
  } catch {
    return RPCError(
      code: .unknown, reason: "NOT_AN_RPC_ERROR", message: .init(verbatim: "\(error)"))
  }
}

/// A call context from `address`.
func context(from address: String, method: String = "/test", principal: Principal? = nil)
  -> ServerContext
{
  ServerContext(
    callID: 1, method: method, metadata: [], deadline: nil, peer: "[IPv4]\(address):40000",
    logger: Logger(label: "test"), principal: principal)
}

@Suite("Limits on password work, failed logins, registrations and uploads")
struct AccountLimitsTests {
  static let password = "correct horse"

  /// An accounts service on `store` whose password work goes through `derivation`, with one
  /// registered player whose phone it returns.
  static func accounts(
    on store: any ServerStore, derivation: GatedDerivation, queue: PasswordHashingQueue,
    clock: ManualClock,
    throttle: LoginThrottle? = nil, registrations: AddressRateLimiter? = nil
  ) async throws -> (AccountsService, phone: String) {
    let hasher = PasswordHasher(cost: .testing, queue: queue, derivation: derivation)
    let phone = PlayerWorld.newPhone()
    derivation.open()
    _ = try await store.createPlayer(
      NewPlayer(
        phone: phone, nickname: "Ann", password: try await hasher.digest(password), selfLevel: 4,
        locale: "en", joinedAtUnixMs: clock.nowUnixMs()))
    let service = AccountsService(
      store: store, hasher: hasher, clock: clock, sessionLifetime: .seconds(3600),
      loginThrottle: throttle, registrations: registrations)
    return (service, phone)
  }

  // MARK: The hashing queue

  @Test(
    "a full hashing queue refuses more logins at once; a waiting login gets the next slot",
    arguments: StoreKind.allCases)
  func hashingQueue_refusesExcess(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      try await withStore(kind) { empty in
        let derivation = GatedDerivation(open: false)
        let queue = PasswordHashingQueue(slots: 2, maximumWaiting: 1)
        let (service, phone) = try await Self.accounts(
          on: store, derivation: GatedDerivation(open: true), queue: queue, clock: ManualClock())
        _ = service
        // The same queue, with work the test holds, on a store where the phone is unknown.
        let gated = AccountsService(
          store: empty,
          hasher: PasswordHasher(
            cost: .testing, queue: queue, derivation: derivation), clock: ManualClock(),
          sessionLifetime: .seconds(3600))
        let flood = (0..<2).map { _ in
          Task {
            try await gated.login(
              LoginRequest(phone: "+8613700000009", password: "guess guess"),
              context: context(from: "198.51.100.7"))
          }
        }
        try await eventually { derivation.started == 2 }
        #expect(queue.running == 2)
        // The player's own login waits in the line.
        let real = Task {
          try await gated.login(
            LoginRequest(phone: phone, password: Self.password), context: context(from: "192.0.2.1")
          )
        }
        try await eventually { queue.waiting == 1 }
        // Everything past the slots and the line is refused at once, before any work.
        for _ in 0..<5 {
          let refused = await refusal {
            _ = try await gated.login(
              LoginRequest(phone: "+8613700000009", password: "guess guess"),
              context: context(from: "198.51.100.7"))
          }
          #expect(refused?.code == .resourceExhausted)
          #expect(refused?.reason == "PASSWORD_HASHING_BUSY")
          #expect(refused?.retryAfter == .milliseconds(1000))
          #expect(refused?.violations == [], "the hint is no longer smuggled as a violation")
        }
        #expect(derivation.started == 2)
        // A slot frees: the waiting login takes it.
        derivation.releaseOne()
        try await eventually { derivation.started == 3 }
        #expect(queue.waiting == 0)
        derivation.open()
        for attempt in flood {
          let error = await refusal { _ = try await attempt.value }
          #expect(error?.reason == "INVALID_CREDENTIALS")
        }
        // The player was registered in the other store: here the phone is unknown, so the answer
        // is the uniform one, after the real work.
        let answer = await refusal { _ = try await real.value }
        #expect(answer?.reason == "INVALID_CREDENTIALS")
        #expect(queue.running == 0)
      }
    }
  }

  @Test("a cancelled login keeps its hashing slot until the work has finished")
  func hashingQueue_holdsSlotOfCancelledCall() async throws {
    let derivation = GatedDerivation(open: false)
    let queue = PasswordHashingQueue(slots: 1, maximumWaiting: 0)
    let hasher = PasswordHasher(cost: .testing, queue: queue, derivation: derivation)
    let call = Task { try await hasher.verifyNothing("guess guess", phone: "+8613700000009") }
    try await eventually { derivation.started == 1 }
    call.cancel()
    for _ in 0..<100 { await Task.yield() }
    #expect(queue.running == 1)
    let refused = await refusal {
      try await hasher.verifyNothing("another one", phone: "+8613700000009")
    }
    #expect(refused?.reason == "PASSWORD_HASHING_BUSY")
    derivation.releaseOne()
    _ = try? await call.value
    #expect(derivation.finished == 1)
    #expect(queue.running == 0)
    derivation.open()
    try await hasher.verifyNothing("now there is room", phone: "+8613700000009")
  }

  @Test(
    "a real login succeeds through a queue that is refusing a flood", arguments: StoreKind.allCases)
  func hashingQueue_realLoginGetsThrough(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let derivation = GatedDerivation(open: true)
      let queue = PasswordHashingQueue(slots: 1, maximumWaiting: 0)
      let (service, phone) = try await Self.accounts(
        on: store, derivation: derivation, queue: queue, clock: ManualClock())
      let login = try await service.login(
        LoginRequest(phone: phone, password: Self.password), context: context(from: "192.0.2.1"))
      #expect(!login.token.isEmpty)
    }
  }

  @Test("callers that arrive together never make the waiting line longer than its limit")
  func hashingQueue_lineNeverOvershoots() async throws {
    // The callers race on the cooperative threads; many rounds give them many chances to meet
    // between deciding to wait and joining the line.
    for _ in 0..<500 {
      let queue = PasswordHashingQueue(slots: 1, maximumWaiting: 2)
      let holder = GatedDerivation(open: false)
      let hasher = PasswordHasher(cost: .testing, queue: queue, derivation: holder)
      let hold = Task { try await hasher.verifyNothing("held", phone: "+8613700000009") }
      try await eventually { holder.started == 1 }
      let refused = Tally()
      let callers = (0..<16).map { _ in
        Task.detached {
          if await refusal({ try await hasher.verifyNothing("guess", phone: "+8613700000009") })
            != nil
          {
            refused.add()
          }
        }
      }
      try await eventually { refused.value + queue.waiting == 16 }
      let waiting = queue.waiting
      #expect(waiting == 2)
      #expect(refused.value == 14)
      holder.open()
      try await hold.value
      for caller in callers { await caller.value }
      #expect(queue.running == 0)
      if waiting != 2 { break }
    }
  }

  // MARK: Failed logins

  @Test(
    "failed logins for one phone are slowed down progressively, and a success resets them",
    arguments: StoreKind.allCases)
  func loginThrottle_perPhone(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let derivation = GatedDerivation(open: true)
      let (service, phone) = try await Self.accounts(
        on: store, derivation: derivation, queue: PasswordHashingQueue(slots: 1, maximumWaiting: 0),
        clock: clock, throttle: LoginThrottle(clock: clock))
      func login(_ password: String, from address: String) async -> RPCError? {
        await refusal {
          _ = try await service.login(
            LoginRequest(phone: phone, password: password), context: context(from: address))
        }
      }
      // Five free failures, each from another address.
      for attempt in 0..<5 {
        #expect(
          await login("wrong guess", from: "198.51.100.\(attempt)")?.reason == "INVALID_CREDENTIALS"
        )
      }
      var expectedWait: Int64 = 1000
      for attempt in 5..<12 {
        let before = derivation.started
        // Even the right password waits out the delay, or the delay would not slow guesses.
        let early = await login(Self.password, from: "203.0.113.\(attempt)")
        #expect(early?.code == .resourceExhausted)
        #expect(early?.reason == "TOO_MANY_LOGIN_ATTEMPTS")
        #expect(early?.retryAfter == .milliseconds(expectedWait))
        #expect(derivation.started == before, "a refused attempt does no password work")
        clock.advance(by: expectedWait - 1)
        #expect(
          await login("wrong guess", from: "198.51.100.\(attempt)")?.reason
            == "TOO_MANY_LOGIN_ATTEMPTS")
        clock.advance(by: 1)
        #expect(
          await login("wrong guess", from: "198.51.100.\(attempt)")?.reason == "INVALID_CREDENTIALS"
        )
        expectedWait = min(expectedWait * 2, 60_000)
      }
      // The delay a stranger can impose on the owner is capped at a minute.
      for attempt in 12..<20 {
        clock.advance(by: 60_000)
        #expect(
          await login("wrong guess", from: "198.51.100.\(attempt)")?.reason == "INVALID_CREDENTIALS"
        )
      }
      #expect(
        (await login(Self.password, from: "192.0.2.1"))?.retryAfter == .milliseconds(60_000))
      clock.advance(by: 60_000)
      #expect(await login(Self.password, from: "192.0.2.1") == nil)
      // The success cleared the phone's count: the next failures are free again.
      for _ in 0..<5 {
        #expect(await login("wrong guess", from: "192.0.2.1")?.reason == "INVALID_CREDENTIALS")
      }
    }
  }

  @Test(
    "a login with a phone no registration could store (U+0000 in it) is an unknown phone: refused, counted, throttled, without asking the database",
    arguments: StoreKind.allCases)
  func loginThrottle_unstorablePhone(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let service = AccountsService(
        store: store,
        hasher: PasswordHasher(
          cost: .testing, queue: PasswordHashingQueue(slots: 1, maximumWaiting: 0),
          derivation: GatedDerivation(open: true)),
        clock: clock, sessionLifetime: .seconds(3600), loginThrottle: LoginThrottle(clock: clock))
      var reasons: [String] = []
      for attempt in 0..<8 {
        let refused = await refusal {
          _ = try await service.login(
            LoginRequest(phone: "+86138\u{0}0013800", password: "guess"),
            context: context(from: "198.51.100.\(attempt)"))
        }
        reasons.append(refused?.reason ?? "OK")
      }
      // PostgreSQL refuses U+0000 in text: asked, it would fail the call, and the attempt would be
      // given back to the throttle, so one address could make the database work without end.
      #expect(
        reasons == Array(repeating: "INVALID_CREDENTIALS", count: 5)
          + Array(repeating: "TOO_MANY_LOGIN_ATTEMPTS", count: 3))
    }
  }

  @Test(
    "logins sent together count from the moment they are admitted, not when they fail",
    arguments: StoreKind.allCases)
  func loginThrottle_countsAttemptsInFlight(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      try await withStore(kind) { empty in
        let clock = ManualClock()
        let derivation = GatedDerivation(open: false)
        let queue = PasswordHashingQueue(slots: 64, maximumWaiting: 0)
        let throttle = LoginThrottle(clock: clock)
        let (_, phone) = try await Self.accounts(
          on: store, derivation: derivation, queue: queue, clock: clock, throttle: throttle)
        // `accounts` opened the gate to register; the burst goes through a gate of its own, to a
        // service over an empty store: there the phone is unknown, and the throttle counts it all
        // the same, so its answers say nothing of whether a phone has an account.
        let gated = GatedDerivation(open: false)
        let burstService = AccountsService(
          store: empty,
          hasher: PasswordHasher(cost: .testing, queue: queue, derivation: gated), clock: clock,
          sessionLifetime: .seconds(3600), loginThrottle: throttle)
        let burst = (0..<50).map { index in
          Task {
            await refusal {
              _ = try await burstService.login(
                LoginRequest(phone: phone, password: "guess \(index)"),
                context: context(from: "198.51.100.\(index)"))
            }
          }
        }
        try await eventually { gated.started == 5 }
        for _ in 0..<100 { await Task.yield() }
        gated.open()
        var reasons: [String: Int] = [:]
        for attempt in burst { reasons[await attempt.value?.reason ?? "OK", default: 0] += 1 }
        #expect(reasons == ["INVALID_CREDENTIALS": 5, "TOO_MANY_LOGIN_ATTEMPTS": 45])
        #expect(gated.started == 5)
      }
    }
  }

  @Test(
    "an attempt refused by the hashing queue does not count as a failure",
    arguments: StoreKind.allCases)
  func loginThrottle_busyDoesNotCount(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let derivation = GatedDerivation(open: true)
      let queue = PasswordHashingQueue(slots: 1, maximumWaiting: 0)
      let throttle = LoginThrottle(clock: clock)
      let (service, phone) = try await Self.accounts(
        on: store, derivation: derivation, queue: queue, clock: clock, throttle: throttle)
      let holder = GatedDerivation(open: false)
      let hold = Task {
        try await PasswordHasher(cost: .testing, queue: queue, derivation: holder).verifyNothing(
          "x", phone: "+8613700000009")
      }
      try await eventually { holder.started == 1 }
      for _ in 0..<10 {
        let busy = await refusal {
          _ = try await service.login(
            LoginRequest(phone: phone, password: "wrong guess"), context: context(from: "192.0.2.1")
          )
        }
        #expect(busy?.reason == "PASSWORD_HASHING_BUSY")
      }
      holder.open()
      try await hold.value
      #expect(throttle.counts == (phones: 0, addresses: 0))
      _ = try await service.login(
        LoginRequest(phone: phone, password: Self.password), context: context(from: "192.0.2.1"))
    }
  }

  @Test("failures are forgotten after the window")
  func loginThrottle_window() async throws {
    let clock = ManualClock()
    let throttle = LoginThrottle(clock: clock)
    for _ in 0..<5 { try throttle.admit(phone: "+8613800000001", address: "192.0.2.1") }
    #expect(throws: RPCError.self) { try throttle.admit(phone: "+8613800000001", address: "x") }
    clock.advance(by: 15 * 60_000)
    // The old failures are forgotten: five more are free.
    for _ in 0..<5 { try throttle.admit(phone: "+8613800000001", address: "192.0.2.1") }
    #expect(throws: RPCError.self) { try throttle.admit(phone: "+8613800000001", address: "x") }
  }

  @Test(
    "failed logins from one address are slowed down across phones; other addresses are not",
    arguments: StoreKind.allCases)
  func loginThrottle_perAddress(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let (service, _) = try await Self.accounts(
        on: store, derivation: GatedDerivation(open: true),
        queue: PasswordHashingQueue(slots: 1, maximumWaiting: 0), clock: clock,
        throttle: LoginThrottle(clock: clock))
      func login(phone: String, from address: String) async -> RPCError? {
        await refusal {
          _ = try await service.login(
            LoginRequest(phone: phone, password: "wrong guess"), context: context(from: address))
        }
      }
      for _ in 0..<20 {
        let failed = await login(phone: PlayerWorld.newPhone(), from: "198.51.100.7")
        #expect(failed?.reason == "INVALID_CREDENTIALS", "\(String(describing: failed))")
      }
      let refused = await login(phone: PlayerWorld.newPhone(), from: "198.51.100.7")
      #expect(refused?.reason == "TOO_MANY_LOGIN_ATTEMPTS")
      #expect(refused?.retryAfter == .milliseconds(1000))
      #expect(
        await login(phone: PlayerWorld.newPhone(), from: "198.51.100.8")?.reason
          == "INVALID_CREDENTIALS")
      // The address's delay keeps doubling past the phone's cap.
      var wait: Int64 = 1000
      for _ in 0..<10 {
        clock.advance(by: wait)
        let failed = await login(phone: PlayerWorld.newPhone(), from: "198.51.100.7")
        #expect(failed?.reason == "INVALID_CREDENTIALS", "\(String(describing: failed))")
        wait *= 2
      }
      let later = await login(phone: PlayerWorld.newPhone(), from: "198.51.100.7")
      #expect(later?.retryAfter == .milliseconds(15 * 60_000))
    }
  }

  @Test("the failure tables hold at most their capacity")
  func loginThrottle_isBounded() throws {
    let clock = ManualClock()
    let throttle = LoginThrottle(maximumEntries: 100, clock: clock)
    for index in 0..<1000 {
      clock.advance(by: 1)
      try throttle.admit(phone: "+86138\(index)", address: "10.0.\(index / 256).\(index % 256)")
    }
    // A full table frees a tenth of itself at once.
    #expect((90...100).contains(throttle.counts.phones))
    #expect((90...100).contains(throttle.counts.addresses))
    try throttle.admit(phone: String(repeating: "9", count: 10_000), address: "10.1.0.0")
    #expect(throttle.counts.phones <= 100)
  }

  @Test("a full failure table evicts in batches, so a flood of new keys costs few passes")
  func loginThrottle_evictsInBatches() throws {
    let clock = ManualClock()
    let throttle = LoginThrottle(maximumEntries: 100, clock: clock)
    for index in 0..<1000 {
      clock.advance(by: 1)
      try throttle.admit(phone: "+86138\(index)", address: "10.0.\(index / 256).\(index % 256)")
      #expect(throttle.counts.phones <= 100)
      #expect(throttle.counts.addresses <= 100)
    }
    // 900 keys past the capacity, at least 10 freed by every pass: at most 90 passes a table.
    #expect(throttle.evictionPasses <= 2 * 90)
    #expect(throttle.evictionPasses >= 2 * 80)
    // What a pass keeps is the newest: the last key's failures still count.
    for _ in 0..<4 { try throttle.admit(phone: "+86138999", address: "192.0.2.1") }
    #expect(throws: RPCError.self) {
      try throttle.admit(phone: "+86138999", address: "192.0.2.2")
    }
  }

  @Test("a full address table evicts in batches, so a flood of new addresses costs few passes")
  func addressLimiter_evictsInBatches() throws {
    let clock = ManualClock()
    let limiter = AddressRateLimiter(
      limit: 10, periodMs: 3_600_000, reason: "REGISTRATION_RATE_LIMITED",
      action: LocalizedText(en: "registrations", zhCN: "注册"), maximumEntries: 100, clock: clock)
    for index in 0..<1000 {
      clock.advance(by: 1)
      try limiter.take("10.0.\(index / 256).\(index % 256)")
      #expect(limiter.count <= 100)
    }
    #expect(limiter.evictionPasses <= 90)
    #expect(limiter.count >= 90)
  }

  // MARK: Dummy work

  @Test(
    "the cost an unknown phone costs does not follow the digests other logins verified",
    arguments: StoreKind.allCases)
  func dummyWork_notSteeredByOtherLogins(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let derivation = GatedDerivation(open: true)
      let queue = PasswordHashingQueue(slots: 1, maximumWaiting: 0)
      // Digests at three costs: the operator changed the cost twice.
      var owners: [String] = []
      for rounds in [1 << 5, 1 << 6, 1 << 4] {
        let cost = PasswordHasher.Cost(rounds: rounds, blockSize: 1, parallelism: 1)
        let phone = PlayerWorld.newPhone()
        _ = try await store.createPlayer(
          NewPlayer(
            phone: phone, nickname: "Ann",
            password: try await PasswordHasher(cost: cost, queue: queue, derivation: derivation)
              .digest(Self.password), selfLevel: 4, locale: "en", joinedAtUnixMs: 0))
        owners.append(phone)
      }
      let hasher = PasswordHasher(cost: .testing, queue: queue, derivation: derivation)
      try await hasher.loadStoredCosts(from: store)
      #expect(hasher.storedDigestCosts.count == 3)
      let service = AccountsService(
        store: store, hasher: hasher, clock: ManualClock(), sessionLifetime: .seconds(3600))
      let unknown = (0..<20).map { "+86137000\(String(1000 + $0))" }
      func costs(of phones: [String]) async -> [PasswordHasher.Cost] {
        var costs: [PasswordHasher.Cost] = []
        for phone in phones {
          _ = await refusal {
            _ = try await service.login(
              LoginRequest(phone: phone, password: "wrong guess"),
              context: context(from: "192.0.2.1")
            )
          }
          costs.append(derivation.costs.last!)
        }
        return costs
      }
      let first = await costs(of: unknown)
      #expect(Set(first).isSubset(of: hasher.storedDigestCosts.keys))
      // Failing a login on an account of each cost, then asking again, gives every unknown phone
      // the cost it had.
      for owner in owners + owners.reversed() {
        _ = await costs(of: [owner])
        #expect(await costs(of: unknown) == first)
      }
      // So does a successful login at the configured cost.
      _ = try await service.login(
        LoginRequest(phone: owners[2], password: Self.password), context: context(from: "192.0.2.1")
      )
      #expect(await costs(of: unknown) == first)
      #expect(unknown.map(hasher.dummyCost(for:)) == first)
    }
  }

  @Test("for any counts of digests per cost, a cost whose count grows only draws phones to it")
  func dummyWork_choiceFollowsCounts() async {
    let counts = zip(Gen.int(in: 0...6), Gen.int(in: 0...6), Gen.int(in: 1...6))
    await propertyCheck(count: 30, input: counts) { drawn in
      let (a, b, growth) = drawn
      let hasher = PasswordHasher(
        cost: .testing, queue: PasswordHashingQueue(slots: 1, maximumWaiting: 0),
        derivation: GatedDerivation(open: true))
      func digest(_ rounds: Int) -> PasswordDigest {
        PasswordDigest(hash: [], salt: [], parameters: "scrypt:\(rounds):1:1")
      }
      let costA = PasswordHasher.Cost(rounds: 32, blockSize: 1, parallelism: 1)
      let costB = PasswordHasher.Cost(rounds: 64, blockSize: 1, parallelism: 1)
      for _ in 0..<a { hasher.stored(digest(32)) }
      for _ in 0..<b { hasher.stored(digest(64)) }
      let phones = (0..<200).map { "+8613900\(String(10_000 + $0))" }
      let before = phones.map(hasher.dummyCost(for:))
      // The oracle: the stored costs, or the configured cost when none is stored.
      let stored = Set([a > 0 ? costA : nil, b > 0 ? costB : nil].compactMap { $0 })
      #expect(Set(before).isSubset(of: stored.isEmpty ? [.testing] : stored))
      #expect(phones.map(hasher.dummyCost(for:)) == before, "the same phone, the same cost")
      for _ in 0..<growth { hasher.replaced(digest(32), with: digest(64)) }
      let after = phones.map(hasher.dummyCost(for:))
      for (old, new) in zip(before, after) where old != new { #expect(new == costB) }
      if a <= growth { #expect(Set(after) == [costB]) }
    }
  }

  @Test(
    "an unknown phone costs the work of the stored digests, which follow re-hashes and registrations",
    arguments: StoreKind.allCases)
  func dummyWork_matchesStoredCost(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let derivation = GatedDerivation(open: true)
      let old = PasswordHasher.Cost(rounds: 1 << 6, blockSize: 1, parallelism: 1)
      let oldHasher = PasswordHasher(
        cost: old, queue: PasswordHashingQueue(slots: 1, maximumWaiting: 0), derivation: derivation)
      let phone = PlayerWorld.newPhone()
      _ = try await store.createPlayer(
        NewPlayer(
          phone: phone, nickname: "Ann", password: try await oldHasher.digest(Self.password),
          selfLevel: 4, locale: "en", joinedAtUnixMs: 0))
      // The operator has since changed the cost.
      let hasher = PasswordHasher(
        cost: .testing, queue: PasswordHashingQueue(slots: 1, maximumWaiting: 0),
        derivation: derivation)
      try await hasher.loadStoredCosts(from: store)
      let service = AccountsService(
        store: store, hasher: hasher, clock: ManualClock(), sessionLifetime: .seconds(3600))
      for phone in [phone, "+8613700000123"] {
        _ = await refusal {
          _ = try await service.login(
            LoginRequest(phone: phone, password: "wrong guess"), context: context(from: "192.0.2.1")
          )
        }
      }
      #expect(derivation.costs.suffix(2) == [old, old])
      #expect(hasher.dummyCost(for: "+8613700000123") == old)

      // A successful login makes the digest again at the configured cost.
      _ = try await service.login(
        LoginRequest(phone: phone, password: Self.password), context: context(from: "192.0.2.1"))
      let stored = try #require(try await store.player(phone: phone))
      #expect(!hasher.needsNewDigest(stored.password))
      #expect(hasher.storedDigestCosts == [.testing: 1])
      #expect(hasher.dummyCost(for: "+8613700000123") == .testing)
      // A registration counts its digest.
      _ = try await service.register(
        RegisterRequest(
          phone: PlayerWorld.newPhone(), nickname: "Bo", password: "12345678", selfLevel: 3),
        context: context(from: "192.0.2.1"))
      #expect(hasher.storedDigestCosts == [.testing: 2])
    }
  }

  // MARK: Registrations and uploads

  /// The accounts and players services of a server on `store` with the default limits.
  static func services(on store: any ServerStore, clock: ManualClock) async throws -> (
    AccountsService, PlayersService
  ) {
    let players = try await PlayerServices.start(
      store: store,
      configuration: PlayerServicesConfiguration(passwordCost: .testing), clock: clock)
    let accounts = try #require(players.services.compactMap { $0 as? AccountsService }.first)
    let profiles = try #require(players.services.compactMap { $0 as? PlayersService }.first)
    return (accounts, profiles)
  }

  @Test(
    "registrations are limited per address, PHONE_TAKEN included, and refill over the hour",
    arguments: StoreKind.allCases)
  func registrations_perAddress(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let (accounts, _) = try await Self.services(on: store, clock: clock)
      func register(_ phone: String, from address: String) async -> RPCError? {
        await refusal {
          _ = try await accounts.register(
            RegisterRequest(phone: phone, nickname: "Ann", password: "12345678", selfLevel: 3),
            context: context(from: address))
        }
      }
      let taken = PlayerWorld.newPhone()
      #expect(await register(taken, from: "198.51.100.7") == nil)
      #expect(await register(taken, from: "198.51.100.7")?.reason == "PHONE_TAKEN")
      for _ in 2..<10 {
        #expect(await register(PlayerWorld.newPhone(), from: "198.51.100.7") == nil)
      }
      let refused = await register(taken, from: "198.51.100.7")
      #expect(refused?.code == .resourceExhausted)
      #expect(refused?.reason == "REGISTRATION_RATE_LIMITED")
      #expect(refused?.retryAfter == .milliseconds(6 * 60_000))
      #expect(await register(PlayerWorld.newPhone(), from: "198.51.100.8") == nil)
      clock.advance(by: 6 * 60_000)
      #expect(await register(PlayerWorld.newPhone(), from: "198.51.100.7") == nil)
      #expect(
        await register(PlayerWorld.newPhone(), from: "198.51.100.7")?.reason
          == "REGISTRATION_RATE_LIMITED")
    }
  }

  @Test(
    "a registration refused because hashing is busy does not use up the address's allowance",
    arguments: StoreKind.allCases)
  func registrations_busyDoesNotCount(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let queue = PasswordHashingQueue(slots: 1, maximumWaiting: 0)
      let (service, _) = try await Self.accounts(
        on: store, derivation: GatedDerivation(open: true), queue: queue, clock: clock,
        registrations: AddressRateLimiter(
          limit: 10, periodMs: 3_600_000, reason: "REGISTRATION_RATE_LIMITED",
          action: LocalizedText(en: "registrations", zhCN: "注册"), clock: clock))
      func register() async -> RPCError? {
        await refusal {
          _ = try await service.register(
            RegisterRequest(
              phone: PlayerWorld.newPhone(), nickname: "Ann", password: "12345678", selfLevel: 3),
            context: context(from: "198.51.100.7"))
        }
      }
      let holder = GatedDerivation(open: false)
      let hold = Task {
        try await PasswordHasher(cost: .testing, queue: queue, derivation: holder)
          .verifyNothing("x", phone: "+8613700000009")
      }
      try await eventually { holder.started == 1 }
      for _ in 0..<10 { #expect(await register()?.reason == "PASSWORD_HASHING_BUSY") }
      holder.open()
      try await hold.value
      // The whole allowance is still there.
      for _ in 0..<10 { #expect(await register() == nil) }
      #expect(await register()?.reason == "REGISTRATION_RATE_LIMITED")
    }
  }

  @Test(
    "PHONE_TAKEN comes after the same password work as a registration that succeeds",
    arguments: StoreKind.allCases)
  func phoneTaken_costsWhatSuccessCosts(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let derivation = GatedDerivation(open: true)
      let (service, phone) = try await Self.accounts(
        on: store, derivation: derivation, queue: PasswordHashingQueue(slots: 1, maximumWaiting: 0),
        clock: ManualClock())
      var before = derivation.started
      let taken = await refusal {
        _ = try await service.register(
          RegisterRequest(phone: phone, nickname: "Ann", password: "12345678", selfLevel: 3),
          context: context(from: "192.0.2.1"))
      }
      #expect(taken?.reason == "PHONE_TAKEN")
      #expect(derivation.started == before + 1)
      before = derivation.started
      _ = try await service.register(
        RegisterRequest(
          phone: PlayerWorld.newPhone(), nickname: "Ann", password: "12345678", selfLevel: 3),
        context: context(from: "192.0.2.1"))
      #expect(derivation.started == before + 1)
    }
  }

  @Test(
    "unfinished uploads together hold at most the server's open upload bytes received",
    arguments: StoreKind.allCases)
  func uploads_openBytesApply(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let players = try await PlayerServices.start(
        store: store,
        configuration: PlayerServicesConfiguration(
          passwordCost: .testing, uploadsPerAddressPerHour: 0, openUploadBytes: 100_000),
        clock: clock)
      let accounts = try #require(players.services.compactMap { $0 as? AccountsService }.first)
      let service = try #require(players.services.compactMap { $0 as? PlayersService }.first)
      var principals: [Principal] = []
      for index in 0..<3 {
        let registered = try await accounts.register(
          RegisterRequest(
            phone: PlayerWorld.newPhone(), nickname: "P", password: "12345678", selfLevel: 3),
          context: context(from: "192.0.2.\(index)"))
        principals.append(Principal(userID: registered.userID, isAdministrator: false))
      }
      func piece(_ bytes: Int) -> [UInt8] {
        Array(pngDocument.prefix(8)) + [UInt8](repeating: 7, count: bytes - 8)
      }
      func start(_ principal: Principal, bytes: Int) async throws -> DocumentUpload {
        try await service.uploadDocumentPiece(
          UploadDocumentPieceRequest(totalSize: 5 << 20, data: piece(bytes)),
          context: context(from: "192.0.2.1", principal: principal))
      }
      // A stated size reserves nothing: the bytes received count.
      let first = try await start(principals[0], bytes: 60_000)
      _ = try await start(principals[1], bytes: 30_000)
      let refused = await refusal { _ = try await start(principals[2], bytes: 20_000) }
      #expect(refused?.code == .resourceExhausted)
      #expect(refused?.reason == "UPLOADS_BUSY")
      #expect(refused?.retryAfter == .seconds(60))
      _ = try await start(principals[2], bytes: 10_000)
      // A next piece counts too.
      let full = await refusal {
        _ = try await service.uploadDocumentPiece(
          UploadDocumentPieceRequest(uploadID: first.uploadID, offset: 60_000, data: [1]),
          context: context(from: "192.0.2.1", principal: principals[0]))
      }
      #expect(full?.reason == "UPLOADS_BUSY")
      // Expired uploads no longer count.
      clock.advance(by: DocumentUploadRules.lifetimeMs - 1)
      #expect(await refusal { _ = try await start(principals[2], bytes: 60_000) } != nil)
      clock.advance(by: 1)
      _ = try await start(principals[2], bytes: 60_000)
      let gone = await refusal {
        _ = try await service.uploadDocumentPiece(
          UploadDocumentPieceRequest(uploadID: first.uploadID, offset: 60_000, data: [1]),
          context: context(from: "192.0.2.1", principal: principals[0]))
      }
      #expect(gone?.reason == "UPLOAD_NOT_FOUND")
    }
  }

  @Test(
    "an upload start refused because the server has no room does not count against the address",
    arguments: StoreKind.allCases)
  func uploads_busyRefusalsAreGivenBack(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let players = try await PlayerServices.start(
        store: store,
        configuration: PlayerServicesConfiguration(
          passwordCost: .testing, uploadsPerAddressPerHour: 2, openUploadBytes: 100_000),
        clock: clock)
      let accounts = try #require(players.services.compactMap { $0 as? AccountsService }.first)
      let service = try #require(players.services.compactMap { $0 as? PlayersService }.first)
      var principals: [Principal] = []
      for index in 0..<2 {
        let registered = try await accounts.register(
          RegisterRequest(
            phone: PlayerWorld.newPhone(), nickname: "P", password: "12345678", selfLevel: 3),
          context: context(from: "192.0.2.\(index)"))
        principals.append(Principal(userID: registered.userID, isAdministrator: false))
      }
      func start(_ principal: Principal, bytes: Int, from address: String) async -> RPCError? {
        await refusal {
          _ = try await service.uploadDocumentPiece(
            UploadDocumentPieceRequest(
              totalSize: 5 << 20,
              data: Array(pngDocument.prefix(8)) + [UInt8](repeating: 7, count: bytes - 8)),
            context: context(from: address, principal: principal))
        }
      }
      #expect(await start(principals[0], bytes: 60_000, from: "198.51.100.1") == nil)
      // Five starts that find no room: each is refused as busy, none as rate limited.
      for _ in 0..<5 {
        #expect(
          await start(principals[1], bytes: 50_000, from: "198.51.100.2")?.reason == "UPLOADS_BUSY")
      }
      // The address still has its whole allowance of two.
      #expect(await start(principals[1], bytes: 20_000, from: "198.51.100.2") == nil)
      #expect(await start(principals[1], bytes: 10_000, from: "198.51.100.2") == nil)
      let limited = await start(principals[1], bytes: 1_000, from: "198.51.100.2")
      #expect(limited?.reason == "UPLOAD_RATE_LIMITED")
    }
  }

  @Test("verification uploads are limited per address", arguments: StoreKind.allCases)
  func uploads_perAddress(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let (accounts, players) = try await Self.services(on: store, clock: clock)
      var principals: [Principal] = []
      for index in 0..<8 {
        let registered = try await accounts.register(
          RegisterRequest(
            phone: PlayerWorld.newPhone(), nickname: "P", password: "12345678", selfLevel: 3),
          context: context(from: "192.0.2.\(index)"))
        principals.append(Principal(userID: registered.userID, isAdministrator: false))
      }
      func upload(_ principal: Principal, from address: String) async -> RPCError? {
        await refusal {
          _ = try await players.submitVerification(
            SubmitVerificationRequest(kind: .regionalChampionship, document: pngDocument),
            context: context(from: address, principal: principal))
        }
      }
      for index in 0..<17 {
        #expect(await upload(principals[index / 3], from: "198.51.100.7") == nil)
      }
      // Starting an upload in pieces counts as well.
      for _ in 0..<3 {
        _ = try await players.uploadDocumentPiece(
          UploadDocumentPieceRequest(totalSize: 100_000, data: Array(pngDocument.prefix(8))),
          context: context(from: "198.51.100.7", principal: principals[6]))
      }
      let refused = await upload(principals[7], from: "198.51.100.7")
      #expect(refused?.reason == "UPLOAD_RATE_LIMITED")
      #expect(refused?.retryAfter == .milliseconds(3 * 60_000))
      #expect(await upload(principals[7], from: "198.51.100.8") == nil)
    }
  }

  @Test("per-address limits count IPv4 addresses as they are and IPv6 addresses by their /64")
  func addressKeys() {
    #expect(clientAddressKey("192.0.2.7") == "192.0.2.7")
    #expect(clientAddressKey("::ffff:192.0.2.7") == "192.0.2.7")
    #expect(clientAddressKey("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
    #expect(clientAddressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee") == "2001:db8:1:2::/64")
    #expect(clientAddressKey("::1") == "0:0:0:0::/64")
    #expect(clientAddressKey("unknown") == "unknown")
  }

  @Test("the peer's address is read without its port")
  func peerAddress() {
    func address(_ peer: String) -> String {
      ServerContext(
        callID: 1, method: "/m", metadata: [], deadline: nil, peer: peer,
        logger: Logger(label: "test")
      ).peerAddress
    }
    #expect(address("[IPv4]127.0.0.1:5000") == "127.0.0.1")
    #expect(address("[IPv4]localhost/127.0.0.1:5000") == "127.0.0.1")
    #expect(address("[IPv6]::1:5000") == "::1")
    #expect(address("[IPv6]host/2001:db8::7:443") == "2001:db8::7")
    #expect(address("unknown") == "unknown")
  }
}
