public import BadmintonRPC
import Foundation
import Synchronization

/// Slows down failed logins, per phone number and per client address, in the way OWASP's
/// Authentication Cheat Sheet recommends: a few failures are free, then each further attempt
/// must wait a delay that doubles with every failure, up to a cap; failures are forgotten once
/// none has happened for `window`. An attempt made before its delay has passed is refused at
/// once with `RESOURCE_EXHAUSTED` / `TOO_MANY_LOGIN_ATTEMPTS` and a retry hint, without any
/// password work. Attempts count from the moment they are admitted, not when their password
/// check ends.
///
/// The phone's delay is capped low (a minute by default) and is cleared by a successful login,
/// so a stranger who types wrong passwords for someone else's phone can make its owner wait at
/// most that long, while guessing one phone's password from many addresses stays at about one
/// guess a minute. The address's delay is capped high and only time clears it (a success does
/// not, or one known password would reset the count for guesses at other phones).
///
/// Each table holds at most `maximumEntries` keys. A table that is full is cleared out in one
/// pass: forgotten entries go first, then those whose last failure is oldest, until a tenth of
/// the table is free, so that a flood of new keys costs one pass per tenth of the table (and
/// not one per key).
public final class LoginThrottle: Sendable {
  /// How one table counts.
  public struct Policy: Sendable, Hashable {
    /// Failures allowed before any delay.
    public var freeFailures: Int
    /// The delay after the first failure past the free ones; doubles with each further one.
    public var firstDelayMs: Int64
    /// The longest delay.
    public var maximumDelayMs: Int64
    /// Failures are forgotten after this long without one.
    public var windowMs: Int64

    /// A policy with the given numbers.
    public init(freeFailures: Int, firstDelayMs: Int64, maximumDelayMs: Int64, windowMs: Int64) {
      self.freeFailures = freeFailures
      self.firstDelayMs = firstDelayMs
      self.maximumDelayMs = maximumDelayMs
      self.windowMs = windowMs
    }

    /// Per phone: 5 free failures, then 1 s doubling up to 60 s; forgotten after 15 minutes.
    public static let phone = Policy(
      freeFailures: 5, firstDelayMs: 1000, maximumDelayMs: 60_000, windowMs: 15 * 60_000)
    /// Per address: 20 free failures, then 1 s doubling up to 15 minutes; forgotten after an hour.
    public static let address = Policy(
      freeFailures: 20, firstDelayMs: 1000, maximumDelayMs: 15 * 60_000, windowMs: 60 * 60_000)
    /// No limit (for tests of other rules).
    public static let unlimited = Policy(
      freeFailures: Int.max, firstDelayMs: 0, maximumDelayMs: 0, windowMs: 0)

    /// The wait after `failures` failures, the last at `lastMs`, before another attempt at
    /// `nowMs`; 0 when it may go ahead.
    func waitMs(failures: Int, lastMs: Int64, nowMs: Int64) -> Int64 {
      guard failures >= freeFailures, nowMs - lastMs < windowMs else { return 0 }
      let doublings = min(failures - freeFailures, 40)
      let (product, overflow) = firstDelayMs.multipliedReportingOverflow(by: Int64(1) << doublings)
      let delay = overflow ? maximumDelayMs : min(product, maximumDelayMs)
      return max(0, lastMs + delay - nowMs)
    }
  }

  private struct Entry {
    var failures: Int
    var lastMs: Int64
  }

  private struct Table {
    let policy: Policy
    var entries: [String: Entry] = [:]
    var evictionPasses = 0

    func waitMs(_ key: String, nowMs: Int64) -> Int64 {
      guard let entry = entries[key] else { return 0 }
      return policy.waitMs(failures: entry.failures, lastMs: entry.lastMs, nowMs: nowMs)
    }

    mutating func takeBack(_ key: String) {
      guard var entry = entries[key] else { return }
      entry.failures -= 1
      entries[key] = entry.failures > 0 ? entry : nil
    }

    mutating func fail(_ key: String, nowMs: Int64, capacity: Int) {
      if var entry = entries[key] {
        if nowMs - entry.lastMs >= policy.windowMs { entry.failures = 0 }
        entry.failures += 1
        entry.lastMs = nowMs
        entries[key] = entry
        return
      }
      if entries.count >= capacity {
        evictionPasses += 1
        entries = entries.filter { nowMs - $0.value.lastMs < policy.windowMs }
        evictOldest(from: &entries, keeping: keptAfterEviction(capacity)) { $0.lastMs }
      }
      entries[key] = Entry(failures: 1, lastMs: nowMs)
    }
  }

  private struct State {
    var phones: Table
    var addresses: Table
  }

  private let state: Mutex<State>
  private let clock: any WallClock
  /// Keys each table may hold.
  public let maximumEntries: Int

  /// A throttle with the given policies, reading time from `clock`.
  public init(
    phone: Policy = .phone, address: Policy = .address, maximumEntries: Int = 100_000,
    clock: any WallClock
  ) {
    precondition(maximumEntries >= 1)
    self.state = Mutex(State(phones: Table(policy: phone), addresses: Table(policy: address)))
    self.clock = clock
    self.maximumEntries = maximumEntries
  }

  /// Admits a login attempt, or throws `TOO_MANY_LOGIN_ATTEMPTS` when the phone or the address
  /// must still wait. An admitted attempt counts as a failure at once, so that attempts sent
  /// together (pipelined on one connection or spread over many) cannot all pass before the
  /// first one fails; `succeeded` and `notChecked` take it back.
  public func admit(phone: String, address: String) throws {
    let now = clock.nowUnixMs()
    let (phone, address) = (Self.key(phone), Self.key(address))
    let wait = state.withLock { state -> Int64 in
      let wait = max(
        state.phones.waitMs(phone, nowMs: now), state.addresses.waitMs(address, nowMs: now))
      if wait == 0 {
        state.phones.fail(phone, nowMs: now, capacity: maximumEntries)
        state.addresses.fail(address, nowMs: now, capacity: maximumEntries)
      }
      return wait
    }
    if wait > 0 { throw Self.tooManyAttempts(retryAfterMs: wait) }
  }

  /// An admitted attempt logged in: the phone's failures are cleared and the attempt no
  /// longer counts against the address (its earlier failures still do).
  public func succeeded(phone: String, address: String) {
    let (phone, address) = (Self.key(phone), Self.key(address))
    state.withLock {
      $0.phones.entries[phone] = nil
      $0.addresses.takeBack(address)
    }
  }

  /// An admitted attempt ended before its password was checked (the hashing queue was full,
  /// the call was cancelled, the store failed): it no longer counts.
  public func notChecked(phone: String, address: String) {
    let (phone, address) = (Self.key(phone), Self.key(address))
    state.withLock {
      $0.phones.takeBack(phone)
      $0.addresses.takeBack(address)
    }
  }

  /// Times a full table was cleared out to make room, both tables together.
  public var evictionPasses: Int {
    state.withLock { $0.phones.evictionPasses + $0.addresses.evictionPasses }
  }

  /// Keys tracked now, per phone and per address.
  public var counts: (phones: Int, addresses: Int) {
    state.withLock { ($0.phones.entries.count, $0.addresses.entries.count) }
  }

  /// At most 64 UTF-8 bytes of a key, so that a long phone field cannot grow the table.
  private static func key(_ text: String) -> String {
    text.utf8.count <= 64 ? text : String(decoding: text.utf8.prefix(64), as: UTF8.self)
  }

  /// The refusal of an attempt that came too soon.
  static func tooManyAttempts(retryAfterMs: Int64) -> RPCError {
    RPCError(
      code: .resourceExhausted, reason: "TOO_MANY_LOGIN_ATTEMPTS",
      message: LocalizedText(
        en: "Too many failed logins; wait \(seconds(retryAfterMs)) s and try again.",
        zhCN: "登录失败次数过多，请 \(seconds(retryAfterMs)) 秒后再试。"),
      retryAfter: .milliseconds(max(1, retryAfterMs)))
  }
}

/// How many entries a full table of `capacity` keeps when it is cleared out: a tenth of it (at
/// least one entry) is freed at once.
func keptAfterEviction(_ capacity: Int) -> Int { capacity - max(1, capacity / 10) }

/// Removes from `table` the entries of lowest `rank` until at most `kept` are left; sorts only
/// the ranks, so a pass costs O(n log n) for n entries whatever the keys.
func evictOldest<Value>(
  from table: inout [String: Value], keeping kept: Int, by rank: (Value) -> Int64
) {
  let excess = table.count - max(0, kept)
  guard excess > 0 else { return }
  let cutoff = table.values.map(rank).sorted()[excess - 1]
  var atCutoff = excess - table.values.count { rank($0) < cutoff }
  table = table.filter { _, value in
    let r = rank(value)
    if r < cutoff { return false }
    if r == cutoff && atCutoff > 0 {
      atCutoff -= 1
      return false
    }
    return true
  }
}

/// Whole seconds to show for a wait, at least 1.
func seconds(_ milliseconds: Int64) -> Int64 { max(1, (milliseconds + 999) / 1000) }

/// Lets each client address do something at most `limit` times per `periodMs`, evenly
/// refilled (a generic cell rate: a burst of `limit`, then one every `periodMs / limit`).
/// Holds at most `maximumEntries` addresses; a full table is cleared out in one pass:
/// addresses whose allowance has fully refilled go first, then those nearest to it, until a
/// tenth of the table is free.
public final class AddressRateLimiter: Sendable {
  /// Actions allowed per period; 0 means no limit.
  public let limit: Int
  /// The period, in milliseconds.
  public let periodMs: Int64
  /// Addresses held at most.
  public let maximumEntries: Int
  private let reason: String
  private let action: LocalizedText
  private let clock: any WallClock
  /// Per address, when its allowance will be whole again.
  private let refilledAtMs = Mutex<[String: Int64]>([:])
  private let passes = Atomic<Int>(0)

  /// A limiter of `limit` actions per `periodMs` per address, refusing with `reason`;
  /// `action` names what is limited in the message ("registrations", ...).
  public init(
    limit: Int, periodMs: Int64, reason: String, action: LocalizedText,
    maximumEntries: Int = 100_000, clock: any WallClock
  ) {
    precondition(limit >= 0 && periodMs > 0 && maximumEntries >= 1)
    self.limit = limit
    self.periodMs = periodMs
    self.reason = reason
    self.action = action
    self.maximumEntries = maximumEntries
    self.clock = clock
  }

  /// Counts one action from `address`, or throws `reason` with a retry hint when the address
  /// has used its allowance.
  public func take(_ address: String) throws {
    guard limit > 0 else { return }
    let now = clock.nowUnixMs()
    let interval = max(1, periodMs / Int64(limit))
    let burst = interval * Int64(limit - 1)
    let wait = refilledAtMs.withLock { table -> Int64 in
      let refilled = max(table[address] ?? now, now)
      if refilled - now > burst { return refilled - now - burst }
      if table[address] == nil, table.count >= maximumEntries {
        passes.add(1, ordering: .relaxed)
        table = table.filter { $0.value > now }
        evictOldest(from: &table, keeping: keptAfterEviction(maximumEntries)) { $0 }
      }
      table[address] = refilled + interval
      return 0
    }
    guard wait > 0 else { return }
    throw RPCError(
      code: .resourceExhausted, reason: reason,
      message: LocalizedText(
        en: "Too many \(action.en) from this address; try again in \(seconds(wait)) s.",
        zhCN: "此地址的\(action.zhCN)次数过多，请 \(seconds(wait)) 秒后再试。"),
      retryAfter: .milliseconds(wait))
  }

  /// Gives back an action `take` counted for `address` that ended without doing anything (the
  /// server was too busy to start it), so that the address's allowance is as it was.
  public func giveBack(_ address: String) {
    guard limit > 0 else { return }
    let now = clock.nowUnixMs()
    let interval = max(1, periodMs / Int64(limit))
    refilledAtMs.withLock { table in
      guard let refilled = table[address] else { return }
      table[address] = refilled - interval > now ? refilled - interval : nil
    }
  }

  /// Times the full table was cleared out to make room.
  public var evictionPasses: Int { passes.load(ordering: .relaxed) }

  /// Addresses tracked now.
  public var count: Int { refilledAtMs.withLock { $0.count } }
}
