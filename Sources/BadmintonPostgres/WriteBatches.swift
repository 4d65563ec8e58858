import PostgresNIO
import Synchronization

/// Commits this instance's concurrent writes together: the writes waiting when a lane becomes
/// free share one transaction, one commit (one WAL flush) and one wait for the change tail.
///
/// A write is queued; a free lane (at most `lanes` run at once, each on a pooled connection of
/// its own) takes every write queued so far, at most `maximumBatch`, and runs them one after the
/// other in one `SERIALIZABLE` transaction. The transaction commits once, the tail hands its
/// changes to the feed (while the lane takes its next batch), and only then is every caller
/// resumed: a write is never acknowledged
/// before it is durable and in this instance's projections. Under load the batches grow and
/// the costs of a transaction (its `BEGIN`, `COMMIT`, flush, transaction id and tail read) are
/// shared; alone, a write commits at once, as it would on its own.
///
/// **A failing write fails alone.** Most writes refuse, when they do, before they change
/// anything (they read, then write), so the writes run without savepoints and each one's
/// modifying statements are counted: a write that throws having run none leaves nothing to
/// undo. When a write throws after a modifying statement, or PostgreSQL refuses a statement
/// (which aborts the whole transaction), the transaction is rolled back and the batch runs again
/// from its first write, this time each write in a savepoint of its own, so that only the
/// failing one's changes are undone and it alone gets its error. A batch PostgreSQL refuses for
/// a concurrent transaction (40001, 40P01) is split: each of its writes runs again in a
/// transaction of its own, one after the other, run again as often as it takes, as a lone
/// write is. A write may
/// therefore run more than once: it must only read and write through the connection it is
/// given.
///
/// **Turns.** The players whose event counters the writes number (`keys`) are taken in sorted
/// order before the transaction begins, in this process and with PostgreSQL's advisory locks
/// across instances, so writes to one player's queue take turns instead of refusing each
/// other, and no two lanes wait for each other.
///
/// **Order.** The change tail hands on each batch as one transaction, in transaction id order,
/// which is commit order for every row the batches share.
final class WriteBatches: Sendable {
  /// Writes committed in one transaction at most. Run again with savepoints, each write takes
  /// one, and a room write one more of its own: PostgreSQL keeps the subtransactions of 64 at
  /// most per transaction in shared memory, and past that every snapshot on the server slows.
  static let maximumBatch = 30

  private struct State {
    var queued: [any BatchedWrite] = []
    /// Lanes taking batches now.
    var running = 0
  }

  private let lanes: Int
  private let state = Mutex(State())
  private let run: @Sendable ([any BatchedWrite]) async -> Void

  /// Batches of at most `maximumBatch` writes, `lanes` at once, each run by `run`.
  init(lanes: Int, run: @escaping @Sendable ([any BatchedWrite]) async -> Void) {
    self.lanes = max(1, lanes)
    self.run = run
  }

  /// Runs `body` in a transaction shared with the other writes waiting at the same time, after
  /// taking turns on `keys`; returns its value once that transaction has committed and the feed
  /// has its changes. If `body` throws, none of its changes remain.
  func write<T: Sendable>(
    keys: [Int64], _ body: @escaping @Sendable (SQLConnection) async throws -> T
  ) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      enqueue(Write(keys: keys, body: body, continuation: continuation))
    }
  }

  /// The writes waiting for a lane.
  var queuedCount: Int { state.withLock { $0.queued.count } }

  private func enqueue(_ write: any BatchedWrite) {
    let start = state.withLock { state -> Bool in
      state.queued.append(write)
      guard state.running < lanes else { return false }
      state.running += 1
      return true
    }
    if start { Task { await self.lane() } }
  }

  /// One lane: takes batches until none is waiting.
  private func lane() async {
    while true {
      let batch = state.withLock { state -> [any BatchedWrite] in
        let count = min(state.queued.count, Self.maximumBatch)
        let batch = Array(state.queued.prefix(count))
        state.queued.removeFirst(count)
        if batch.isEmpty { state.running -= 1 }
        return batch
      }
      guard !batch.isEmpty else { return }
      await run(batch)
    }
  }
}

/// A write waiting in a batch: run inside the batch's transaction, then finished once that
/// transaction has ended.
protocol BatchedWrite: AnyObject, Sendable {
  /// The advisory lock keys the write takes turns on.
  var keys: [Int64] { get }
  /// Runs the write on `db` inside the batch's transaction as it stands, keeping its value or
  /// error; forgets what an earlier run kept.
  func run(_ db: SQLConnection) async
  /// The error the last run threw, if it did.
  var error: (any Error)? { get }
  /// Resumes the caller: with the write's own error if it threw, with `batchError` if its
  /// transaction did not commit, else with its value.
  func finish(batchError: (any Error)?)
}

/// A write of `T` and the caller waiting for it.
private final class Write<T: Sendable>: BatchedWrite, @unchecked Sendable {
  let keys: [Int64]
  private let body: @Sendable (SQLConnection) async throws -> T
  private let continuation: CheckedContinuation<T, any Error>
  /// Set by `run` and read by `finish`, by the one lane that holds the batch, one after the
  /// other: never at the same time.
  private var result: Result<T, any Error>?

  init(
    keys: [Int64], body: @escaping @Sendable (SQLConnection) async throws -> T,
    continuation: CheckedContinuation<T, any Error>
  ) {
    self.keys = keys
    self.body = body
    self.continuation = continuation
  }

  func run(_ db: SQLConnection) async {
    do {
      result = .success(try await body(db))
    } catch {
      result = .failure(error)
    }
  }

  var error: (any Error)? {
    if case .failure(let error) = result { return error }
    return nil
  }

  func finish(batchError: (any Error)?) {
    switch (result, batchError) {
    case (.failure(let error)?, _): continuation.resume(throwing: storableError(error))
    case (_, let error?): continuation.resume(throwing: error)
    case (.success(let value)?, nil): continuation.resume(returning: value)
    case (nil, nil): continuation.resume(throwing: CancellationError())
    }
  }
}

/// Counts the modifying statements run on a connection: what tells whether a write that threw
/// left changes behind.
final class ModifyingStatements: @unchecked Sendable {
  // One lane's task runs the statements of its batch one at a time and reads the count between
  // them: never two threads at once.
  private(set) var count = 0

  /// Notes `sql` if it may change a row.
  func note(_ sql: String) {
    if Self.mayModify(sql) { count += 1 }
  }

  /// Whether `sql` may change a row: it names INSERT, UPDATE or DELETE anywhere (a CTE, a
  /// function call), or is not a plain SELECT. Erring towards yes only costs a rerun.
  static func mayModify(_ sql: String) -> Bool {
    let upper = sql.uppercased()
    if upper.contains("INSERT") || upper.contains("UPDATE") || upper.contains("DELETE") {
      return true
    }
    let first = upper.drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" }
    return !(first.hasPrefix("SELECT") || first.hasPrefix("WITH"))
  }

  /// `mayModify` of each prepared statement's SQL, worked out once.
  private static let known = Mutex<[String: Bool]>([:])

  /// Notes the prepared statement `sql`, whose answer is kept.
  func notePrepared(_ sql: String) {
    let modifies = Self.known.withLock { known in
      if let modifies = known[sql] { return modifies }
      let modifies = Self.mayModify(sql)
      known[sql] = modifies
      return modifies
    }
    if modifies { count += 1 }
  }
}

extension PostgresStore {
  /// Runs `batch` in one transaction, again (each write in a savepoint) when a write failed
  /// part-way, waits for the feed to have it, and finishes every write.
  static func commit(
    _ batch: [any BatchedWrite], database: SQLDatabase, turns: KeyedTurns, tail: ChangeTail
  ) async {
    let keys = Set(batch.flatMap(\.keys)).sorted()
    for key in keys { await turns.acquire(key) }
    var savepoints = false
    var outcome: Result<UInt64?, any Error>
    while true {
      do {
        // A batch PostgreSQL refuses for a concurrent transaction is split rather than run again
        // whole (below): run again, the same writes would meet the same transactions.
        let (_, transaction) = try await database.transaction(
          queueingOn: keys, attempts: batch.count > 1 ? 1 : SQLDatabase.maximumAttempts
        ) { db in
          try await Self.runAll(batch, on: db, savepoints: savepoints)
        }
        outcome = .success(transaction)
      } catch is PartWritten where !savepoints {
        savepoints = true
        continue
      } catch {
        outcome = .failure(error)
      }
      break
    }
    for key in keys { turns.release(key) }
    if batch.count > 1, case .failure(let error) = outcome, isRetryable(error) {
      // Each write again in a transaction of its own, one after the other on this lane, run
      // again as often as it takes: a contended batch costs no more than its writes would have
      // alone, and its writes do not meet each other.
      for write in batch { await commit([write], database: database, turns: turns, tail: tail) }
      return
    }
    switch outcome {
    case .success(let transaction):
      // A transaction that wrote nothing has no id, and nothing to wait for. The lane takes its
      // next batch while this one waits for the tail.
      guard let transaction else {
        for write in batch { write.finish(batchError: nil) }
        return
      }
      Task {
        var batchError: (any Error)?
        do { try await tail.caughtUp(through: transaction) } catch { batchError = error }
        for write in batch { write.finish(batchError: batchError) }
      }
    case .failure(let error):
      for write in batch { write.finish(batchError: error) }
    }
  }

  /// Runs every write of a batch on `db`: bare, throwing `PartWritten` when one fails after it
  /// changed rows (or PostgreSQL refused a statement); or each in a savepoint of its own.
  private static func runAll(_ batch: [any BatchedWrite], on db: SQLConnection, savepoints: Bool)
    async throws
  {
    let counted = SQLConnection(
      connection: db.connection, logger: db.logger, modifying: ModifyingStatements())
    for write in batch {
      if savepoints {
        try await counted.run("SAVEPOINT batched_write")
        await write.run(counted)
        if let error = write.error {
          // A concurrent transaction's refusal ends the whole batch, to be run again; so does
          // a connection that failed (an error PostgreSQL did not send for a statement).
          if isRetryable(error) || isDatabaseUnavailable(error) { throw error }
          try await counted.run("ROLLBACK TO SAVEPOINT batched_write")
        }
        try await counted.run("RELEASE SAVEPOINT batched_write")
      } else {
        let before = counted.modifying?.count ?? 0
        await write.run(counted)
        if let error = write.error {
          if isRetryable(error) || isDatabaseUnavailable(error) { throw error }
          if sqlState(error) != nil || counted.modifying?.count != before { throw PartWritten() }
        }
      }
    }
  }
}

/// Thrown inside a batch's transaction to roll it back when a write failed after it changed
/// rows, which only a savepoint of its own could have undone.
struct PartWritten: Error {}
