public import BadmintonDomain
public import BadmintonStore
import Foundation

/// Idempotency keys, on either engine. A keyed write keeps its key, the digest of its request
/// and its answer in its own transaction: the answer is there exactly when the write is, and a
/// repeat finds it after a crash as well. Both engines run every write through
/// `WriteKeyRows.keyed`.
extension WriteKeyStore where Self: StoreEngine {
  public func storedWriteKey(playerID: Int64, key: String) async throws -> StoredWriteKey? {
    try await readEach { db in try WriteKeyRows.stored(db, playerID: playerID, key: key) }
  }

  public func keepFailure(of write: KeyedWrite, _ error: DomainError) async throws {
    let outcome = try await writeTransaction { db -> WriteKeyRows.Outcome<Bool> in
      try WriteKeyRows.keepRefusal(db, write, error)
    }
    write.confirmPending()
    if case .answeredBefore(let stored) = outcome { throw AnsweredBefore(stored: stored) }
  }

  public func deleteWriteKeys(createdBefore unixMs: Int64) async throws -> Int {
    try await writeTransaction { db in
      // One row per key removed, naming its player, whose count is then made again.
      let players = try db.rows(DeleteWriteKeysCreatedBefore.self, unixMs).map {
        try $0.column(0, as: Int64.self)
      }
      let distinct = Array(Set(players))
      if !distinct.isEmpty {
        try db.rows(RecountWriteKeys.self, distinct)
        try db.rows(DeleteEmptyWriteKeyCounts.self)
      }
      return players.count
    }
  }
}

/// The rows of idempotency keys, and the step every keyed write takes in its transaction.
public enum WriteKeyRows {
  /// What a write's transaction gave: the body's value, or the error it failed with (kept with
  /// the key, so the transaction commits), or the answer of an earlier attempt.
  public enum Outcome<T: Sendable>: Sendable {
    case value(T)
    case failed(any Error)
    case answeredBefore(StoredWriteKey)

    /// The value, or the error the write ends with.
    public func get() throws -> T {
      switch self {
      case .value(let value): return value
      case .failed(let error): throw error
      case .answeredBefore(let stored): throw AnsweredBefore(stored: stored)
      }
    }
  }

  /// Runs a write through `run` (the engine's transaction). Inside the answer-bearing store call
  /// of a keyed write (`WriteKeyScope.answer`), the transaction counts the key against the
  /// player's allowance, runs `body`, and inserts the key with the response made from `body`'s
  /// value: two statements more than the write alone, and no read first. When the key is already
  /// held (an earlier attempt committed, here or on another instance), the insert finds it, the
  /// write is undone and the kept answer ends the call (`AnsweredBefore`). When `body` fails with
  /// a refusal that is the call's answer (`WriteKeyRules.isFinal`), the write is undone as any
  /// failed write is, and a second transaction keeps the key with the refusal. A write with no
  /// key runs `body` as it is.
  public static func keyed<T: Sendable>(
    _ body: @escaping @Sendable (any StoreSession) throws -> T,
    run: (@escaping @Sendable (any StoreSession) throws -> Outcome<T>) async throws -> Outcome<T>
  ) async throws -> T {
    guard let answer = WriteKeyScope.answer, answer.write.take() else {
      return try await run { db in .value(try body(db)) }.get()
    }
    let write = answer.write
    // What a run inserts counts as kept only once `run` has returned: committed.
    do {
      let outcome = try await run { db in try keep(db, answer, body) }
      write.confirmPending()
      return try outcome.get()
    } catch is KeyHeld {
      return try await run { db in
        guard let stored = try stored(db, playerID: write.playerID, key: write.key) else {
          throw KeyHeld()
        }
        return .answeredBefore(stored)
      }.get()
    } catch let error as DomainError where WriteKeyRules.isFinal(error) {
      let refusal = answer.refine(error)
      let outcome: Outcome<T> = try await run { db in try keepRefusal(db, write, refusal) }
      write.confirmPending()
      return try outcome.get()
    }
  }

  /// The key is held by an earlier call: what the write did is undone.
  struct KeyHeld: Error {}

  /// The keyed step, inside the write's transaction. It may run more than once (a transaction
  /// refused for a concurrent one runs again), so it only runs statements.
  static func keep<T: Sendable>(
    _ db: any StoreSession, _ answer: KeyedAnswer,
    _ body: (any StoreSession) throws -> T
  ) throws -> Outcome<T> {
    let write = answer.write
    write.notePending(nil)
    if let refusal = try countKey(db, write) { return .failed(refusal) }
    let value = try body(db)
    let kept: WriteAnswer
    switch answer.respond(value) {
    case .some(let answer):
      kept = answer
    case nil:
      // The service's answer does not fit this transaction's value: a programming error the
      // tests of every keyed method catch. The write stands, without its key.
      try db.rows(DecrementWriteKeyCount.self, write.playerID)
      return .value(value)
    }
    try insert(db, write, kept)
    return .value(value)
  }

  /// Keeps `refusal` as the answer of `write`, which changed nothing, in a transaction of its
  /// own; or ends with the answer an earlier call kept under the key.
  static func keepRefusal<T: Sendable>(
    _ db: any StoreSession, _ write: KeyedWrite, _ refusal: DomainError
  ) throws -> Outcome<T> {
    write.notePending(nil)
    if let stored = try stored(db, playerID: write.playerID, key: write.key),
      stored.createdAtUnixMs >= write.expiredBefore
    {
      return .answeredBefore(stored)
    }
    // Out of keys: the refusal is the answer, but it cannot be kept.
    if try countKey(db, write) != nil { return .failed(refusal) }
    try insert(db, write, .error(refusal))
    return .failed(refusal)
  }

  /// Inserts the key with `answer`, or takes the place of an expired one under the same key;
  /// throws `KeyHeld` when a live one holds it.
  static func insert(_ db: any StoreSession, _ write: KeyedWrite, _ answer: WriteAnswer) throws {
    let (response, error): ([UInt8]?, String?) =
      switch answer {
      case .response(let bytes): (bytes, nil)
      case .error(let error): (nil, encode(error))
      }
    guard
      try db.row(
        InsertWriteKey.self, write.playerID, write.key, write.digest, write.atUnixMs, response,
        error, write.expiredBefore) != nil
    else { throw KeyHeld() }
    write.notePending(answer)
  }

  /// Counts a new key against the player's allowance: nil when it fits, else the refusal. A
  /// player at the limit first loses the keys of theirs that have expired.
  static func countKey(_ db: any StoreSession, _ write: KeyedWrite) throws -> DomainError? {
    let limit = Int64(write.limit)
    let held: Int64 =
      try db.row(IncrementWriteKeyCount.self, write.playerID)?.decode(Int64.self) ?? 1
    guard held > limit else { return nil }
    // Over the limit with this key: the player's expired keys go, and they are counted again.
    try db.rows(DeleteExpiredWriteKeysOfPlayer.self, write.playerID, write.expiredBefore)
    let counted: (Int64, Int64?)? = try db.row(WriteKeysOfPlayer.self, write.playerID)?.decode(
      (Int64, Int64?).self)
    let (left, oldest) = counted ?? (0, nil)
    if left >= limit {
      try db.rows(SetWriteKeyCount.self, write.playerID, left)
      let freeAt = (oldest ?? write.atUnixMs) + WriteKeyRules.lifetimeMs
      return WriteKeyRules.keysExhausted(retryAfterMs: freeAt - write.atUnixMs)
    }
    try db.rows(SetWriteKeyCount.self, write.playerID, left + 1)
    return nil
  }

  /// The key as stored, if it is.
  static func stored(_ db: any StoreSession, playerID: Int64, key: String) throws
    -> StoredWriteKey?
  {
    guard let row = try db.row(WriteKeyByPlayer.self, playerID, key) else { return nil }
    let (digest, created, response, error) = try row.decode(
      ([UInt8], Int64, [UInt8]?, String?).self)
    let answer: WriteAnswer =
      if let response { .response(response) } else { .error(decode(error ?? "")) }
    return StoredWriteKey(digest: digest, createdAtUnixMs: created, answer: answer)
  }

  /// An error as the key's row keeps it: JSON of its fields.
  static func encode(_ error: DomainError) -> String {
    var object: [String: Any] = [
      "kind": kindNames[error.kind] ?? "failedPrecondition", "reason": error.reason,
      "en": error.en, "zh": error.zhCN,
      "violations": error.violations.map {
        ["field": $0.field, "reason": $0.reason, "en": $0.en, "zh": $0.zhCN]
      },
    ]
    if let retry = error.retryAfterMs { object["retryAfterMs"] = retry }
    let data =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? .init()
    return String(decoding: data, as: UTF8.self)
  }

  /// The error `encode` wrote; a row that cannot be read gives a plain FAILED_PRECONDITION.
  static func decode(_ text: String) -> DomainError {
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
      let reason = object["reason"] as? String
    else {
      return DomainError(
        .failedPrecondition, "IDEMPOTENCY_ANSWER_UNREADABLE",
        en: "The stored answer of this idempotency key cannot be read.",
        zhCN: "无法读取此幂等键保存的答复。")
    }
    let kind = kindNames.first { $0.value == object["kind"] as? String }?.key ?? .failedPrecondition
    let violations = (object["violations"] as? [[String: String]] ?? []).map {
      DomainError.Violation(
        field: $0["field"] ?? "", reason: $0["reason"] ?? "", en: $0["en"] ?? "",
        zhCN: $0["zh"] ?? "")
    }
    return DomainError(
      kind, reason, en: object["en"] as? String ?? "", zhCN: object["zh"] as? String ?? "",
      violations: violations, retryAfterMs: (object["retryAfterMs"] as? NSNumber)?.int64Value)
  }

  private static let kindNames: [DomainError.Kind: String] = [
    .invalidArgument: "invalidArgument", .notFound: "notFound", .alreadyExists: "alreadyExists",
    .permissionDenied: "permissionDenied", .failedPrecondition: "failedPrecondition",
    .unauthenticated: "unauthenticated", .unavailable: "unavailable",
    .resourceExhausted: "resourceExhausted",
  ]
}

enum WriteKeyByPlayer: StoreStatement {
  static let sql = """
    SELECT digest, created_at_ms, response, error FROM write_key WHERE player_id = $1 AND key = $2
    """
}
enum InsertWriteKey: StoreStatement {
  static let sql = """
    INSERT INTO write_key (player_id, key, digest, created_at_ms, response, error)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (player_id, key) DO UPDATE SET digest = excluded.digest,
      created_at_ms = excluded.created_at_ms, response = excluded.response,
      error = excluded.error
    WHERE write_key.created_at_ms < $7
    RETURNING 1
    """
}
enum IncrementWriteKeyCount: StoreStatement {
  static let sql = """
    INSERT INTO write_key_count (player_id, held) VALUES ($1, 1)
    ON CONFLICT (player_id) DO UPDATE SET held = write_key_count.held + 1
    RETURNING held
    """
}
enum DecrementWriteKeyCount: StoreStatement {
  static let sql = "UPDATE write_key_count SET held = held - 1 WHERE player_id = $1 AND held > 0"
}
enum SetWriteKeyCount: StoreStatement {
  static let sql = """
    INSERT INTO write_key_count (player_id, held) VALUES ($1, $2)
    ON CONFLICT (player_id) DO UPDATE SET held = excluded.held
    """
}
enum WriteKeysOfPlayer: StoreStatement {
  static let sql = "SELECT count(*), min(created_at_ms) FROM write_key WHERE player_id = $1"
}
enum DeleteExpiredWriteKeysOfPlayer: StoreStatement {
  static let sql = "DELETE FROM write_key WHERE player_id = $1 AND created_at_ms < $2"
}
enum DeleteWriteKeysCreatedBefore: StoreStatement {
  static let sql = "DELETE FROM write_key WHERE created_at_ms < $1 RETURNING player_id"
}
enum RecountWriteKeys: StoreStatement {
  static let sql = """
    UPDATE write_key_count SET held = (
      SELECT count(*) FROM write_key WHERE write_key.player_id = write_key_count.player_id)
    WHERE player_id = ANY($1)
    """
}
enum DeleteEmptyWriteKeyCounts: StoreStatement {
  static let sql = "DELETE FROM write_key_count WHERE held = 0"
}
