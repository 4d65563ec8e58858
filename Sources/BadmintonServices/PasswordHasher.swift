public import BadmintonStore
import Crypto
import CryptoExtras
import Foundation
import NIOPosix

/// Derives stored password digests with scrypt, a slow salted key-derivation function, on a
/// thread pool of its own so that logins do not hold up the server's other work.
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

  /// A hasher that makes new digests at `cost`.
  public init(cost: Cost = .standard) { self.cost = cost }

  /// A new digest of `password` with a fresh random salt.
  public func digest(_ password: String) async throws -> PasswordDigest {
    var generator = SystemRandomNumberGenerator()
    let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let hash = try await derive(password, salt: salt, cost: cost)
    return PasswordDigest(hash: hash, salt: salt, parameters: Self.encode(cost))
  }

  /// True when `password` is the one `digest` was made from; compares in constant time.
  public func verify(_ password: String, against digest: PasswordDigest) async throws -> Bool {
    guard let cost = Self.decode(digest.parameters) else { return false }
    let hash = try await derive(password, salt: digest.salt, cost: cost)
    guard hash.count == digest.hash.count else { return false }
    return zip(hash, digest.hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }

  /// Spends the time of one verification, so that an unknown phone answers as slowly as a
  /// wrong password.
  public func verifyNothing(_ password: String) async {
    _ = try? await derive(password, salt: Array(repeating: 0, count: 16), cost: cost)
  }

  private func derive(_ password: String, salt: [UInt8], cost: Cost) async throws -> [UInt8] {
    try await NIOThreadPool.singleton.runIfActive {
      let key = try KDF.Scrypt.deriveKey(
        from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: cost.rounds,
        blockSize: cost.blockSize, parallelism: cost.parallelism)
      return key.withUnsafeBytes { Array($0) }
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
