public import BadmintonStore
import Synchronization

/// Every player's suspension, in memory: a projection of the store's change feed, so that
/// authenticating a call and leaving suspended players out of searches ask the store nothing.
/// A suspension is kept after it ends; whether it holds is the clock's to say.
public final class SuspensionBook: Sendable {
  private let suspensions = Mutex<[Int64: SuspensionRecord]>([:])

  /// An empty book.
  public init() {}

  /// Applies one committed change; anything but a suspension is ignored. Applying a change
  /// again changes nothing.
  public func apply(_ change: StoreChange) {
    guard case .suspension(let playerID, let suspension) = change else { return }
    suspensions.withLock { $0[playerID] = suspension }
  }

  /// The player's suspension, ended or not.
  public func suspension(of playerID: Int64) -> SuspensionRecord? {
    suspensions.withLock { $0[playerID] }
  }

  /// When the player's suspension ends, if it holds at `nowUnixMs`.
  public func suspendedUntil(_ playerID: Int64, nowUnixMs: Int64) -> Int64? {
    guard let until = suspensions.withLock({ $0[playerID]?.untilUnixMs }), until > nowUnixMs
    else { return nil }
    return until
  }

  /// Every player whose suspension holds at `nowUnixMs`: the players searches leave out. The
  /// book holds the suspensions that hold and those that ended since the last hourly
  /// housekeeping (which deletes them), so this costs a look at each of those (nothing when
  /// there are none).
  public func holding(nowUnixMs: Int64) -> Set<Int64> {
    suspensions.withLock { suspensions in
      guard !suspensions.isEmpty else { return [] }
      var holding: Set<Int64> = []
      for (playerID, suspension) in suspensions where suspension.untilUnixMs > nowUnixMs {
        holding.insert(playerID)
      }
      return holding
    }
  }

  /// How many suspensions the book holds, ended ones too.
  public var count: Int { suspensions.withLock { $0.count } }
}
