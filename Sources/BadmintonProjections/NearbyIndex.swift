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
///
/// Searches read snapshots: the feed's writer applies each batch of changes to the next version
/// of the index and publishes it by swapping one reference under a lock held for nothing else,
/// and a search takes the current version the same way and reads it with no lock held. A
/// search never waits for a write in progress, a write never waits for a search, and every
/// search sees the index as it was after some whole batch of changes.
///
/// Until the index is first read nothing is published: no version is shared, so the writer
/// changes its own in place, which makes building the index at start several times cheaper.
/// The first read publishes the writer's version, waiting at most for the batch in progress.
public final class NearbyIndex: Sendable {
  /// The writer's version: the next snapshot and who is where. Held by one writer at a time.
  private let writer = Mutex(GeoIndex())
  /// The version searches read, swapped whole by the writer; nil until the index is first read.
  private let published = Mutex<GeoIndex.Snapshot?>(nil)
  /// The players with a move in progress, each with the moves waiting for it, oldest first.
  private let moving = Mutex<[Int64: [CheckedContinuation<Void, Never>]]>([:])

  /// An empty index.
  public init() {}

  /// The players the index holds (those with a stored location), after the last batch of
  /// changes applied.
  public var count: Int { writer.withLock { $0.count } }

  /// The version of the index searches read now.
  var current: GeoIndex.Snapshot {
    if let snapshot = published.withLock({ $0 }) { return snapshot }
    // The first read publishes the writer's version.
    return writer.withLock { index in
      published.withLock { published in
        if published == nil { published = index.snapshot }
        return published!
      }
    }
  }

  /// Applies one committed change: a player's stored location, shown as its cell's centre.
  /// Anything else, and a player change that leaves the shown position as it was, changes
  /// nothing.
  public func apply(_ change: StoreChange) {
    apply(CollectionOfOne(change))
  }

  /// Applies committed changes in their order and publishes the result at once, so that no
  /// search sees some of them without the others.
  public func apply(_ changes: some Sequence<StoreChange>) {
    write { index in
      var changed = false
      for change in changes {
        guard case .player(let player) = change else { continue }
        if let location = player.location {
          changed =
            index.update(player.id, to: LocationPrivacy.shownPosition(of: location)) || changed
        } else {
          changed = index.remove(player.id) || changed
        }
      }
      return changed
    }
  }

  /// Places `playerID` at `location` (shown as its cell's centre) without a store: for
  /// benchmarks and tests that build an index of their own.
  public func place(_ playerID: Int64, at location: Coordinate) {
    let shown = LocationPrivacy.shownPosition(of: location)
    write { $0.update(playerID, to: shown) }
  }

  /// Places each player at their location (shown as its cell's centre), publishing once at the
  /// end.
  public func place(_ players: some Sequence<(playerID: Int64, location: Coordinate)>) {
    write { index in
      for (playerID, location) in players {
        index.update(playerID, to: LocationPrivacy.shownPosition(of: location))
      }
      return true
    }
  }

  /// Places `playerID` at `location`; the revision is not needed now that the index follows
  /// the feed in commit order.
  @available(*, deprecated, renamed: "place(_:at:)")
  public func update(_ playerID: Int64, to location: Coordinate, revision: Int64) {
    place(playerID, at: location)
  }

  /// Runs `change` on the writer's version and, when it says it changed something and the
  /// index has been read, publishes that version. The version it replaces is let go after both
  /// locks are released, so that freeing what only it held delays no one.
  private func write(_ change: (inout GeoIndex) -> Bool) {
    let replaced = writer.withLock { index -> GeoIndex.Snapshot? in
      guard change(&index) else { return nil }
      return published.withLock { published in
        guard published != nil else { return nil }
        var next: GeoIndex.Snapshot? = index.snapshot
        swap(&published, &next)
        return next
      }
    }
    withExtendedLifetime(replaced) {}
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
    moving.withLock { $0[playerID]?.count ?? 0 }
  }

  /// Waits until no other move of `playerID` is in progress, and marks one as in progress.
  private func beginMove(_ playerID: Int64) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let started = moving.withLock { moving in
        guard moving[playerID] != nil else {
          moving[playerID] = []
          return true
        }
        moving[playerID]!.append(continuation)
        return false
      }
      if started { continuation.resume() }
    }
  }

  /// Ends the move of `playerID` in progress and starts the next one waiting, if any.
  private func endMove(_ playerID: Int64) {
    let next = moving.withLock { moving -> CheckedContinuation<Void, Never>? in
      guard var waiting = moving[playerID], !waiting.isEmpty else {
        moving[playerID] = nil
        return nil
      }
      let next = waiting.removeFirst()
      moving[playerID] = waiting
      return next
    }
    next?.resume()
  }

  /// The position others are shown for `playerID` (their cell's centre), if located.
  public func location(of playerID: Int64) -> Coordinate? {
    writer.withLock { $0.location(of: playerID) }
  }

  /// Every located player's shown position, to compare with an index built afresh.
  var snapshot: [Int64: Coordinate] { writer.withLock { $0.allLocations } }

  /// The first `limit` players whose shown distance from `center`'s cell is within
  /// `radiusMiles` (rounded up to whole bands), after `cursor`, in the order of shown distance
  /// and then player id, leaving out `excluded`. Each hit carries its shown distance.
  public func nearest(
    to center: Coordinate, radiusMiles: Double, after cursor: NearbyHit?, limit: Int,
    excluding excluded: Set<Int64>
  ) -> [NearbyHit] {
    let origin = LocationPrivacy.shownPosition(of: center)
    return current.nearest(
      to: origin, radiusMiles: radiusMiles, after: cursor, limit: limit,
      shownDistance: LocationPrivacy.banded
    ) {
      excluded.contains($0)
    }
  }
}
