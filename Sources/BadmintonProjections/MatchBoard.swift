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
/// The index is kept in parts, one per mode and coarse region of the globe (`MatchRegions`),
/// each under its own read-write lock, and the bookings under another. A search takes the read
/// locks of the few parts it can find anything in, and the bookings', together; the writer of
/// the feed takes the write locks of the parts and bookings one committed transaction changes,
/// together, so a search sees a transaction's changes all or not at all, and waits only for
/// writes to its own parts (and a write only for the searches of its parts). Searches never
/// wait for each other. Locks are taken parts first, in ascending order of their keys, then the
/// bookings'; the locks prefer writers (see `ReadWriteLock`). One writer changes the board at a
/// time (the feed's, the housekeeping's, or the benchmarks'): the state only writers use (the
/// levels, the availability waiting for a level) is under a mutex of its own, and the parts and
/// bookings are read by that writer without their locks, since no one else changes them.
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

  /// A value under a lock of its own, reached by hand: read while the lock is held for reading
  /// or by the board's one writer, changed only by that writer while it holds the lock for
  /// writing.
  ///
  /// The value lives at a fixed address of its own and is reached in place (no copy, no retain
  /// of its storage), so that searches do not touch the reference counts the writer's in-place
  /// changes check.
  private final class Locked<Value>: @unchecked Sendable {
    let lock = ReadWriteLock()
    private let storage: UnsafeMutablePointer<Value>

    var value: Value {
      unsafeAddress { UnsafePointer(storage) }
      unsafeMutableAddress { storage }
    }

    init(_ value: Value) {
      storage = .allocate(capacity: 1)
      storage.initialize(to: value)
    }

    deinit {
      storage.deinitialize(count: 1)
      storage.deallocate()
    }
  }

  /// One part of the index: the availability of one mode in one region.
  private typealias Part = Locked<MatchIndex>

  /// The matches booking their players.
  private struct Bookings {
    /// The bookings of matches, by match id.
    var matches: [Int64: Booking] = [:]
    /// The same bookings by player: match id to slot.
    var booked: [Int64: [Int64: TimeSlot]] = [:]

    /// The domain's booking rule over the player's matches the board holds (only those that
    /// hold their players' time are on it).
    func isBooked(_ playerID: Int64, during slot: TimeSlot) -> Bool {
      guard let matches = booked[playerID] else { return false }
      return BookingRules.isBooked(matches.values.lazy.map { BookedMatch(slot: $0) }, during: slot)
    }

    /// A candidate is left out when they or the searching player are booked during the overlap.
    func busy(_ searcher: Int64, _ candidate: Int64, _ overlap: TimeSlot) -> Bool {
      isBooked(candidate, during: overlap) || isBooked(searcher, during: overlap)
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

  /// What only the writer uses.
  private struct Writer {
    /// Every known player's display level (1-9; a byte keeps a million players in about 12 MB).
    var levels: [Int64: Int8] = [:]
    /// Active availability whose player's level has not arrived yet, by player and id: put on
    /// the index when it does.
    var unleveled: [Int64: [Int64: AvailabilityRecord]] = [:]
    /// While the board is built at start: the changes committed meanwhile, applied once the
    /// stored rows are.
    var held: [StoreChange]?
  }

  /// A change to the board, as the writer applies it.
  private enum Change {
    case level(playerID: Int64, Int)
    case availability(id: Int64, AvailabilityRecord?)
    case match(id: Int64, MatchRecord?)
  }

  private let regions = MatchRegions()
  /// The parts made so far, by key (see `key(_:_:)`); a part once made stays.
  private let parts = Locked<[Int: Part]>([:])
  private let bookings = Locked(Bookings())
  private let writer = Mutex(Writer())

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
    board.writer.withLock { $0.held = [] }
    store.feed.subscribe { [board] committed in board.apply(committed.changes) }
    try await board.load(from: store, nowUnixMs: nowUnixMs)
    board.writer.withLock { writer in
      let held = writer.held ?? []
      writer.held = nil
      board.commit(board.changes(held), &writer)
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
    let apply: @Sendable (StoreChange) -> Void = { [self] change in
      writer.withLock { commit(changes([change]), &$0) }
    }
    try await store.replayPlayerLevels(apply)
    try await store.replayConfirmedMatches(endingAfter: nowUnixMs, apply)
    try await store.replayActiveAvailability(nowUnixMs: nowUnixMs, apply)
  }

  /// Applies the changes of one committed transaction, all at once: no search sees some of
  /// them without the others.
  ///
  /// The changes that would change nothing (a login, an event, a new location) are sorted out
  /// first, without taking any lock the searches take, so that they never make the database's
  /// writer wait for the searches under way.
  public func apply(_ changes: [StoreChange]) {
    writer.withLock { writer in
      if writer.held != nil {
        writer.held!.append(contentsOf: changes)
      } else {
        commit(self.changes(changes), &writer)
      }
    }
  }

  /// The board's changes among a transaction's.
  private func changes(_ changes: [StoreChange]) -> [Change] {
    var result: [Change] = []
    result.reserveCapacity(changes.count)
    for change in changes {
      switch change {
      case .player(let player):
        result.append(.level(playerID: player.id, player.displayLevel.level))
      case .availability(let id, let record): result.append(.availability(id: id, record))
      case .match(let id, let match): result.append(.match(id: id, match))
      case .session, .block, .event, .suspension: break
      }
    }
    return result
  }

  /// The key of the part of `mode` in `region`.
  private static func key(_ region: Int, _ mode: MatchMode) -> Int {
    region &* 4 &+ mode.rawValue
  }

  /// The key of the part availability `details` belongs in.
  private func key(of details: NewAvailability) -> Int {
    Self.key(regions.region(of: details.location), details.mode)
  }

  /// The part with key `key`, made when there is none yet. Writer only.
  private func part(_ key: Int) -> Part {
    if let part = parts.value[key] { return part }
    let part = Part(MatchIndex())
    parts.lock.lockForWriting()
    parts.value[key] = part
    parts.lock.unlock()
    return part
  }

  /// The key of the part holding availability `id`, if any. Writer only.
  ///
  /// The store changes only an availability's state once it is posted, never its mode or
  /// location, so `record` names the only part that can hold it; without one (a deleted row)
  /// every part is looked in.
  private func key(holding id: Int64, _ record: AvailabilityRecord?) -> Int? {
    if let record {
      let key = key(of: record.details)
      return parts.value[key]?.value.contains(id) == true ? key : nil
    }
    return parts.value.first { $0.value.value.contains(id) }?.key
  }

  /// Applies the changes of one transaction, holding the locks of every part they change and,
  /// when matches change, of the bookings; takes no lock when they change nothing the searches
  /// read. Writer only.
  private func commit(_ changes: [Change], _ writer: inout Writer) {
    // The parts the changes touch, by key: a new level reaches every part holding the player's
    // availability, and puts the availability waiting for it in theirs.
    var touched: [Int] = []
    func touch(_ key: Int) {
      if !touched.contains(key) { touched.append(key) }
    }
    var booking = false
    for change in changes {
      switch change {
      case .level(let playerID, let level):
        // A player whose level was unknown has nothing on the index yet.
        if let known = writer.levels[playerID], known != Int8(level) {
          for (key, part) in parts.value where part.value.hasRequests(of: playerID) { touch(key) }
        }
        if let waiting = writer.unleveled[playerID] {
          for record in waiting.values { touch(key(of: record.details)) }
        }
      case .availability(let id, let record):
        if let key = key(holding: id, record) { touch(key) }
        if let record, record.state == .active { touch(key(of: record.details)) }
      case .match(let id, let match):
        if match.map({ BookingRules.holdsTime($0.state.status) }) == true
          || bookings.value.matches[id] != nil
        {
          booking = true
        }
      }
    }
    touched.sort()
    let locked = touched.map { part($0) }
    for part in locked { part.lock.lockForWriting() }
    if booking { bookings.lock.lockForWriting() }
    defer {
      if booking { bookings.lock.unlock() }
      for part in locked { part.lock.unlock() }
    }
    for change in changes {
      switch change {
      case .level(let playerID, let level):
        setLevel(level, of: playerID, in: locked, &writer)
      case .availability(let id, let record):
        place(id, record, &writer)
      case .match(let id, let match):
        guard booking else { continue }
        bookings.value.unbook(id)
        if let match, BookingRules.holdsTime(match.state.status) {
          bookings.value.book(id, Booking(playerIDs: match.playerIDs, slot: match.slot))
        }
      }
    }
  }

  /// Sets a player's level on their availability in `locked` (every part that holds any) and
  /// puts the availability that waited for it on the index.
  private func setLevel(_ level: Int, of playerID: Int64, in locked: [Part], _ writer: inout Writer)
  {
    guard writer.levels[playerID] != Int8(level) else { return }
    let known = writer.levels[playerID] != nil
    writer.levels[playerID] = Int8(level)
    if known {
      for part in locked where part.value.hasRequests(of: playerID) {
        part.value.updateLevel(playerID: playerID, level: level)
      }
    }
    if let waiting = writer.unleveled.removeValue(forKey: playerID) {
      for record in waiting.values {
        part(key(of: record.details)).value.insert(Self.request(record, displayLevel: level))
      }
    }
  }

  /// Puts availability `id` on the index when `record` is active, and takes it off otherwise.
  private func place(_ id: Int64, _ record: AvailabilityRecord?, _ writer: inout Writer) {
    if let key = key(holding: id, record) { part(key).value.remove(id) }
    if !writer.unleveled.isEmpty {
      for (player, var waiting) in writer.unleveled where waiting.removeValue(forKey: id) != nil {
        writer.unleveled[player] = waiting.isEmpty ? nil : waiting
      }
    }
    guard let record, record.state == .active else { return }
    if let level = writer.levels[record.playerID] {
      part(key(of: record.details)).value.insert(Self.request(record, displayLevel: Int(level)))
    } else {
      writer.unleveled[record.playerID, default: [:]][id] = record
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
    writer.withLock { writer in
      commit(
        [.level(playerID: record.playerID, displayLevel), .availability(id: record.id, record)],
        &writer)
    }
  }

  /// Drops the availability and bookings that have ended by `nowUnixMs` (the store keeps their
  /// rows a while longer); returns how many availability were dropped. Each part drops its own
  /// under its own lock.
  @discardableResult
  public func removeExpired(nowUnixMs: Int64) -> Int {
    writer.withLock { writer in
      bookings.lock.lockForWriting()
      for (id, booking) in bookings.value.matches where booking.slot.endUnixMs <= nowUnixMs {
        bookings.value.unbook(id)
      }
      bookings.lock.unlock()
      for (player, waiting) in writer.unleveled {
        let left = waiting.filter { $0.value.details.slot.endUnixMs > nowUnixMs }
        writer.unleveled[player] = left.isEmpty ? nil : left
      }
      var removed = 0
      for part in parts.value.values {
        part.lock.lockForWriting()
        removed += part.value.removeExpired(nowUnixMs: nowUnixMs).count
        part.lock.unlock()
      }
      return removed
    }
  }

  /// Runs `body` holding the read locks of the parts with keys `keys` that exist, and of the
  /// bookings.
  private func reading<T>(_ keys: [Int], _ body: ([Part], Bookings) -> T) -> T {
    // The parts' own locks are taken before the list of parts is let go: a part made in
    // between could take a transaction a search then missed, while it saw a later one.
    parts.lock.lockForReading()
    let found = keys.sorted().compactMap { parts.value[$0] }
    for part in found { part.lock.lockForReading() }
    parts.lock.unlock()
    bookings.lock.lockForReading()
    defer {
      bookings.lock.unlock()
      for part in found { part.lock.unlock() }
    }
    return body(found, bookings.value)
  }

  /// Every part's key.
  private var allKeys: [Int] {
    parts.lock.lockForReading()
    defer { parts.lock.unlock() }
    return Array(parts.value.keys)
  }

  /// What the board holds that has not ended by `nowUnixMs`.
  public func contents(nowUnixMs: Int64) -> Contents {
    writer.withLock { writer in
      reading(allKeys) { found, bookings in
        var availability: [Int64: MatchRequest] = [:]
        for part in found {
          for request in part.value.requests where request.slot.endUnixMs > nowUnixMs {
            availability[request.id] = request
          }
        }
        return Contents(
          availability: availability,
          bookings: bookings.matches.filter { $0.value.slot.endUnixMs > nowUnixMs },
          levels: writer.levels.mapValues(Int.init))
      }
    }
  }

  /// True when `playerID` has a match during any of `slot`.
  public func isBooked(_ playerID: Int64, during slot: TimeSlot) -> Bool {
    bookings.lock.lockForReading()
    defer { bookings.lock.unlock() }
    return bookings.value.isBooked(playerID, during: slot)
  }

  /// The indexed form of availability `id`: looks in each part in turn, under its lock.
  public func request(_ id: Int64) -> MatchRequest? {
    parts.lock.lockForReading()
    let all = Array(parts.value.values)
    parts.lock.unlock()
    for part in all {
      part.lock.lockForReading()
      defer { part.lock.unlock() }
      if let request = part.value.request(id) { return request }
    }
    return nil
  }

  /// Availability in the index.
  public var count: Int {
    reading(allKeys) { found, _ in found.reduce(0) { $0 + $1.value.count } }
  }

  /// Whether availability `id` is on the board.
  public func contains(_ id: Int64) -> Bool { request(id) != nil }

  /// A page of the availability that fits `query`, leaving out the times either player is booked.
  public func search(
    for query: MatchRequest, excluding excluded: Set<Int64>, limit: Int, after cursor: MatchCursor?
  ) -> MatchPage {
    let keys = regions.regions(searchedBy: query).map { Self.key($0, query.mode) }
    return reading(keys) { found, bookings in
      MatchPage.merging(
        found.map { part in
          part.value.search(
            for: query, excluding: excluded,
            isBusy: { bookings.busy(query.playerID, $0, $1) }, limit: limit, after: cursor)
        }, limit: limit)
    }
  }

  /// What each relaxation of `query` would find.
  public func relaxations(for query: MatchRequest, excluding excluded: Set<Int64>)
    -> [MatchRelaxation]
  {
    let keys = regions.regions(searchedByRelaxationsOf: query).map { Self.key($0, query.mode) }
    return reading(keys) { found, bookings in
      let parts = found.isEmpty ? [MatchIndex()] : found.map(\.value)
      return MatchRelaxation.summing(
        parts.map { index in
          index.relaxations(
            for: query, excluding: excluded,
            isBusy: { bookings.busy(query.playerID, $0, $1) })
        })
    }
  }
}
