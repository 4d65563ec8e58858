import BadmintonDomain
import Foundation
import Synchronization

/// One row a committed transaction changed, in the form the in-memory state needs it: the row as
/// it stands after the transaction, or nil when the transaction deleted it. Applying the same
/// change twice, or the rows loaded at start as changes, leaves a projection the same.
public enum StoreChange: Hashable, Sendable {
  /// A player was created or changed (profile, level, location, reputation, password).
  case player(PlayerRecord)
  /// A login session was created, or (nil) ended: a logout, or removed by housekeeping. Sessions
  /// are told apart by the row id the store gives them.
  case session(rowID: Int64, SessionRecord?)
  /// An availability was posted or changed state, or (nil) was deleted by housekeeping.
  case availability(id: Int64, AvailabilityRecord?)
  /// A match was created or changed state, or (nil) was deleted.
  case match(id: Int64, MatchRecord?)
  /// A block was made, or (nil) lifted. Blocks are told apart by their row id.
  case block(rowID: Int64, BlockChange?)
  /// An event was appended to a player's inbox.
  case event(EventRecord)
  /// A player was suspended (or their suspension changed), or (nil) the suspension was lifted.
  case suspension(playerID: Int64, SuspensionRecord?)
}

/// A block as the feed gives it.
public struct BlockChange: Hashable, Sendable {
  /// Who blocked.
  public var blockerID: Int64
  /// Who is blocked.
  public var blockedID: Int64

  /// A block of `blockedID` by `blockerID`.
  public init(blockerID: Int64, blockedID: Int64) {
    self.blockerID = blockerID
    self.blockedID = blockedID
  }
}

/// What one transaction changed, numbered in commit order.
public struct CommittedChanges: Hashable, Sendable {
  /// 1 for the first transaction that changed anything after the store was opened, then one
  /// more for each.
  public var sequence: UInt64
  /// The rows changed, each once, in the order the transaction first changed them.
  public var changes: [StoreChange]

  /// Changes numbered `sequence`.
  public init(sequence: UInt64, changes: [StoreChange]) {
    self.sequence = sequence
    self.changes = changes
  }
}

/// The committed changes of every write, in commit order, to every subscriber. A subscriber is
/// called on the store's writer right after each commit and before the write returns to its
/// caller, so whoever wrote sees their change in every projection; it must be quick and must
/// not call the store.
///
/// Each engine publishes to it: the embedded store from a transaction observer on its one
/// writer, the PostgreSQL store from the tail of the event log.
public final class ChangeFeed: Sendable {
  /// Receives each transaction's changes.
  public typealias Subscriber = @Sendable (CommittedChanges) -> Void

  private struct State {
    var sequence: UInt64 = 0
    var subscribers: [Subscriber] = []
  }

  private let state = Mutex(State())

  /// A feed with no subscribers.
  public init() {}

  /// Calls `subscriber` with every transaction committed from now on.
  public func subscribe(_ subscriber: @escaping Subscriber) {
    state.withLock { $0.subscribers.append(subscriber) }
  }

  /// The number of the last transaction published.
  public var sequence: UInt64 { state.withLock { $0.sequence } }

  /// Numbers `changes` and hands them to every subscriber, in the order they subscribed.
  package func publish(_ changes: [StoreChange]) {
    let (committed, subscribers) = state.withLock { state in
      state.sequence += 1
      return (CommittedChanges(sequence: state.sequence, changes: changes), state.subscribers)
    }
    for subscriber in subscribers { subscriber(committed) }
  }
}
