public import BadmintonDomain
public import BadmintonStore
import Synchronization

/// The in-memory nearby index the services share: a projection of the store's change feed
/// (each player's stored location), searched without touching the store.
///
/// The index holds only the positions other players may be shown (see `LocationPrivacy`): each
/// player's cell centre. Searches measure from the searcher's cell centre, compare the radius
/// with distances rounded to whole bands and order by them, so every answer depends on the
/// players' cells alone.
public final class NearbyIndex: Sendable {
  private struct State {
    var index = GeoIndex()
    /// The players with a move in progress, each with the moves waiting for it, oldest first.
    var moving: [Int64: [CheckedContinuation<Void, Never>]] = [:]
  }

  private let state = Mutex(State())

  /// An empty index.
  public init() {}

  /// The players the index holds (those with a stored location).
  public var count: Int { state.withLock { $0.index.count } }

  /// Applies one committed change: a player's stored location, shown as its cell's centre.
  /// Anything else, and a player change that leaves the shown position as it was, changes
  /// nothing.
  public func apply(_ change: StoreChange) {
    guard case .player(let player) = change else { return }
    let shown = player.location.map(LocationPrivacy.shownPosition(of:))
    state.withLock { state in
      guard state.index.location(of: player.id) != shown else { return }
      if let shown {
        state.index.update(player.id, to: shown)
      } else {
        state.index.remove(player.id)
      }
    }
  }

  /// Places `playerID` at `location` (shown as its cell's centre) without a store: for
  /// benchmarks and tests that build an index of their own.
  public func place(_ playerID: Int64, at location: Coordinate) {
    let shown = LocationPrivacy.shownPosition(of: location)
    state.withLock { $0.index.update(playerID, to: shown) }
  }

  /// Places `playerID` at `location`; the revision is not needed now that the index follows
  /// the feed in commit order.
  @available(*, deprecated, renamed: "place(_:at:)")
  public func update(_ playerID: Int64, to location: Coordinate, revision: Int64) {
    place(playerID, at: location)
  }

  /// Runs `write` for a move of `playerID` to `location` if `LocationPrivacy.allowsMove`
  /// allows it, else throws `LOCATION_MOVE_TOO_FAST`. The move is measured from what `stored`
  /// gives: the player's last stored own location and its time (from the players' projection,
  /// which the write's commit updates before it returns). `now` gives the move's time and
  /// `write` stores it; the index shows the new location once the feed brings the commit, so a
  /// failed write leaves everything as it was. One player's moves run one at a time, in the
  /// order they arrive, so each is checked against the one committed before it. Returns the
  /// move's time.
  public func move(
    _ playerID: Int64, to location: Coordinate,
    stored: () -> (location: Coordinate, atUnixMs: Int64)?,
    now: () -> Int64, write: (_ atUnixMs: Int64) async throws -> Void
  ) async throws -> Int64 {
    await beginMove(playerID)
    defer { endMove(playerID) }
    let nowUnixMs = now()
    if let last = stored(),
      !LocationPrivacy.allowsMove(
        from: last.location, atUnixMs: last.atUnixMs, to: location, atUnixMs: nowUnixMs)
    {
      throw LocationPrivacy.moveTooFast
    }
    try await write(nowUnixMs)
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

  /// Every located player's shown position, to compare with an index built afresh.
  var snapshot: [Int64: Coordinate] { state.withLock { $0.index.allLocations } }

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
