public import BadmintonStore
import Crypto
import CryptoExtras
import Foundation
import NIOPosix
import Synchronization

/// Derives stored password digests with scrypt, a slow salted key-derivation function, on
/// threads of their own so that logins do not hold up the server's other work, under a bounded
/// queue (`PasswordHashingQueue`) so that a flood of logins is refused instead of piling up.
public struct PasswordHasher: Sendable {
  /// scrypt's cost: N (rounds, a power of two), r (block size) and p (parallelism).
  public struct Cost: Hashable, Sendable {
    public var rounds: Int
    public var blockSize: Int
    public var parallelism: Int

    /// A cost with the given parameters.
    public init(rounds: Int, blockSize: Int, parallelism: Int) {
      self.rounds = rounds
      self.blockSize = blockSize
      self.parallelism = parallelism
    }

    /// The production cost: N = 2^15, r = 8, p = 1 (32 MiB and tens of milliseconds a hash).
    public static let standard = Cost(rounds: 1 << 15, blockSize: 8, parallelism: 1)
    /// A cheap cost for tests.
    public static let testing = Cost(rounds: 1 << 4, blockSize: 1, parallelism: 1)
  }

  /// The cost new digests are made with.
  public let cost: Cost
  /// The slots every hash runs in.
  public let queue: PasswordHashingQueue
  private let derivation: any PasswordDerivation
  private let storedCosts: StoredCosts

  /// A hasher that makes new digests at `cost`, running every hash in a slot of `queue` with
  /// `derivation` (scrypt on the process's hashing threads unless a test gives its own).
  /// Until `loadStoredCosts(from:)` has read the store, an unknown phone costs `cost`.
  public init(
    cost: Cost = .standard, queue: PasswordHashingQueue = PasswordHashingQueue.standard(),
    derivation: any PasswordDerivation = ScryptDerivation()
  ) {
    self.cost = cost
    self.queue = queue
    self.derivation = derivation
    self.storedCosts = StoredCosts()
  }

  /// A new digest of `password` with a fresh random salt; throws `PASSWORD_HASHING_BUSY` when
  /// the queue is full.
  public func digest(_ password: String) async throws -> PasswordDigest {
    var generator = SystemRandomNumberGenerator()
    let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let hash = try await derive(password, salt: salt, cost: cost)
    return PasswordDigest(hash: hash, salt: salt, parameters: Self.encode(cost))
  }

  /// True when `password` is the one `digest` was made from; compares in constant time.
  /// Throws `PASSWORD_HASHING_BUSY` when the queue is full.
  public func verify(_ password: String, against digest: PasswordDigest) async throws -> Bool {
    guard let cost = Self.decode(digest.parameters) else { return false }
    let hash = try await derive(password, salt: digest.salt, cost: cost)
    guard hash.count == digest.hash.count else { return false }
    return zip(hash, digest.hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }

  /// Spends the time of one verification, so that an unknown phone answers as slowly as a
  /// wrong password for a known one: the work is done at `dummyCost(for: phone)`, and in a
  /// slot of the same queue, so that it is refused when a verification would be.
  public func verifyNothing(_ password: String, phone: String) async throws {
    _ = try await derive(
      password, salt: Array(repeating: 0, count: 16), cost: dummyCost(for: phone))
  }

  /// The cost `verifyNothing` works at for `phone`: one of the costs the stored digests use,
  /// chosen by a keyed hash of the phone (the key is random and new in every process), with a
  /// cost's chance in proportion to how many digests use it. So the same phone always gets the
  /// same cost, no login can steer which, and an unknown phone's cost is drawn like a
  /// registered player's. `cost` when no digest is stored.
  public func dummyCost(for phone: String) -> Cost {
    storedCosts.choice(for: phone) ?? cost
  }

  /// How many stored digests use each cost, as far as this hasher knows.
  public var storedDigestCosts: [Cost: Int] { storedCosts.counts }

  /// Counts the digests `store` holds by cost, replacing what was known; the server calls it
  /// once at start, before it serves logins.
  public func loadStoredCosts(from store: any PlayerStore) async throws {
    var counts: [Cost: Int] = [:]
    for (parameters, count) in try await store.passwordParameterCounts() {
      guard let cost = Self.decode(parameters), count > 0 else { continue }
      counts[cost, default: 0] += count
    }
    storedCosts.replace(with: counts)
  }

  /// Counts a digest that has been stored (a registration).
  public func stored(_ digest: PasswordDigest) {
    storedCosts.change(Self.decode(digest.parameters), by: 1)
  }

  /// Counts a stored digest replaced by another (a digest made again at the current cost).
  public func replaced(_ old: PasswordDigest, with new: PasswordDigest) {
    storedCosts.change(Self.decode(old.parameters), by: -1)
    storedCosts.change(Self.decode(new.parameters), by: 1)
  }

  /// Whether `digest` was made at another cost than `cost`, so that it should be made again
  /// while the password is at hand.
  public func needsNewDigest(_ digest: PasswordDigest) -> Bool {
    digest.parameters != Self.encode(cost)
  }

  private func derive(_ password: String, salt: [UInt8], cost: Cost) async throws -> [UInt8] {
    try await queue.run {
      try await derivation.derive(Array(password.utf8), salt: salt, cost: cost)
    }
  }

  private static func encode(_ cost: Cost) -> String {
    "scrypt:\(cost.rounds):\(cost.blockSize):\(cost.parallelism)"
  }

  private static func decode(_ parameters: String) -> Cost? {
    let parts = parameters.split(separator: ":")
    guard parts.count == 4, parts[0] == "scrypt", let n = Int(parts[1]), let r = Int(parts[2]),
      let p = Int(parts[3])
    else { return nil }
    return Cost(rounds: n, blockSize: r, parallelism: p)
  }
}

/// The key derivation behind `PasswordHasher`.
public protocol PasswordDerivation: Sendable {
  /// The 32-byte key of `password` with `salt` at `cost`; returns only once the work is done.
  func derive(_ password: [UInt8], salt: [UInt8], cost: PasswordHasher.Cost) async throws
    -> [UInt8]
}

/// scrypt on the process's hashing threads, kept apart from NIO's shared thread pool so that
/// hashing never holds up the file and other blocking work of the server.
public struct ScryptDerivation: PasswordDerivation {
  /// One thread per core: the hashing queue's default number of slots.
  static let threads = max(1, ProcessInfo.processInfo.activeProcessorCount)

  /// The process's hashing threads, started on first use and kept for the process's life.
  private static let pool: NIOThreadPool = {
    let pool = NIOThreadPool(numberOfThreads: threads)
    pool.start()
    return pool
  }()

  /// scrypt on the shared hashing threads.
  public init() {}

  public func derive(_ password: [UInt8], salt: [UInt8], cost: PasswordHasher.Cost) async throws
    -> [UInt8]
  {
    // Work that has started runs to its end even when the caller is cancelled; the await
    // returns only then, so the caller's queue slot is held for as long as the work runs.
    try await Self.pool.runIfActive {
      let key = try KDF.Scrypt.deriveKey(
        from: password, salt: salt, outputByteCount: 32, rounds: cost.rounds,
        blockSize: cost.blockSize, parallelism: cost.parallelism)
      return key.withUnsafeBytes { Array($0) }
    }
  }
}

extension PasswordHashingQueue {
  /// A queue of one slot per hashing thread and a line of four waiters per slot.
  public static func standard() -> PasswordHashingQueue {
    PasswordHashingQueue(
      slots: ScryptDerivation.threads, maximumWaiting: 4 * ScryptDerivation.threads)
  }
}

/// How many stored digests use each cost, and the choice of a cost for an unknown phone.
///
/// The choice is weighted rendezvous hashing: every cost draws a number in (0, 1) from an
/// HMAC-SHA256 of the phone and the cost under a random key of this process, scores
/// -ln(draw) / count, and the lowest score wins. A cost wins with a chance in proportion to its
/// count; a count that grows only draws phones to its cost and one that shrinks only sends
/// phones away from it, so a change of the counts moves few phones.
private final class StoredCosts: Sendable {
  private let table = Mutex<[PasswordHasher.Cost: Int]>([:])
  private let key = SymmetricKey(size: .bits256)

  var counts: [PasswordHasher.Cost: Int] { table.withLock { $0 } }

  func replace(with counts: [PasswordHasher.Cost: Int]) {
    table.withLock { $0 = counts.filter { $0.value > 0 } }
  }

  func change(_ cost: PasswordHasher.Cost?, by delta: Int) {
    guard let cost else { return }
    table.withLock { table in
      let count = (table[cost] ?? 0) + delta
      table[cost] = count > 0 ? count : nil
    }
  }

  func choice(for phone: String) -> PasswordHasher.Cost? {
    let counts = table.withLock { $0 }
    var best: (cost: PasswordHasher.Cost, score: Double)?
    for (cost, count) in counts {
      let score = -Foundation.log(draw(phone, cost)) / Double(count)
      if let current = best,
        current.score < score
          || (current.score == score
            && Self.order(current.cost).lexicographicallyPrecedes(Self.order(cost)))
      {
        continue
      }
      best = (cost, score)
    }
    return best?.cost
  }

  /// A number in (0, 1), fixed for the phone and the cost in this process.
  private func draw(_ phone: String, _ cost: PasswordHasher.Cost) -> Double {
    var message = Array(phone.utf8)
    message.append(0)
    for value in [cost.rounds, cost.blockSize, cost.parallelism] {
      withUnsafeBytes(of: UInt64(truncatingIfNeeded: value).bigEndian) { message += $0 }
    }
    let code = HMAC<SHA256>.authenticationCode(for: message, using: key)
    let bits = code.withUnsafeBytes { $0.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    return (Double(bits >> 11) + 0.5) / Double(UInt64(1) << 53)
  }

  /// Breaks ties between equal scores the same way every time.
  private static func order(_ cost: PasswordHasher.Cost) -> [Int] {
    [cost.rounds, cost.blockSize, cost.parallelism]
  }
}

/// Session tokens: 256 random bits from the system's cryptographic source, shown once to the
/// client as hex and stored only as their SHA-256 hash.
public enum SessionToken {
  /// A new token.
  public static func generate() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in
      let byte = UInt8.random(in: 0...255, using: &generator)
      return String(byte, radix: 16).leftPadded(to: 2)
    }.joined()
  }

  /// The hash under which a token is stored.
  public static func hash(_ token: String) -> [UInt8] {
    Array(SHA256.hash(data: Array(token.utf8)))
  }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    count >= length ? self : String(repeating: "0", count: length - count) + self
  }
}
