public import BadmintonStore

/// The in-memory state of players, sessions, nearby players and blocks: projections of the
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

  /// Empty projections.
  public init() {
    players = PlayerBook()
    sessions = SessionBook()
    index = NearbyIndex()
    blocks = BlockBook()
  }

  /// Applies one committed change to each projection.
  public func apply(_ change: StoreChange) {
    players.apply(change)
    sessions.apply(change)
    index.apply(change)
    blocks.apply(change)
  }

  /// Projections of the rows `store` holds now, sessions expired at `nowUnixMs` left out; not
  /// following the feed.
  public static func replayed(from store: any PlayerStore & SocialStore, nowUnixMs: Int64)
    async throws -> PlayerProjections
  {
    let projections = PlayerProjections()
    try await store.replayPlayers(projections.apply)
    try await store.replaySessions(nowUnixMs: nowUnixMs, projections.apply)
    try await store.replayBlocks(projections.apply)
    return projections
  }

  /// Projections of the rows `store` holds, then following its feed. For start-up, before
  /// anything else writes: a write committed between the replay and the subscription would be
  /// missed.
  public static func started(from store: any PlayerStore & SocialStore, nowUnixMs: Int64)
    async throws -> PlayerProjections
  {
    let projections = try await replayed(from: store, nowUnixMs: nowUnixMs)
    store.feed.subscribe { committed in
      for change in committed.changes { projections.apply(change) }
    }
    return projections
  }
}
