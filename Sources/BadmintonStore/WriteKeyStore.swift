public import BadmintonDomain
import Synchronization

/// A player's write that carries an idempotency key: who, which key, and a digest of the method
/// and the request, so that a repeat can be told from another write under the same key.
///
/// The services bind it (`WriteKeyScope.$write`) around the handler of a write; the write's
/// answer-bearing store call then runs under `WriteKeyScope.$answer`, and the store keeps the
/// key with the answer in that call's transaction.
public final class KeyedWrite: Sendable {
  public let playerID: Int64
  public let key: String
  /// SHA-256 of the method path and the request's bytes.
  public let digest: [UInt8]
  /// When the call arrived, in milliseconds since 1970-01-01 UTC.
  public let atUnixMs: Int64
  /// At most this many keys held by the player (`WriteKeyRules.maximumKeysPerPlayer`).
  public let limit: Int
  private let answered = Atomic<Bool>(false)
  private let answers = Mutex<(pending: WriteAnswer?, kept: WriteAnswer?)>((nil, nil))

  public init(playerID: Int64, key: String, digest: [UInt8], atUnixMs: Int64, limit: Int) {
    self.playerID = playerID
    self.key = key
    self.digest = digest
    self.atUnixMs = atUnixMs
    self.limit = limit
  }

  /// Keys first used before this time have expired and no longer answer.
  public var expiredBefore: Int64 { atUnixMs - WriteKeyRules.lifetimeMs + 1 }

  /// Marks the key as taken by one transaction; false when one already took it (a handler
  /// whose answer-bearing write ran twice: the second runs without the key).
  public func take() -> Bool {
    !answered.exchange(true, ordering: .relaxed)
  }

  /// Whether a transaction took the key (and so stored the answer, or found one stored).
  public var isTaken: Bool { answered.load(ordering: .relaxed) }

  /// Notes, inside a run of a transaction, the answer it inserts with the key (nil at the start
  /// of each run: a transaction run again starts afresh).
  public func notePending(_ answer: WriteAnswer?) {
    answers.withLock { $0.pending = answer }
  }

  /// Called once a transaction has committed: what its last run inserted is now kept.
  public func confirmPending() {
    answers.withLock { answers in
      if let pending = answers.pending { answers.kept = pending }
      answers.pending = nil
    }
  }

  /// The answer kept with the key by a transaction that committed; nil while none has.
  public var kept: WriteAnswer? { answers.withLock { $0.kept } }
}

/// The answer a keyed write gave: the encoded response, or the error it failed with.
public enum WriteAnswer: Sendable, Hashable {
  case response([UInt8])
  case error(DomainError)
}

/// A key as stored: the digest of its write and the answer that write gave.
public struct StoredWriteKey: Sendable, Hashable {
  public var digest: [UInt8]
  public var createdAtUnixMs: Int64
  public var answer: WriteAnswer

  public init(digest: [UInt8], createdAtUnixMs: Int64, answer: WriteAnswer) {
    self.digest = digest
    self.createdAtUnixMs = createdAtUnixMs
    self.answer = answer
  }
}

/// Thrown by a keyed write whose key the store already holds (an earlier attempt, on this
/// instance or another, committed): nothing was written, and `stored` is that attempt's answer.
public struct AnsweredBefore: Error, Sendable {
  public var stored: StoredWriteKey
  public init(stored: StoredWriteKey) { self.stored = stored }
}

/// The answer-bearing store call of a keyed write: its key, and how the answer is made from
/// the transaction's value (nil when the value is not of the type the service expected). A
/// transaction that commits and still refuses the call (a room write that expires idle rooms,
/// then breaks a rule) answers with the error.
public struct KeyedAnswer: Sendable {
  public let write: KeyedWrite
  public let respond: @Sendable (any Sendable) -> WriteAnswer?
  /// The refusal as the call answers it, from the transaction's (a field renamed, ...).
  public let refine: @Sendable (DomainError) -> DomainError

  public init(
    write: KeyedWrite, respond: @escaping @Sendable (any Sendable) -> WriteAnswer?,
    refine: @escaping @Sendable (DomainError) -> DomainError = { $0 }
  ) {
    self.write = write
    self.respond = respond
    self.refine = refine
  }
}

/// Where a keyed write's key travels from the services to the store's transaction.
public enum WriteKeyScope {
  /// The keyed write whose handler is running.
  @TaskLocal public static var write: KeyedWrite?
  /// Set around the one store call whose transaction keeps the key and the answer.
  @TaskLocal public static var answer: KeyedAnswer?
}

/// The keys of players' writes.
public protocol WriteKeyStore: Sendable {
  /// The key `key` of `playerID`, if stored (live or not yet removed).
  func storedWriteKey(playerID: Int64, key: String) async throws -> StoredWriteKey?
  /// Keeps `write`'s key with `error` as its answer, in a transaction of its own: for a keyed
  /// write that failed before it reached the store. Throws `AnsweredBefore` when the key is
  /// already held.
  func keepFailure(of write: KeyedWrite, _ error: DomainError) async throws
  /// Removes the keys first used before `unixMs`; returns how many.
  func deleteWriteKeys(createdBefore unixMs: Int64) async throws -> Int
}
