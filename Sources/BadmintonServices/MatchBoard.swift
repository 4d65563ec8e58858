public import BadmintonDomain
public import BadmintonStore
import Synchronization

/// The active availability of every player, in the in-memory match index that searches run on,
/// and the times players are booked by matches: a projection of the store's change feed.
///
/// Nothing writes to the board but the changes the store committed (`apply`): an availability
/// that is active is on it and any other is not; a match that is not cancelled books its players
/// for its slot; a player's display level is the level of their every availability. The board
/// keeps every player's display level itself, from the same changes, so an availability is
/// indexed with the level its player had when it was committed, whoever posted it. At start it
/// is built by applying the stored rows as the same changes (`rebuilt(from:nowUnixMs:)`).
///
/// Searches share the board: they run at once under a read lock, and the writer of the feed
/// takes the write lock for each committed transaction, so a search sees a transaction's changes
/// all or not at all. The lock prefers the writer (see `ReadWriteLocked`).
public final class MatchBoard: Sendable {
  /// What a match books: its players, for its slot.
  public struct Booking: Hashable, Sendable {
    /// The players held.
    public var playerIDs: [Int64]
    /// The time they are held.
    public var slot: TimeSlot

    /// A booking of `playerIDs` during `slot`.
    public init(playerIDs: [Int64], slot: TimeSlot) {
      self.playerIDs = playerIDs
      self.slot = slot
    }
  }

  /// What the board holds at one instant, in a form two boards can be compared in.
  public struct Contents: Hashable, Sendable {
    /// The availability on the board not ended by then, by id, each with its player's level.
    public var availability: [Int64: MatchRequest]
    /// The matches booking their players, not ended by then, by match id.
    public var bookings: [Int64: Booking]
    /// The display level of every player the board knows of.
    public var levels: [Int64: Int]
  }

  private struct State {
    var index = MatchIndex()
    /// Every known player's display level (1-9; a byte keeps a million players in about 12 MB).
    var levels: [Int64: Int8] = [:]
    /// Active availability whose player's level has not arrived yet, by player and id: put on
    /// the index when it does.
    var unleveled: [Int64: [Int64: AvailabilityRecord]] = [:]
    /// The bookings of matches, by match id.
    var matches: [Int64: Booking] = [:]
    /// The same bookings by player: match id to slot.
    var booked: [Int64: [Int64: TimeSlot]] = [:]
    /// While the board is built at start: the changes committed meanwhile, applied once the
    /// stored rows are.
    var held: [StoreChange]?

    /// The domain's booking rule over the player's matches the board holds (only those that
    /// hold their players' time are on it).
    func isBooked(_ playerID: Int64, during slot: TimeSlot) -> Bool {
      guard let matches = booked[playerID] else { return false }
      return BookingRules.isBooked(matches.values.lazy.map { BookedMatch(slot: $0) }, during: slot)
    }

    /// Whether `change` would change the board: sessions, blocks and events never do, nor a
    /// player change that leaves the level as it was, nor an availability or match that is off
    /// the board and stays off.
    func needs(_ change: StoreChange) -> Bool {
      guard held == nil else { return true }
      switch change {
      case .player(let player):
        return levels[player.id] != Int8(player.displayLevel.level)
      case .availability(let id, let record):
        return record?.state == .active || index.contains(id) || !unleveled.isEmpty
      case .match(let id, let match):
        return match.map { BookingRules.holdsTime($0.state.status) } == true || matches[id] != nil
      case .session, .block, .event:
        return false
      }
    }

    mutating func apply(_ change: StoreChange) {
      switch change {
      case .player(let player):
        setLevel(player.displayLevel.level, of: player.id)
      case .availability(let id, let record):
        place(id, record)
      case .match(let id, let match):
        unbook(id)
        if let match, BookingRules.holdsTime(match.state.status) {
          book(id, Booking(playerIDs: match.playerIDs, slot: match.slot))
        }
      case .session, .block, .event:
        break
      }
    }

    mutating func setLevel(_ level: Int, of playerID: Int64) {
      guard levels[playerID] != Int8(level) else { return }
      levels[playerID] = Int8(level)
      index.updateLevel(playerID: playerID, level: level)
      if let waiting = unleveled.removeValue(forKey: playerID) {
        for record in waiting.values {
          index.insert(MatchBoard.request(record, displayLevel: level))
        }
      }
    }

    /// Puts availability `id` on the index when `record` is active, and takes it off otherwise.
    mutating func place(_ id: Int64, _ record: AvailabilityRecord?) {
      index.remove(id)
      for (player, var waiting) in unleveled where waiting.removeValue(forKey: id) != nil {
        unleveled[player] = waiting.isEmpty ? nil : waiting
      }
      guard let record, record.state == .active else { return }
      if let level = levels[record.playerID] {
        index.insert(MatchBoard.request(record, displayLevel: Int(level)))
      } else {
        unleveled[record.playerID, default: [:]][id] = record
      }
    }

    mutating func book(_ matchID: Int64, _ booking: Booking) {
      matches[matchID] = booking
      for player in booking.playerIDs { booked[player, default: [:]][matchID] = booking.slot }
    }

    mutating func unbook(_ matchID: Int64) {
      guard let booking = matches.removeValue(forKey: matchID) else { return }
      for player in booking.playerIDs {
        booked[player]?[matchID] = nil
        if booked[player]?.isEmpty == true { booked[player] = nil }
      }
    }
  }

  private let state = ReadWriteLocked(State())

  /// An empty board.
  public init() {}

  /// A board following `store`'s change feed from now on, holding what `store` holds: every
  /// player's level, the matches not cancelled that end after `nowUnixMs`, and the active
  /// availability that ends after it. Changes committed while the stored rows are read are held
  /// and applied after them, so none is lost or undone.
  public static func rebuilt(
    from store: any ServerStore, nowUnixMs: Int64
  ) async throws -> MatchBoard {
    let board = MatchBoard()
    board.state.write { $0.held = [] }
    store.feed.subscribe { [board] committed in board.apply(committed.changes) }
    try await board.load(from: store, nowUnixMs: nowUnixMs)
    board.state.write { state in
      let held = state.held ?? []
      state.held = nil
      for change in held { state.apply(change) }
    }
    return board
  }

  /// A board built from `store`'s rows alone, following nothing: what the board must equal.
  public static func replayed(from store: any ServerStore, nowUnixMs: Int64) async throws
    -> MatchBoard
  {
    let board = MatchBoard()
    try await board.load(from: store, nowUnixMs: nowUnixMs)
    return board
  }

  /// Applies the stored rows: players first, so every availability finds its level.
  private func load(from store: any ServerStore, nowUnixMs: Int64) async throws {
    try await store.replayPlayerLevels { [self] change in
      state.write { $0.apply(change) }
    }
    try await store.replayConfirmedMatches(endingAfter: nowUnixMs) { [self] change in
      state.write { $0.apply(change) }
    }
    try await store.replayActiveAvailability(nowUnixMs: nowUnixMs) { [self] change in
      state.write { $0.apply(change) }
    }
  }

  /// Applies the changes of one committed transaction, all at once: no search sees some of
  /// them without the others.
  ///
  /// The changes that would change nothing (a login, an event, a new location) are sorted out
  /// first as a reader, so that they never make the database's writer wait for the searches
  /// under way. Only the feed's writer adds to the board or changes levels (the housekeeping
  /// only takes off what has ended), so a change found needless stays needless.
  public func apply(_ changes: [StoreChange]) {
    let needed = state.read { state in changes.filter { state.needs($0) } }
    guard !needed.isEmpty else { return }
    state.write { state in
      if state.held != nil {
        state.held!.append(contentsOf: needed)
      } else {
        for change in needed { state.apply(change) }
      }
    }
  }

  /// The search form of a stored availability.
  static func request(_ record: AvailabilityRecord, displayLevel: Int) -> MatchRequest {
    let details = record.details
    return MatchRequest(
      id: record.id, playerID: details.playerID, mode: details.mode, slot: details.slot,
      location: details.location, radiusMiles: details.radiusMiles,
      skillTolerance: details.skillTolerance, displayLevel: displayLevel,
      postedAtUnixMs: details.postedAtUnixMs)
  }

  /// Adds an active availability with its player's level, without a store: for benchmarks.
  @_spi(Benchmarks) public func insert(_ record: AvailabilityRecord, displayLevel: Int) {
    state.write { state in
      state.setLevel(displayLevel, of: record.playerID)
      state.place(record.id, record)
    }
  }

  /// Takes availability off the board, without a store: for benchmarks.
  @_spi(Benchmarks) public func remove(_ ids: [Int64]) {
    state.write { state in
      for id in ids { _ = state.index.remove(id) }
    }
  }

  /// Drops the availability and bookings that have ended by `nowUnixMs` (the store keeps their
  /// rows a while longer); returns how many availability were dropped.
  @discardableResult
  public func removeExpired(nowUnixMs: Int64) -> Int {
    state.write { state in
      for (id, booking) in state.matches where booking.slot.endUnixMs <= nowUnixMs {
        state.unbook(id)
      }
      for (player, waiting) in state.unleveled {
        let left = waiting.filter { $0.value.details.slot.endUnixMs > nowUnixMs }
        state.unleveled[player] = left.isEmpty ? nil : left
      }
      return state.index.removeExpired(nowUnixMs: nowUnixMs).count
    }
  }

  /// What the board holds that has not ended by `nowUnixMs`.
  public func contents(nowUnixMs: Int64) -> Contents {
    state.read { state in
      var availability: [Int64: MatchRequest] = [:]
      for request in state.index.requests where request.slot.endUnixMs > nowUnixMs {
        availability[request.id] = request
      }
      return Contents(
        availability: availability,
        bookings: state.matches.filter { $0.value.slot.endUnixMs > nowUnixMs },
        levels: state.levels.mapValues(Int.init))
    }
  }

  /// True when `playerID` has a match during any of `slot`.
  func isBooked(_ playerID: Int64, during slot: TimeSlot) -> Bool {
    state.read { $0.isBooked(playerID, during: slot) }
  }

  /// The indexed form of availability `id`.
  @_spi(Benchmarks) public func request(_ id: Int64) -> MatchRequest? {
    state.read { $0.index.request(id) }
  }

  /// Availability in the index.
  public var count: Int { state.read { $0.index.count } }

  /// Whether availability `id` is on the board.
  public func contains(_ id: Int64) -> Bool { state.read { $0.index.request(id) != nil } }

  /// A page of the availability that fits `query`, leaving out the times either player is booked.
  @_spi(Benchmarks) public func search(
    for query: MatchRequest, excluding excluded: Set<Int64>, limit: Int, after cursor: MatchCursor?
  ) -> MatchPage {
    state.read { state in
      state.index.search(
        for: query, excluding: excluded,
        isBusy: { Self.busy(state, query.playerID, $0, $1) }, limit: limit, after: cursor)
    }
  }

  /// What each relaxation of `query` would find.
  func relaxations(for query: MatchRequest, excluding excluded: Set<Int64>) -> [MatchRelaxation] {
    state.read { state in
      state.index.relaxations(
        for: query, excluding: excluded, isBusy: { Self.busy(state, query.playerID, $0, $1) })
    }
  }

  /// A candidate is left out when they or the searching player are booked during the overlap.
  private static func busy(
    _ state: State, _ searcher: Int64, _ candidate: Int64, _ overlap: TimeSlot
  )
    -> Bool
  {
    state.isBooked(candidate, during: overlap) || state.isBooked(searcher, during: overlap)
  }
}

/// Runs one operation at a time, in the order they arrive: the writes that replace or add a
/// player's recurring days, so that the database and the board see them in the same order.
actor SerialGate {
  private var busy = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  /// Runs `body` once every operation that arrived before it has finished.
  func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    if busy {
      await withCheckedContinuation { waiting.append($0) }
    } else {
      busy = true
    }
    defer {
      if waiting.isEmpty {
        busy = false
      } else {
        waiting.removeFirst().resume()
      }
    }
    return try await body()
  }
}
