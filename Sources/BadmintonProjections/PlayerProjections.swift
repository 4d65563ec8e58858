public import BadmintonStore
import Synchronization

/// The in-memory state of players, sessions, nearby players, blocks and suspensions: projections of the
/// store's change feed. At start each is built by applying the stored rows as the same changes
/// the feed gives, and from then on by the feed alone, so no service updates them by hand.
public struct PlayerProjections: Sendable {
  /// Profiles and the players' own state.
  public let players: PlayerBook
  /// Login sessions.
  public let sessions: SessionBook
  /// Shown positions, for nearby searches.
  public let index: NearbyIndex
  /// Who blocked whom.
  public let blocks: BlockBook
  /// Who is suspended, until when.
  public let suspensions: SuspensionBook

  /// Empty projections.
  public init() {
    players = PlayerBook()
    sessions = SessionBook()
    index = NearbyIndex()
    blocks = BlockBook()
    suspensions = SuspensionBook()
  }

  /// Applies one committed change to each projection.
  public func apply(_ change: StoreChange) {
    players.apply(change)
    sessions.apply(change)
    index.apply(change)
    blocks.apply(change)
    suspensions.apply(change)
  }

  /// Applies the changes of one committed transaction; the nearby index publishes them
  /// together, so no search sees some of them without the others.
  public func apply(_ changes: [StoreChange]) {
    for change in changes {
      players.apply(change)
      sessions.apply(change)
      blocks.apply(change)
      suspensions.apply(change)
    }
    index.apply(changes)
  }

  /// Projections of the rows `store` holds now, sessions expired at `nowUnixMs` left out; not
  /// following the feed.
  public static func replayed(
    from store: any PlayerStore & SocialStore & AdministrationStore, nowUnixMs: Int64
  )
    async throws -> PlayerProjections
  {
    let projections = PlayerProjections()
    try await store.replayPlayers(projections.apply)
    try await store.replaySessions(nowUnixMs: nowUnixMs, projections.apply)
    try await store.replayBlocks(projections.apply)
    try await store.replaySuspensions(projections.apply)
    return projections
  }

  /// Projections of the rows `store` holds, then following its feed. The feed is followed from
  /// before the rows are read: changes committed while they are read are held and applied
  /// after them, in commit order, so none is missed and none is undone by an older read.
  public static func started(
    from store: any PlayerStore & SocialStore & AdministrationStore, nowUnixMs: Int64
  )
    async throws -> PlayerProjections
  {
    let projections = PlayerProjections()
    // Nil once live; while the rows are read, the changes committed meanwhile.
    let held = Mutex<[StoreChange]?>([])
    store.feed.subscribe { committed in
      held.withLock { held in
        if held != nil {
          held!.append(contentsOf: committed.changes)
        } else {
          projections.apply(committed.changes)
        }
      }
    }
    try await store.replayPlayers(projections.apply)
    try await store.replaySessions(nowUnixMs: nowUnixMs, projections.apply)
    try await store.replayBlocks(projections.apply)
    try await store.replaySuspensions(projections.apply)
    held.withLock { held in
      projections.apply(held ?? [])
      held = nil
    }
    return projections
  }

}
