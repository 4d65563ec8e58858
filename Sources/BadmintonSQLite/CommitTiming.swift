import BadmintonStore
import GRDB
import Synchronization

extension SQLitePlayerStore {
  /// Calls `observe` on the store's writer with the duration of every transaction's commit from
  /// now on: from SQLite's commit hook to the end of the commit, which is where the write-ahead
  /// log is written and (with `synchronous = FULL`) synced to disk; the change feed's work after
  /// the commit is not in it. It must be quick (a metric's record): the store's one writer waits
  /// for it. A later call replaces an earlier one.
  public func observeCommitDurations(_ observe: @escaping @Sendable (Duration) -> Void) {
    commitTimer.observe(observe)
  }
}

/// Times each commit between `databaseWillCommit` and `databaseDidCommit`; observes no row. The
/// store adds it before the change feed's observer, so that GRDB tells it of the commit first.
final class CommitTimer: TransactionObserver, @unchecked Sendable {
  // `began` is used on the writer's queue only: GRDB calls a transaction observer there.
  private var began: ContinuousClock.Instant?
  private let observer = Mutex<(@Sendable (Duration) -> Void)?>(nil)

  func observe(_ observe: @escaping @Sendable (Duration) -> Void) {
    observer.withLock { $0 = observe }
  }

  func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }

  func databaseDidChange(with event: DatabaseEvent) {}

  func databaseWillCommit() throws { began = .now }

  func databaseDidCommit(_ db: Database) {
    guard let began else { return }
    self.began = nil
    let elapsed = ContinuousClock.now - began
    observer.withLock { $0 }?(elapsed)
  }

  func databaseDidRollback(_ db: Database) { began = nil }
}
