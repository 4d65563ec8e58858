public import BadmintonStore
import Synchronization

/// Every player's suspension, in memory: a projection of the store's change feed, so that
/// authenticating a call and leaving suspended players out of searches ask the store nothing.
/// A suspension is kept after it ends until housekeeping deletes it; whether it holds is the
/// clock's to say.
public final class SuspensionBook: Sendable {
  private struct State {
    var suspensions: [Int64: SuspensionRecord] = [:]
    /// The players suspended at the time it was made, valid until `holdingUntil` (the earliest
    /// of their ends) or the next change, whichever comes first.
    var holding: Set<Int64> = []
    var holdingUntil: Int64 = .min
    var holdingMadeAt: Int64 = .max
  }

  private let state = Mutex(State())
  /// How many suspensions the book holds, read without the lock: while it is 0 (almost always),
  /// authenticating a call and a search take no lock here at all.
  private let stored = Atomic<Int>(0)

  /// An empty book.
  public init() {}

  /// Applies one committed change; anything but a suspension is ignored. Applying a change
  /// again changes nothing.
  public func apply(_ change: StoreChange) {
    guard case .suspension(let playerID, let suspension) = change else { return }
    state.withLock { state in
      state.suspensions[playerID] = suspension
      state.holdingUntil = .min
      stored.store(state.suspensions.count, ordering: .releasing)
    }
  }

  /// The player's suspension, ended or not.
  public func suspension(of playerID: Int64) -> SuspensionRecord? {
    state.withLock { $0.suspensions[playerID] }
  }

  /// When the player's suspension ends, if it holds at `nowUnixMs`.
  public func suspendedUntil(_ playerID: Int64, nowUnixMs: Int64) -> Int64? {
    guard stored.load(ordering: .acquiring) > 0 else { return nil }
    guard let until = state.withLock({ $0.suspensions[playerID]?.untilUnixMs }), until > nowUnixMs
    else { return nil }
    return until
  }

  /// Every player whose suspension holds at `nowUnixMs`: the players searches leave out. Kept
  /// made between changes, so a search costs a lock and a check of the time (nothing when there
  /// are none); made again after a change, or once the earliest of them ends.
  public func holding(nowUnixMs: Int64) -> Set<Int64> {
    guard stored.load(ordering: .acquiring) > 0 else { return [] }
    return state.withLock { state in
      guard !state.suspensions.isEmpty else { return [] }
      // Valid while no suspension changed, none ended, and the clock has not gone back past
      // the time it was made.
      if nowUnixMs < state.holdingUntil, nowUnixMs >= state.holdingMadeAt {
        return state.holding
      }
      var holding: Set<Int64> = []
      var until = Int64.max
      for (playerID, suspension) in state.suspensions where suspension.untilUnixMs > nowUnixMs {
        holding.insert(playerID)
        until = min(until, suspension.untilUnixMs)
      }
      state.holding = holding
      state.holdingUntil = until
      state.holdingMadeAt = nowUnixMs
      return holding
    }
  }

  /// How many suspensions the book holds, ended ones too.
  public var count: Int { state.withLock { $0.suspensions.count } }
}
