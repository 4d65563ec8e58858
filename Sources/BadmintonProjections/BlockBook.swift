public import BadmintonStore
import Synchronization

/// Who has blocked whom. Nearby players and match candidates leave out players blocked either
/// way; messages, friend requests and room invitations from a blocked player never reach the
/// blocker.
public protocol BlockRelations: Sendable {
  /// Every player `playerID` has blocked or was blocked by.
  func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64>
  /// The same players, from memory, without waiting: what a call served inline on an event
  /// loop (FindMatches) reads.
  func playersBlockedNow(eitherWayWith playerID: Int64) -> Set<Int64>
  /// Whether `blockerID` has blocked `playerID`.
  func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool
}

/// Every block, in memory: a projection of the store's change feed, so that a search asks no
/// query of the store. A block is in the book before Block returns, and gone before Unblock
/// returns.
public final class BlockBook: BlockRelations {
  private struct State {
    /// Blocker to the players they blocked.
    var blocked: [Int64: Set<Int64>] = [:]
    /// Blocked player to the players who blocked them.
    var blockedBy: [Int64: Set<Int64>] = [:]
    /// The store's row id of each block, so that a lifted block (which names the row alone)
    /// finds what to remove.
    var rows: [Int64: BlockChange] = [:]

    mutating func add(_ block: BlockChange) {
      blocked[block.blockerID, default: []].insert(block.blockedID)
      blockedBy[block.blockedID, default: []].insert(block.blockerID)
    }

    mutating func remove(_ block: BlockChange) {
      blocked[block.blockerID]?.remove(block.blockedID)
      if blocked[block.blockerID]?.isEmpty == true { blocked[block.blockerID] = nil }
      blockedBy[block.blockedID]?.remove(block.blockerID)
      if blockedBy[block.blockedID]?.isEmpty == true { blockedBy[block.blockedID] = nil }
    }
  }

  private let state = Mutex(State())

  /// An empty book.
  public init() {}

  /// Applies one committed change; anything but a block is ignored. Applying a change again
  /// changes nothing.
  public func apply(_ change: StoreChange) {
    guard case .block(let rowID, let block) = change else { return }
    state.withLock { state in
      let previous = state.rows[rowID]
      guard previous != block else { return }
      if let previous { state.remove(previous) }
      state.rows[rowID] = block
      if let block { state.add(block) }
    }
  }

  public func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64> {
    playersBlockedNow(eitherWayWith: playerID)
  }

  public func playersBlockedNow(eitherWayWith playerID: Int64) -> Set<Int64> {
    state.withLock { ($0.blocked[playerID] ?? []).union($0.blockedBy[playerID] ?? []) }
  }

  public func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool {
    state.withLock { $0.blocked[blockerID]?.contains(playerID) == true }
  }

  /// Every block by its row id, and who blocked whom as the searches see it, to compare with
  /// a book built afresh.
  var snapshot: (rows: [Int64: BlockChange], blocked: [Int64: Set<Int64>]) {
    state.withLock { ($0.rows, $0.blocked) }
  }
}
