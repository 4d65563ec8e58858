public import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore
import Crypto
import DequeModule
import Synchronization

/// Answers every write that takes an idempotency key (`MethodInfo.takesIdempotencyKey`) once
/// per key: a call carrying `idempotency-key` metadata keeps its key, a digest of its method and
/// request, and its answer in the transaction of its write (docs/protocol.md, section 18). A
/// repeat with the same key and the same request within 24 hours gets that answer again, the
/// response's very bytes or the same error, and writes nothing, after a crash and restart as
/// well and on any instance over the same database. The same key with another request is
/// refused with `IDEMPOTENCY_KEY_REUSED`. A repeat that arrives while the first call still
/// runs on this instance waits for it and gets its answer (on another instance, the database
/// makes its transaction wait for the first's).
///
/// It wraps the handlers already registered, so it comes after the services in the list given
/// to the server.
public struct KeyedWrites: RPCService {
  private let store: any WriteKeyStore
  private let clock: any WallClock
  private let limit: Int
  private let running: RunningKeys

  /// Keys kept in `store`, read against `clock`; a player holds at most `limit` keys, and this
  /// instance holds the latest answers up to `recentAnswerBytes` (0: none, every repeat goes to
  /// the store).
  public init(
    store: any WriteKeyStore, clock: any WallClock,
    limit: Int = WriteKeyRules.maximumKeysPerPlayer, recentAnswerBytes: Int = 16 << 20
  ) {
    self.store = store
    self.clock = clock
    self.limit = limit
    self.running = RunningKeys(recentBytes: recentAnswerBytes)
  }

  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.wrapUnary(where: \.takesIdempotencyKey) { method, handler in
      { payload, context, sink in
        try await answer(method, payload, context) { try await handler(payload, context, sink) }
      }
    }
  }

  private func answer(
    _ method: MethodInfo, _ payload: RequestBytes, _ context: ServerContext,
    _ handler: @Sendable () async throws -> [UInt8]?
  ) async throws -> [UInt8]? {
    guard let key = context.metadataValue("idempotency-key") else { return try await handler() }
    try WriteKeyRules.validate(key)
    // Every keyed method needs a session; the server has already refused a call without one.
    guard let principal = context.principal else { return try await handler() }
    let digest = Self.digest(path: method.path, request: payload.untaken)
    let player = principal.userID
    return try await running.one(player: player, key: key) {
      let now = clock.nowUnixMs()
      // A repeat on the instance that answered the first call: from memory, no transaction.
      if let recent = running.recent(player: player, key: key, nowUnixMs: now) {
        return try Self.replay(recent, digest: digest)
      }
      let write = KeyedWrite(
        playerID: player, key: key, digest: digest, atUnixMs: now, limit: limit)
      // No read first: the write's own transaction looks the key up, and a repeat whose write
      // committed before ends there with the kept answer (`AnsweredBefore`). Only a call that
      // never reached that transaction reads the key, below.
      // Whatever happens next, an answer the write's transaction kept is the key's answer, on
      // this instance as in the store.
      defer {
        if let kept = write.kept {
          running.remember(
            StoredWriteKey(digest: digest, createdAtUnixMs: now, answer: kept),
            player: player, key: key)
        }
      }
      let response: [UInt8]?
      do {
        response = try await WriteKeyScope.$write.withValue(write) { try await handler() }
      } catch let answered as AnsweredBefore {
        running.remember(answered.stored, player: player, key: key)
        return try Self.replay(answered.stored, digest: digest)
      } catch let error as DomainError where !write.isTaken && WriteKeyRules.isFinal(error) {
        // Refused before its store call (a rule checked in memory, a missing row): the refusal
        // is the answer, kept under the key as a write's would be, unless the key already has
        // one.
        do {
          try await store.keepFailure(of: write, error)
        } catch let answered as AnsweredBefore {
          running.remember(answered.stored, player: player, key: key)
          return try Self.replay(answered.stored, digest: digest)
        }
        throw error
      } catch let error where !write.isTaken {
        // Refused for now (a rate, the database out of reach) before its store call: a repeat
        // of a write that committed earlier still gets that write's answer.
        if let stored = try? await kept(player, key, now) {
          return try Self.replay(stored, digest: digest)
        }
        throw error
      }
      if write.isTaken { return response }
      // Answered without a write (nothing to change): a repeat of a call that did write gets
      // that call's answer.
      if let stored = try await kept(player, key, now) {
        return try Self.replay(stored, digest: digest)
      }
      return response
    }
  }

  /// The live answer kept under `key`, if any.
  private func kept(_ player: Int64, _ key: String, _ now: Int64) async throws
    -> StoredWriteKey?
  {
    guard let stored = try await store.storedWriteKey(playerID: player, key: key),
      WriteKeyRules.isLive(createdAtUnixMs: stored.createdAtUnixMs, nowUnixMs: now)
    else { return nil }
    return stored
  }

  /// The stored answer, for a repeat whose request has `digest`.
  static func replay(_ stored: StoredWriteKey, digest: [UInt8]) throws -> [UInt8] {
    guard stored.digest == digest else { throw WriteKeyRules.keyReused }
    switch stored.answer {
    case .response(let bytes): return bytes
    case .error(let error): throw error
    }
  }

  /// SHA-256 of the method path, a zero byte, and the request as sent.
  static func digest(path: String, request: [UInt8]) -> [UInt8] {
    var hasher = SHA256()
    hasher.update(data: Array(path.utf8))
    hasher.update(data: [0])
    hasher.update(data: request)
    return Array(hasher.finalize())
  }
}

/// Runs `write`, the store call whose transaction answers a keyed write, so that the store
/// keeps the key with `respond(value)`, the response made from the transaction's value. Outside
/// a keyed write (no key given) it runs `write` as it is. A handler calls it around one store
/// call: the one whose value its response is made from.
func withKeyedAnswer<Value: Sendable, Response: ProtobufMessage>(
  _ respond: @escaping @Sendable (Value) -> Response,
  refine: @escaping @Sendable (DomainError) -> DomainError = { $0 },
  _ write: () async throws -> Value
) async throws -> Value {
  guard let keyed = WriteKeyScope.write else { return try await write() }
  let answer = KeyedAnswer(write: keyed) { value -> WriteAnswer? in
    if let value = value as? Value { return .response(respond(value).serializedBytes()) }
    // A transaction that commits what it must and refuses the call after (room writes).
    if let (value, refusal) = value as? (Value, DomainError?) {
      guard let refusal else { return .response(respond(value).serializedBytes()) }
      // A refusal for now is no answer: the key is not kept.
      return WriteKeyRules.isFinal(refusal) ? .error(refine(refusal)) : nil
    }
    return nil
  } refine: {
    refine($0)
  }
  return try await WriteKeyScope.$answer.withValue(answer) { try await write() }
}

/// The keyed calls running on this instance: one at a time per player and key, the others
/// waiting in arrival order; and the answers of the latest ones, so that a repeat on the same
/// instance needs no transaction (at most `recentBytes` of answers, the oldest forgotten first).
final class RunningKeys: Sendable {
  private struct Slot: Hashable {
    var player: Int64
    var key: String
  }

  private struct Recent {
    var answers: [Slot: StoredWriteKey] = [:]
    var order: Deque<Slot> = []
    var bytes = 0
  }

  private let waiting = Mutex<[Slot: [CheckedContinuation<Void, Never>]]>([:])
  private let recents = Mutex(Recent())
  private let recentBytes: Int

  /// Keeps at most `recentBytes` of recent answers (responses, keys and digests).
  init(recentBytes: Int = 16 << 20) {
    self.recentBytes = recentBytes
  }

  /// The answer this instance gave under `key` less than 24 hours ago, if it still holds it.
  func recent(player: Int64, key: String, nowUnixMs: Int64) -> StoredWriteKey? {
    recents.withLock { recent in
      guard let stored = recent.answers[Slot(player: player, key: key)],
        WriteKeyRules.isLive(createdAtUnixMs: stored.createdAtUnixMs, nowUnixMs: nowUnixMs)
      else { return nil }
      return stored
    }
  }

  /// Holds `stored`, the answer kept in the store under `key`, forgetting the oldest answers
  /// beyond the budget.
  func remember(_ stored: StoredWriteKey, player: Int64, key: String) {
    let size = Self.size(stored, key: key)
    guard size <= recentBytes / 16 else { return }
    let slot = Slot(player: player, key: key)
    recents.withLock { recent in
      if let old = recent.answers.updateValue(stored, forKey: slot) {
        recent.bytes -= Self.size(old, key: key)
      } else {
        recent.order.append(slot)
      }
      recent.bytes += size
      while recent.bytes > recentBytes, let oldest = recent.order.popFirst() {
        if let gone = recent.answers.removeValue(forKey: oldest) {
          recent.bytes -= Self.size(gone, key: oldest.key)
        }
      }
    }
  }

  private static func size(_ stored: StoredWriteKey, key: String) -> Int {
    let answer =
      switch stored.answer {
      case .response(let bytes): bytes.count
      case .error(let error): error.en.utf8.count + error.zhCN.utf8.count + 64
      }
    return answer + key.utf8.count + stored.digest.count + 64
  }

  /// Runs `body` once no other call with the same player and key runs.
  func one<T: Sendable>(
    player: Int64, key: String, _ body: @Sendable () async throws -> T
  ) async throws -> T {
    let slot = Slot(player: player, key: key)
    let free = waiting.withLock { waiting -> Bool in
      guard waiting[slot] == nil else { return false }
      waiting[slot] = []
      return true
    }
    if !free {
      await withCheckedContinuation { continuation in
        let now = waiting.withLock { waiting -> Bool in
          guard waiting[slot] != nil else {
            waiting[slot] = []
            return true
          }
          waiting[slot]!.append(continuation)
          return false
        }
        if now { continuation.resume() }
      }
    }
    defer {
      waiting.withLock { waiting in
        guard var queue = waiting[slot], !queue.isEmpty else {
          waiting[slot] = nil
          return
        }
        // The slot passes to the next call in line.
        let next = queue.removeFirst()
        waiting[slot] = queue
        next.resume()
      }
    }
    return try await body()
  }
}
