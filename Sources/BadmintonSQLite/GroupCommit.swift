import BadmintonStore
import GRDB
import Synchronization

/// Commits concurrent writes together: one transaction, and so one `fsync`, for every write that
/// was waiting when the writer became free.
///
/// A write is queued, and the writer takes every write queued so far (at most `maximumBatch`)
/// and runs them in one transaction: a write that throws gets its own error and keeps none of
/// its changes, the others go on. The transaction then commits once, and only after that commit
/// is every caller resumed, so a write is never acknowledged before it is durable. If the commit
/// fails, or a failing statement takes the whole transaction with it, every write of that
/// transaction fails with that error and none of their changes remain.
///
/// A savepoint per write would cost each write two statements and GRDB's buffering of its
/// changes; most writes refuse, when they do, before they change anything (they check first,
/// then write). So the writes run without savepoints, and the writer counts the rows each one
/// changed (`totalChangesCount`): a write that throws having changed nothing leaves nothing to
/// undo. Only when a write throws part-way, after it changed rows, is the transaction rolled
/// back and its writes run again from the first, this time each in its own savepoint, so that
/// only the failing one's changes are undone. A grouped write may therefore run more than once
/// before it commits: it must only read and write the database it is given.
///
/// While one transaction commits, the writes that arrive queue for the next; under load the
/// transactions grow, and the cost of each commit's `fsync` is shared. Alone, a write commits at
/// once, as it would on its own. Each transaction is taken as one turn on the store's writer, so
/// the other writes of the store interleave with the groups and are never starved.
///
/// The change feed sees each transaction as one commit: its changes, from every write of the
/// group in order, are published once, right after the commit and before any caller resumes.
final class GroupCommit: Sendable {
  /// Writes committed in one transaction at most.
  static let maximumBatch = 512

  private struct State {
    var queued: [any GroupedWrite] = []
    /// Whether a turn on the writer is already scheduled to commit the queued writes.
    var scheduled = false
  }

  private let writer: any DatabaseWriter
  private let state = Mutex(State())

  /// Groups the writes made through it on `writer`.
  init(writer: any DatabaseWriter) {
    self.writer = writer
  }

  /// Runs `updates` in a transaction shared with the other writes waiting at the same time;
  /// returns its result once that transaction has committed. If `updates` throws, none of its
  /// changes remain. `updates` may run more than once: it must only use the database.
  func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws
    -> T
  {
    // Resumed exactly once, by `finish`: the unchecked continuation saves a check per write.
    try await withUnsafeThrowingContinuation { continuation in
      enqueue(Write(updates: updates, continuation: continuation))
    }
  }

  /// The writes waiting for a transaction.
  var queuedCount: Int { state.withLock { $0.queued.count } }

  private func enqueue(_ write: any GroupedWrite) {
    let schedule = state.withLock { state in
      state.queued.append(write)
      defer { state.scheduled = true }
      return !state.scheduled
    }
    if schedule { scheduleTurn() }
  }

  private func scheduleTurn() {
    writer.asyncWriteWithoutTransaction { db in self.commitQueued(db) }
  }

  /// One turn on the writer: commits the writes queued so far, then gives the writer back,
  /// scheduling another turn when more have arrived meanwhile.
  private func commitQueued(_ db: Database) {
    let batch = state.withLock { state in
      let count = min(state.queued.count, Self.maximumBatch)
      let batch = Array(state.queued.prefix(count))
      state.queued.removeFirst(count)
      return batch
    }
    Self.commit(batch, db)
    let more = state.withLock { state in
      if state.queued.isEmpty { state.scheduled = false }
      return state.scheduled
    }
    if more { scheduleTurn() }
  }

  /// Runs `batch` in as few transactions as it takes (one, unless a failure ends a transaction
  /// early) and resumes each write's caller after its transaction ended.
  static func commit(_ batch: [any GroupedWrite], _ db: Database) {
    var next = 0
    // Writes run bare until one throws part-way; from then on, each in a savepoint.
    var savepoints = false
    while next < batch.count {
      let first = next
      var ran: [any GroupedWrite] = []
      var failure: (any Error)?
      do {
        try db.inTransaction(.immediate) {
          while next < batch.count {
            let write = batch[next]
            next += 1
            ran.append(write)
            if savepoints {
              write.runInSavepoint(db)
            } else {
              let changed = db.totalChangesCount
              write.run(db)
              if write.error != nil, db.isInsideTransaction, db.totalChangesCount != changed {
                throw PartWritten()
              }
            }
            // Some errors (a full disk, an I/O error) roll the whole transaction back: what ran
            // in it is gone, and the rest waits for the next one.
            if !db.isInsideTransaction {
              throw write.error ?? DatabaseError(resultCode: .SQLITE_ABORT)
            }
          }
          return .commit
        }
      } catch is PartWritten {
        // Rolled back: the same writes again, each in a savepoint.
        next = first
        savepoints = true
        continue
      } catch {
        failure = error
      }
      if ran.isEmpty, let failure {
        // The transaction could not even begin: nothing can be written now.
        for write in batch[next...] { write.finish(transactionError: failure) }
        return
      }
      for write in ran { write.finish(transactionError: failure) }
    }
  }

  /// Thrown inside a group's transaction to roll it back when a write failed after it changed
  /// rows, which only a savepoint of its own could have undone.
  private struct PartWritten: Error {}
}

/// A write waiting in a group: run on the writer inside the group's transaction, then finished
/// once that transaction has ended.
protocol GroupedWrite: AnyObject, Sendable {
  /// Runs the write in the group's transaction as it stands, keeping its result or error.
  func run(_ db: Database)
  /// Runs the write in a savepoint of its own, keeping its result or error: if it throws, its
  /// changes are undone.
  func runInSavepoint(_ db: Database)
  /// The error the write threw, if it did.
  var error: (any Error)? { get }
  /// Resumes the caller: with the write's own error if it threw, with `transactionError` if its
  /// transaction did not commit, else with its result.
  func finish(transactionError: (any Error)?)
}

/// A write of `T` and the caller waiting for it.
private final class Write<T: Sendable>: GroupedWrite, @unchecked Sendable {
  private let updates: @Sendable (Database) throws -> T
  private let continuation: UnsafeContinuation<T, any Error>
  /// Set by `run`, on the writer only, before `finish` reads it on the writer.
  private var result: Result<T, any Error>?

  init(
    updates: @escaping @Sendable (Database) throws -> T,
    continuation: UnsafeContinuation<T, any Error>
  ) {
    self.updates = updates
    self.continuation = continuation
  }

  func run(_ db: Database) {
    do {
      result = .success(try updates(db))
    } catch {
      result = .failure(error)
    }
  }

  func runInSavepoint(_ db: Database) {
    do {
      var value: T?
      try db.inSavepoint {
        value = try updates(db)
        return .commit
      }
      result = .success(value!)
    } catch {
      result = .failure(error)
    }
  }

  var error: (any Error)? {
    if case .failure(let error) = result { return error }
    return nil
  }

  func finish(transactionError: (any Error)?) {
    switch (result, transactionError) {
    case (.failure(let error)?, _): continuation.resume(throwing: error)
    case (_, let error?): continuation.resume(throwing: error)
    case (.success(let value)?, nil): continuation.resume(returning: value)
    case (nil, nil): continuation.resume(throwing: DatabaseError(resultCode: .SQLITE_ABORT))
    }
  }
}
