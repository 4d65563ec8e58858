public import BadmintonDomain
public import BadmintonStore
import Synchronization

/// The in-memory nearby index the services share: rebuilt from the store at start, updated
/// after every committed location change, searched without touching the store.
///
/// The index holds only the positions other players may be shown (see `LocationPrivacy`): each
/// player's cell centre. Searches measure from the searcher's cell centre, compare the radius
/// with distances rounded to whole bands and order by them, so every answer depends on the
/// players' cells alone.
public final class NearbyIndex: Sendable {
  private struct State {
    var index = GeoIndex()
    /// The store's revision of each indexed location; an older one never replaces a newer one,
    /// so the index follows the order in which changes were committed.
    var revisions: [Int64: Int64] = [:]
    /// Each player's last accepted own location and when it was accepted, for the speed limit.
    var moves: [Int64: (location: Coordinate, atUnixMs: Int64)] = [:]
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
        state.index.update(entry.playerID, to: LocationPrivacy.shownPosition(of: entry.location))
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
      state.index.update(playerID, to: LocationPrivacy.shownPosition(of: location))
    }
  }

  /// Accepts `playerID`'s move to `location` at `nowUnixMs` if `LocationPrivacy.allowsMove`
  /// allows it from their last accepted move (or from `stored`, the store's last location and
  /// time, when this index has seen none), else throws `LOCATION_MOVE_TOO_FAST`. Checked and
  /// recorded at once, so concurrent updates cannot all pass against the same old location.
  public func acceptMove(
    _ playerID: Int64, to location: Coordinate, atUnixMs nowUnixMs: Int64,
    stored: (location: Coordinate, atUnixMs: Int64)?
  ) throws(DomainError) {
    let allowed = state.withLock { state in
      if let last = state.moves[playerID] ?? stored,
        !LocationPrivacy.allowsMove(
          from: last.location, atUnixMs: last.atUnixMs, to: location, atUnixMs: nowUnixMs)
      {
        return false
      }
      state.moves[playerID] = (location, nowUnixMs)
      return true
    }
    guard allowed else { throw LocationPrivacy.moveTooFast }
  }

  /// The position others are shown for `playerID` (their cell's centre), if located.
  public func location(of playerID: Int64) -> Coordinate? {
    state.withLock { $0.index.location(of: playerID) }
  }

  /// The first `limit` players whose shown distance from `center`'s cell is within
  /// `radiusMiles` (rounded up to whole bands), after `cursor`, in the order of shown distance
  /// and then player id, leaving out `excluded`. Each hit carries its shown distance.
  public func nearest(
    to center: Coordinate, radiusMiles: Double, after cursor: NearbyHit?, limit: Int,
    excluding excluded: Set<Int64>
  ) -> [NearbyHit] {
    let origin = LocationPrivacy.shownPosition(of: center)
    return state.withLock {
      $0.index.nearest(
        to: origin, radiusMiles: radiusMiles, after: cursor, limit: limit,
        shownDistance: LocationPrivacy.banded
      ) {
        excluded.contains($0)
      }
    }
  }
}
