public import BadmintonStore
import Synchronization

/// Every login session, in memory: a projection of the store's change feed, so that
/// authenticating a call asks the store nothing. A login's session is in the book before Login
/// returns, and a logout's removal before Logout returns; an expired session stays until
/// housekeeping deletes it, and the authenticator refuses it by the clock meanwhile.
public final class SessionBook: Sendable {
  private struct State {
    /// Token hash to its session.
    var sessions: [[UInt8]: SessionRecord] = [:]
    /// The store's row id of each session to its token hash, so that a deletion (which names
    /// the row alone) finds what to remove.
    var tokenHashes: [Int64: [UInt8]] = [:]
  }

  private let state = Mutex(State())

  /// An empty book.
  public init() {}

  /// Applies one committed change; anything but a session is ignored. Applying a change again
  /// changes nothing.
  public func apply(_ change: StoreChange) {
    guard case .session(let rowID, let session) = change else { return }
    state.withLock { state in
      // A row id the store has given again names a new session; the old one is gone.
      if let previous = state.tokenHashes[rowID], previous != session?.tokenHash {
        state.sessions[previous] = nil
      }
      if let session {
        state.tokenHashes[rowID] = session.tokenHash
        state.sessions[session.tokenHash] = session
      } else {
        state.tokenHashes[rowID] = nil
      }
    }
  }

  /// The session with this token hash, expired or not.
  public func session(tokenHash: [UInt8]) -> SessionRecord? {
    state.withLock { $0.sessions[tokenHash] }
  }

  /// How many sessions the book holds.
  public var count: Int { state.withLock { $0.sessions.count } }

  /// Every session by its row id, to compare with a book built afresh.
  var snapshot: [Int64: SessionRecord] {
    state.withLock { state in state.tokenHashes.compactMapValues { state.sessions[$0] } }
  }
}
