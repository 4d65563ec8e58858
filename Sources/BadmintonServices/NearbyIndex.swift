public import BadmintonDomain
public import BadmintonStore
import Synchronization

/// The in-memory nearby index the services share: rebuilt from the store at start, updated
/// after every committed location change, searched without touching the store.
public final class NearbyIndex: Sendable {
  private struct State {
    var index = GeoIndex()
    /// The store's revision of each indexed location; an older one never replaces a newer one,
    /// so the index follows the order in which changes were committed.
    var revisions: [Int64: Int64] = [:]
  }

  private let state = Mutex(State())

  /// An empty index.
  public init() {}

  /// An index holding every located player in `store`.
  public static func rebuilt(from store: any PlayerStore) async throws -> NearbyIndex {
    let index = NearbyIndex()
    let located = try await store.allLocations()
    index.state.withLock { state in
      for entry in located {
        state.index.update(entry.playerID, to: entry.location)
        state.revisions[entry.playerID] = entry.revision
      }
    }
    return index
  }

  /// Records a committed location change with the store's `revision` of it.
  public func update(_ playerID: Int64, to location: Coordinate, revision: Int64) {
    state.withLock { state in
      if let previous = state.revisions[playerID], previous >= revision { return }
      state.revisions[playerID] = revision
      state.index.update(playerID, to: location)
    }
  }

  /// The indexed location of `playerID`.
  public func location(of playerID: Int64) -> Coordinate? {
    state.withLock { $0.index.location(of: playerID) }
  }

  /// The first `limit` players within `radiusMiles` of `center` after `cursor`, nearest first,
  /// leaving out `excluded`.
  public func nearest(
    to center: Coordinate, radiusMiles: Double, after cursor: NearbyHit?, limit: Int,
    excluding excluded: Set<Int64>
  ) -> [NearbyHit] {
    state.withLock {
      $0.index.nearest(to: center, radiusMiles: radiusMiles, after: cursor, limit: limit) {
        excluded.contains($0)
      }
    }
  }
}
