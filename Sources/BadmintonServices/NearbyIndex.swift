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
    /// Each player's last stored own location and when it was stored, for the speed limit.
    var moves: [Int64: (location: Coordinate, atUnixMs: Int64)] = [:]
    /// The players with a move in progress, each with the moves waiting for it, oldest first.
    var moving: [Int64: [CheckedContinuation<Void, Never>]] = [:]
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

  /// Moves `playerID` to `location` if `LocationPrivacy.allowsMove` allows it, else throws
  /// `LOCATION_MOVE_TOO_FAST`. The move is measured from the player's last stored location and
  /// its time: the last move this index saw committed, or else what `stored` reads from the
  /// store. `now` gives the move's time and `write` stores it, returning the store's revision;
  /// only once that write has committed does the index show the new location and measure later
  /// moves from it, so a failed write leaves both as they were. One player's moves run one at a
  /// time, in the order they arrive, so each is checked against the one committed before it.
  /// Returns the move's time.
  public func move(
    _ playerID: Int64, to location: Coordinate,
    stored: () async throws -> (location: Coordinate, atUnixMs: Int64)?,
    now: () -> Int64, write: (_ atUnixMs: Int64) async throws -> Int64
  ) async throws -> Int64 {
    await beginMove(playerID)
    defer { endMove(playerID) }
    var last = state.withLock { $0.moves[playerID] }
    if last == nil { last = try await stored() }
    let nowUnixMs = now()
    if let last,
      !LocationPrivacy.allowsMove(
        from: last.location, atUnixMs: last.atUnixMs, to: location, atUnixMs: nowUnixMs)
    {
      throw LocationPrivacy.moveTooFast
    }
    let revision = try await write(nowUnixMs)
    state.withLock { state in
      state.moves[playerID] = (location, nowUnixMs)
      if let previous = state.revisions[playerID], previous >= revision { return }
      state.revisions[playerID] = revision
      state.index.update(playerID, to: LocationPrivacy.shownPosition(of: location))
    }
    return nowUnixMs
  }

  /// How many moves of `playerID` wait for the one in progress.
  func movesWaiting(for playerID: Int64) -> Int {
    state.withLock { $0.moving[playerID]?.count ?? 0 }
  }

  /// Waits until no other move of `playerID` is in progress, and marks one as in progress.
  private func beginMove(_ playerID: Int64) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let started = state.withLock { state in
        guard state.moving[playerID] != nil else {
          state.moving[playerID] = []
          return true
        }
        state.moving[playerID]!.append(continuation)
        return false
      }
      if started { continuation.resume() }
    }
  }

  /// Ends the move of `playerID` in progress and starts the next one waiting, if any.
  private func endMove(_ playerID: Int64) {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard var waiting = state.moving[playerID], !waiting.isEmpty else {
        state.moving[playerID] = nil
        return nil
      }
      let next = waiting.removeFirst()
      state.moving[playerID] = waiting
      return next
    }
    next?.resume()
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
