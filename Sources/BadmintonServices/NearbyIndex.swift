public import BadmintonDomain
public import BadmintonStore
import Synchronization

/// The in-memory nearby index the services share: rebuilt from the store at start, updated
/// after every committed location change, searched without touching the store.
public final class NearbyIndex: Sendable {
  private struct State {
    var index = GeoIndex()
    /// When each player's indexed location was sent; an older update never replaces a newer one.
    var updatedAt: [Int64: Int64] = [:]
  }

  private let state = Mutex(State())

  /// An empty index.
  public init() {}

  /// An index holding every located player in `store`.
  public static func rebuilt(from store: any PlayerStore) async throws -> NearbyIndex {
    let index = NearbyIndex()
    let located = try await store.allLocations()
    index.state.withLock { state in
      for entry in located { state.index.update(entry.playerID, to: entry.location) }
    }
    return index
  }

  /// Records a committed location change sent at `atUnixMs`.
  public func update(_ playerID: Int64, to location: Coordinate, atUnixMs: Int64) {
    state.withLock { state in
      if let previous = state.updatedAt[playerID], previous > atUnixMs { return }
      state.updatedAt[playerID] = atUnixMs
      state.index.update(playerID, to: location)
    }
  }

  /// The indexed location of `playerID`.
  public func location(of playerID: Int64) -> Coordinate? {
    state.withLock { $0.index.location(of: playerID) }
  }

  /// Players within `radiusMiles` of `center`, nearest first, leaving out `excluded`.
  public func nearby(_ center: Coordinate, radiusMiles: Double, excluding excluded: Set<Int64>)
    -> [NearbyHit]
  {
    state.withLock { $0.index.nearby(center, radiusMiles: radiusMiles) { excluded.contains($0) } }
  }
}
