public import BadmintonDomain
public import BadmintonStore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

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
/// The index is kept in parts, one per mode and coarse region of the globe (`MatchRegions`), so
/// that a search looks only at the few parts it can find anything in. Searches read a published
/// version of the board: every part's `MatchIndex.Snapshot` and the bookings, values no later
/// change alters. One writer changes the board at a time (the feed's, the housekeeping's, or the
/// benchmarks'); it applies a committed transaction to its own copy of the parts and bookings it
/// touches, where only the pieces a change reaches are copied (most posts and cancels copy
/// nothing: the index changes in place what its stamps keep each version's, `MatchIndex`), and
/// then publishes the next version whole: the next moment of the parts' one count of versions,
/// and the shape of each part the transaction reshaped (one that changed only in place keeps
/// the shape published before, which shows the change at the new moment). A search takes the
/// version published when it starts (a spin lock held only to take that version and count
/// itself among its readers, never while a search or a change runs: `Published`) and reads it
/// to the end, so a search sees a transaction's changes all or not at all, a search never waits
/// for the writer, and the writer never waits for a search.
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

  /// A map from ids to values in 2^`bits` tables, so that a change to a version other
  /// versions share copies one table and the list of tables, not the whole map.
  private struct Shards<Value: Sendable>: Sendable {
    private let bits: UInt64
    private var tables: [[Int64: Value]]

    init(bits: Int) {
      self.bits = UInt64(bits)
      tables = Array(repeating: [:], count: 1 << bits)
    }

    private func table(_ id: Int64) -> Int {
      Int((UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> (64 - bits))
    }

    subscript(id: Int64) -> Value? {
      get { tables[table(id)][id] }
      set { tables[table(id)][id] = newValue }
    }

    subscript(id: Int64, default value: @autoclosure () -> Value) -> Value {
      get { tables[table(id)][id, default: value()] }
      set { tables[table(id)][id] = newValue }
    }

    /// Every id and its value, in no particular order.
    var all: [(id: Int64, value: Value)] {
      tables.flatMap { $0.map { (id: $0.key, value: $0.value) } }
    }
  }

  /// The matches booking their players.
  private struct Bookings: Sendable {
    /// The bookings of matches, by match id.
    var matches = Shards<Booking>(bits: 6)
    /// The same bookings by player: match id to slot.
    var booked = Shards<[Int64: TimeSlot]>(bits: 6)

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
      guard let booking = matches[matchID] else { return }
      matches[matchID] = nil
      for player in booking.playerIDs {
        booked[player]?[matchID] = nil
        if booked[player]?.isEmpty == true { booked[player] = nil }
      }
    }
  }

  /// What searches read: one version of the board.
  private struct Version: Sendable {
    /// Each part's shape, by key (see `key(_:_:)`): the part as it was when it was last
    /// reshaped (`MatchIndex.isReshaped`), read at `moment`.
    var parts = Shards<MatchIndex.Snapshot>(bits: 3)
    /// The moment of the parts' places the version shows: nil until one is published.
    var moment: MatchIndex.Moment?
    /// Availability on the board.
    var count = 0
    var bookings = Bookings()

    /// Part `key`, as the version shows it.
    func part(_ key: Int) -> MatchIndex.Snapshot? {
      guard let moment, let shape = parts[Int64(key)] else { return nil }
      return shape.at(moment)
    }
  }

  /// What only the writer uses.
  private struct Writer {
    /// Every known player's display level (1-9), by player id: a byte a player.
    var levels = IDTable<Int8>()
    /// Active availability whose player's level has not arrived yet, by player and id: put on
    /// the index when it does.
    var unleveled: [Int64: [Int64: AvailabilityRecord]] = [:]
    /// While the board is built at start: the changes committed meanwhile, applied once the
    /// stored rows are.
    var held: [StoreChange]?
    /// Each part's index, by key: the next version, which shares all it has not changed with
    /// the published one. A part once made stays.
    var parts: [Int: Part] = [:]
    /// Where the parts' requests stand, in one table by request id for all of them.
    let places = MatchIndex.Places()
    /// The bookings, likewise.
    var bookings = Bookings()
    /// False while stored rows are loaded: nothing is published until all are.
    var publishing = true
    /// Availability in the parts when they were last published.
    var count = 0
  }

  /// A part's index, in a box of its own, so that a change reaches it in place through the
  /// writer's table of parts (a dictionary's value is moved out and back for each change, and a
  /// match index is many references to copy).
  private final class Part {
    var index: MatchIndex
    /// The index's requests when it was last published.
    var published = 0
    init(_ index: MatchIndex) { self.index = index }
  }

  /// A change to the board, as the writer applies it.
  private enum Change {
    case level(playerID: Int64, Int)
    case availability(id: Int64, AvailabilityRecord?)
    case match(id: Int64, MatchRecord?)
  }

  private let regions = MatchRegions()
  private let writer = Mutex(Writer())
  /// The version searches read.
  private let published = Published(Version())

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
  ///
  /// Nothing is published while they are applied, and everything once they all are: a search
  /// meanwhile sees the board as it was, and loading pays for no version in between.
  private func load(from store: any ServerStore, nowUnixMs: Int64) async throws {
    writer.withLock { $0.publishing = false }
    let apply: @Sendable (StoreChange) -> Void = { [self] change in
      writer.withLock { commit(changes([change]), &$0) }
    }
    try await store.replayPlayerLevels { [self] playerID, level in
      writer.withLock { commit([.level(playerID: playerID, level)], &$0) }
    }
    try await store.replayConfirmedMatches(endingAfter: nowUnixMs, apply)
    try await store.replayActiveAvailability(nowUnixMs: nowUnixMs, apply)
    writer.withLock { writer in
      writer.publishing = true
      trim(&writer)
      publish(Array(writer.parts.keys), bookings: true, &writer)
    }
  }

  /// After a load: gives the index's lists no more room than their requests take, and the
  /// memory the load freed (chunks outgrown while they filled) back to the system.
  private func trim(_ writer: inout Writer) {
    for key in Array(writer.parts.keys) { writer.parts[key]!.index.trim() }
    #if canImport(Glibc)
      Self.mallocTrim?(0)
    #endif
  }

  #if canImport(Glibc)
    /// glibc's `malloc_trim`, which Swift's Glibc module does not declare: it hands the free
    /// pages of every arena back to the system, not only those at the top of the heap.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else {
        return nil
      }
      return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
  #endif

  /// Applies the changes of one committed transaction, all at once: no search sees some of
  /// them without the others.
  ///
  /// The changes that would change nothing (a login, an event, a new location) publish
  /// nothing.
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

  /// Applies the changes of one transaction to the writer's parts and bookings, then publishes
  /// the parts and bookings they changed, together; publishes nothing when they change nothing
  /// the searches read.
  private func commit(_ changes: [Change], _ writer: inout Writer) {
    var touched: [Int] = []
    var booking = false
    for change in changes {
      switch change {
      case .level(let playerID, let level):
        setLevel(level, of: playerID, &writer, &touched)
      case .availability(let id, let record):
        place(id, record, &writer, &touched)
      case .match(let id, let match):
        let holds = match.map { BookingRules.holdsTime($0.state.status) } == true
        guard holds || writer.bookings.matches[id] != nil else { continue }
        booking = true
        writer.bookings.unbook(id)
        if let match, holds {
          writer.bookings.book(id, Booking(playerIDs: match.playerIDs, slot: match.slot))
        }
      }
    }
    if writer.publishing, !touched.isEmpty || booking {
      publish(touched, bookings: booking, &writer)
    }
  }

  /// Publishes the writer's version of the parts with keys `keys` and, when `bookings`, of the
  /// bookings, in one step: a search that starts after it sees all of them, one that started
  /// before none.
  ///
  /// What is published is the next moment of the parts' places, at which searches read each
  /// part's shape: the shape of a part changed only in place (most posts and cancels) stays
  /// the one published before, whose chunks' stamps show the change at the new moment.
  private func publish(_ keys: [Int], bookings: Bool, _ writer: inout Writer) {
    var next = published.value
    for key in keys {
      guard let part = writer.parts[key] else { continue }
      if part.index.isReshaped { next.parts[Int64(key)] = part.index.takeShape() }
      writer.count += part.index.count - part.published
      part.published = part.index.count
    }
    next.moment = writer.places.pin()
    next.count = writer.count
    if bookings { next.bookings = writer.bookings }
    published.replace(next)
  }

  /// Sets a player's level on their availability (in every part that holds any) and puts the
  /// availability that waited for it on the index.
  private func setLevel(
    _ level: Int, of playerID: Int64, _ writer: inout Writer, _ touched: inout [Int]
  ) {
    guard writer.levels[playerID] != Int8(level) else { return }
    let known = writer.levels[playerID] != nil
    writer.levels[playerID] = Int8(level)
    if known {
      // Over a list of the keys, so that no iterator holds the table while it changes.
      for key in Array(writer.parts.keys) where writer.parts[key]!.index.hasRequests(of: playerID) {
        writer.parts[key]!.index.updateLevel(playerID: playerID, level: level)
        if !touched.contains(key) { touched.append(key) }
      }
    }
    if let waiting = writer.unleveled.removeValue(forKey: playerID) {
      for record in waiting.values {
        let key = key(of: record.details)
        part(key, &writer).index.insert(
          Self.request(record, displayLevel: level), levelKept: true)
        if !touched.contains(key) { touched.append(key) }
      }
    }
  }

  /// Puts availability `id` on the index when `record` is active, and takes it off otherwise.
  private func place(
    _ id: Int64, _ record: AvailabilityRecord?, _ writer: inout Writer, _ touched: inout [Int]
  ) {
    // The store changes only an availability's state once it is posted, never its mode or
    // location, so `record` names the only part that can hold it. Without one (a deleted row),
    // or should it not hold it, every part is looked in when one does (the parts share one
    // table of places, and an id in two parts would be lost to the first); a new availability,
    // which none holds, costs no look at the parts.
    if let key = record.map({ key(of: $0.details) }), writer.parts[key]?.index.remove(id) != nil {
      if !touched.contains(key) { touched.append(key) }
    } else if writer.places.holds(id),
      let key = writer.parts.keys.first(where: { writer.parts[$0]!.index.contains(id) })
    {
      writer.parts[key]!.index.remove(id)
      if !touched.contains(key) { touched.append(key) }
    }
    if !writer.unleveled.isEmpty {
      for (player, var waiting) in writer.unleveled where waiting.removeValue(forKey: id) != nil {
        writer.unleveled[player] = waiting.isEmpty ? nil : waiting
      }
    }
    guard let record, record.state == .active else { return }
    if let level = writer.levels[record.playerID] {
      let key = key(of: record.details)
      part(key, &writer).index.insert(
        Self.request(record, displayLevel: Int(level)), levelKept: true)
      if !touched.contains(key) { touched.append(key) }
    } else {
      writer.unleveled[record.playerID, default: [:]][id] = record
    }
  }

  /// The part of key `key`, made when there is none.
  private func part(_ key: Int, _ writer: inout Writer) -> Part {
    if let part = writer.parts[key] { return part }
    let part = Part(MatchIndex(places: writer.places))
    writer.parts[key] = part
    return part
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

  /// Adds active availability, each with its player's level, without a store, and publishes
  /// them once at the end: for benchmarks that fill a board.
  @_spi(Benchmarks) public func insert(
    contentsOf records: some Sequence<(record: AvailabilityRecord, displayLevel: Int)>
  ) {
    writer.withLock { writer in
      writer.publishing = false
      for (record, level) in records {
        commit(
          [.level(playerID: record.playerID, level), .availability(id: record.id, record)],
          &writer)
      }
      writer.publishing = true
      trim(&writer)
      publish(Array(writer.parts.keys), bookings: true, &writer)
    }
  }

  /// Drops the availability and bookings that have ended by `nowUnixMs` (the store keeps their
  /// rows a while longer) and publishes the board without them, a part at a time, letting go of
  /// the writer's lock between parts so that the feed's transactions go on meanwhile; returns
  /// how many availability were dropped.
  @discardableResult
  public func removeExpired(nowUnixMs: Int64) -> Int {
    let keys = writer.withLock { writer in
      var booking = false
      for (id, held) in writer.bookings.matches.all where held.slot.endUnixMs <= nowUnixMs {
        writer.bookings.unbook(id)
        booking = true
      }
      for (player, waiting) in writer.unleveled {
        let left = waiting.filter { $0.value.details.slot.endUnixMs > nowUnixMs }
        writer.unleveled[player] = left.isEmpty ? nil : left
      }
      if writer.publishing, booking { publish([], bookings: true, &writer) }
      return Array(writer.parts.keys)
    }
    var removed = 0
    for key in keys {
      removed += writer.withLock { writer in
        let dropped = writer.parts[key]?.index.removeExpired(nowUnixMs: nowUnixMs).count ?? 0
        if writer.publishing, dropped > 0 { publish([key], bookings: false, &writer) }
        return dropped
      }
    }
    return removed
  }

  /// What the board holds that has not ended by `nowUnixMs`.
  public func contents(nowUnixMs: Int64) -> Contents {
    writer.withLock { writer in
      var availability: [Int64: MatchRequest] = [:]
      for part in writer.parts.values {
        for request in part.index.requests where request.slot.endUnixMs > nowUnixMs {
          availability[request.id] = request
        }
      }
      var bookings: [Int64: Booking] = [:]
      for (id, booking) in writer.bookings.matches.all where booking.slot.endUnixMs > nowUnixMs {
        bookings[id] = booking
      }
      return Contents(
        availability: availability, bookings: bookings,
        levels: writer.levels.all.mapValues(Int.init))
    }
  }

  /// True when `playerID` has a match during any of `slot`.
  public func isBooked(_ playerID: Int64, during slot: TimeSlot) -> Bool {
    published.read { $0.bookings.isBooked(playerID, during: slot) }
  }

  /// The indexed form of availability `id`, as the last transaction applied left it.
  ///
  /// Where an availability stands is known to the writer alone (a search never needs it), so
  /// this holds the writer's lock while it asks each part (a look-up in the board's one table
  /// of places, and a check of what stands there): it waits for a transaction being applied,
  /// and the writer waits for it.
  public func request(_ id: Int64) -> MatchRequest? {
    writer.withLock { writer in
      for part in writer.parts.values {
        if let request = part.index.request(id) { return request }
      }
      return nil
    }
  }

  /// Availability in the index.
  public var count: Int {
    published.read { $0.count }
  }

  /// Whether availability `id` is on the board.
  public func contains(_ id: Int64) -> Bool { request(id) != nil }

  /// A page of the availability that fits `query`, leaving out the times either player is booked.
  public func search(
    for query: MatchRequest, excluding excluded: Set<Int64>, limit: Int, after cursor: MatchCursor?
  ) -> MatchPage {
    let keys = regions.regions(searchedBy: query).map { Self.key($0, query.mode) }
    return published.read { version in
      MatchPage.merging(
        keys.compactMap { version.part($0) }.map { part in
          part.search(
            for: query, excluding: excluded,
            isBusy: { version.bookings.busy(query.playerID, $0, $1) }, limit: limit, after: cursor)
        }, limit: limit)
    }
  }

  /// What each relaxation of `query` would find.
  public func relaxations(for query: MatchRequest, excluding excluded: Set<Int64>)
    -> [MatchRelaxation]
  {
    let keys = regions.regions(searchedByRelaxationsOf: query).map { Self.key($0, query.mode) }
    return published.read { version in
      let found = keys.compactMap { version.part($0) }
      let parts = found.isEmpty ? [MatchIndex().snapshot] : found
      return MatchRelaxation.summing(
        parts.map { part in
          part.relaxations(
            for: query, excluding: excluded,
            isBusy: { version.bookings.busy(query.playerID, $0, $1) })
        })
    }
  }
}
