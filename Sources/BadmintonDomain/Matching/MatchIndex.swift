internal import HeapModule

/// The standing match requests in memory, arranged so that a search looks only at requests of
/// the same mode, on the UTC days the search's slot touches, in the grid cells its radius can
/// reach, instead of at every request.
///
/// Requests live in one contiguous array of small entries whose free places are reused; buckets
/// keyed by mode and UTC day map each grid cell to filings: an entry's place with a copy of its
/// times and latitude, so that a search rules most requests out from the cell's own array
/// without reaching into the entries. A request is filed under every UTC day its slot touches
/// (at most two for a slot of 8 hours). Each entry carries its player's level, and a player's
/// entries are chained to each other, so a level change reaches all of them at once.
public struct MatchIndex: Sendable {
  private let grid: GeoGrid
  private var entries: [Entry] = []
  private var freePlaces: [Int32] = []
  private var places: [Int64: Int32] = [:]
  /// The place of the first entry in each player's chain.
  private var players: [Int64: Int32] = [:]
  private var buckets: [BucketKey: [Int: [Filing]]] = [:]

  private static let dayMs: Int64 = 86_400_000

  /// A stored request with its player's current level, and the places of the player's previous
  /// and next entries in their chain (-1 for none).
  fileprivate struct Entry {
    var id: Int64
    var playerID: Int64
    var startUnixMs: Int64
    var endUnixMs: Int64
    var postedAtUnixMs: Int64
    var latitude: Double
    var longitude: Double
    /// The position others are shown (`LocationPrivacy.shownPosition`), kept so that a search
    /// does not compute it again for every request it looks at.
    var shown: Coordinate
    var radiusMiles: Double
    var skillTolerance: Int8
    var mode: MatchMode
    var level: Int8
    var previousOfPlayer: Int32 = -1
    var nextOfPlayer: Int32 = -1
    /// Where the entry's filings stand in their cells' arrays: under the first UTC day its slot
    /// touches and under the second (if any), so that a removal takes them out without a search.
    var firstFilingSlot: Int32 = -1
    var secondFilingSlot: Int32 = -1
  }

  /// A request as a cell lists it: its place in `entries`, and its slot (to the whole minute,
  /// widened outwards) and latitude (single precision), for the quick tests of a search.
  fileprivate struct Filing {
    var place: Int32
    var startMinute: Int32
    var endMinute: Int32
    var latitude: Float

    init(place: Int32, _ entry: Entry) {
      self.place = place
      // Floor the start and ceil the end, so the copy never covers less than the slot; a slot
      // beyond what 32-bit minutes hold (before 2113 BC or after 6052) is marked with
      // the widest range, and `mayOverlap` leaves it to the exact rules.
      if let start = Int32(exactly: MatchIndex.floorDivide(entry.startUnixMs, 60_000)),
        let end = Int32(exactly: -MatchIndex.floorDivide(-entry.endUnixMs, 60_000))
      {
        self.startMinute = start
        self.endMinute = end
      } else {
        self.startMinute = .min
        self.endMinute = .max
      }
      self.latitude = Float(entry.latitude)
    }

    /// False only when the slot cannot share `minimum` minutes with the query's minutes.
    func mayOverlap(_ queryStart: Int64, _ queryEnd: Int64, minimum: Int64) -> Bool {
      startMinute == .min
        || min(Int64(endMinute), queryEnd) - max(Int64(startMinute), queryStart) >= minimum
    }
  }

  private struct BucketKey: Hashable {
    var day: Int64
    var mode: MatchMode
  }

  /// An empty index whose grid cells are `cellDegrees` on a side (default 0.25 degrees).
  public init(cellDegrees: Double = 0.25) {
    self.grid = GeoGrid(cellDegrees: cellDegrees)
  }

  /// Requests in the index.
  public var count: Int { places.count }

  /// The request with id `requestID`, with its player's current level.
  public func request(_ requestID: Int64) -> MatchRequest? {
    places[requestID].map { request(at: $0) }
  }

  /// Whether the request with id `requestID` is in the index.
  public func contains(_ requestID: Int64) -> Bool { places[requestID] != nil }

  /// Whether the index holds any request of `playerID`.
  public func hasRequests(of playerID: Int64) -> Bool { players[playerID] != nil }

  /// Every request in the index, with its player's current level, in no particular order.
  public var requests: [MatchRequest] { places.values.map { request(at: $0) } }

  /// Adds `request`, replacing a request with the same id. The request's level becomes its
  /// player's level for all of the player's requests. The slot must last at most 8 hours.
  public mutating func insert(_ request: MatchRequest) {
    precondition(
      request.slot.startUnixMs < request.slot.endUnixMs
        && request.slot.durationMs <= TimeSlotRules.maximumDurationSeconds * 1000,
      "a request's slot lasts more than 0 and at most 8 hours")
    precondition(PlayerRules.allLevels.contains(request.displayLevel), "level out of range")
    precondition(MatchRules.skillTolerances.contains(request.skillTolerance), "bad tolerance")
    remove(request.id)
    let entry = Entry(
      id: request.id, playerID: request.playerID, startUnixMs: request.slot.startUnixMs,
      endUnixMs: request.slot.endUnixMs, postedAtUnixMs: request.postedAtUnixMs,
      latitude: request.location.latitude, longitude: request.location.longitude,
      shown: LocationPrivacy.shownPosition(of: request.location), radiusMiles: request.radiusMiles,
      skillTolerance: Int8(request.skillTolerance),
      mode: request.mode, level: Int8(request.displayLevel))
    let place: Int32
    if let free = freePlaces.popLast() {
      place = free
      entries[Int(place)] = entry
    } else {
      precondition(entries.count < Int(Int32.max), "index full")
      place = Int32(entries.count)
      entries.append(entry)
    }
    places[request.id] = place
    if let first = players[request.playerID] {
      entries[Int(place)].nextOfPlayer = first
      entries[Int(first)].previousOfPlayer = place
    }
    players[request.playerID] = place
    setLevel(Int8(request.displayLevel), from: place)
    let cell = grid.cell(of: request.location)
    let filing = Filing(place: place, entry)
    let days = Self.days(of: request.slot)
    for day in days {
      let key = BucketKey(day: day, mode: request.mode)
      let slot = Int32(buckets[key]?[cell]?.count ?? 0)
      buckets[key, default: [:]][cell, default: []].append(filing)
      if day == days.lowerBound {
        entries[Int(place)].firstFilingSlot = slot
      } else {
        entries[Int(place)].secondFilingSlot = slot
      }
    }
  }

  /// Removes the request with id `requestID` and returns it, if it was there.
  @discardableResult
  public mutating func remove(_ requestID: Int64) -> MatchRequest? {
    guard let place = places.removeValue(forKey: requestID) else { return nil }
    let removed = request(at: place)
    let entry = entries[Int(place)]
    let cell = grid.cell(of: removed.location)
    let days = Self.days(of: removed.slot)
    for day in days {
      let key = BucketKey(day: day, mode: entry.mode)
      let slot = day == days.lowerBound ? entry.firstFilingSlot : entry.secondFilingSlot
      // The cell's last filing takes the removed one's place; its entry learns where it went.
      if let moved = buckets[key]![cell]!.swapRemove(at: Int(slot)) {
        if day == Self.day(of: entries[Int(moved)].startUnixMs) {
          entries[Int(moved)].firstFilingSlot = slot
        } else {
          entries[Int(moved)].secondFilingSlot = slot
        }
      }
      if buckets[key]![cell]!.isEmpty {
        buckets[key]![cell] = nil
        if buckets[key]!.isEmpty { buckets[key] = nil }
      }
    }
    if entry.previousOfPlayer >= 0 {
      entries[Int(entry.previousOfPlayer)].nextOfPlayer = entry.nextOfPlayer
    } else if entry.nextOfPlayer >= 0 {
      players[entry.playerID] = entry.nextOfPlayer
    } else {
      players[entry.playerID] = nil
    }
    if entry.nextOfPlayer >= 0 {
      entries[Int(entry.nextOfPlayer)].previousOfPlayer = entry.previousOfPlayer
    }
    freePlaces.append(place)
    return removed
  }

  /// Sets the level of every request of `playerID`; a player without requests is ignored.
  public mutating func updateLevel(playerID: Int64, level: Int) {
    precondition(PlayerRules.allLevels.contains(level), "level out of range")
    if let first = players[playerID] { setLevel(Int8(level), from: first) }
  }

  /// Sets `level` on the entry at `place` and every entry after it in its player's chain.
  private mutating func setLevel(_ level: Int8, from place: Int32) {
    var next = place
    while next >= 0 {
      entries[Int(next)].level = level
      next = entries[Int(next)].nextOfPlayer
    }
  }

  /// Removes every request whose slot has ended by `nowUnixMs` and returns their ids, ascending.
  /// Looks only at the buckets of UTC days up to the one holding `nowUnixMs`.
  @discardableResult
  public mutating func removeExpired(nowUnixMs: Int64) -> [Int64] {
    // A slot that has ended by now last ran in the day of the millisecond before now, or earlier.
    let lastDay = Self.day(of: nowUnixMs - 1)
    var found = Set<Int64>()
    for (key, cells) in buckets where key.day <= lastDay {
      for filings in cells.values {
        for filing in filings where entries[Int(filing.place)].endUnixMs <= nowUnixMs {
          found.insert(entries[Int(filing.place)].id)
        }
      }
    }
    let expired = found.sorted()
    for id in expired { remove(id) }
    return expired
  }

  /// A page of the requests that fit `query` (see `MatchRules.candidate`), leaving out players
  /// in `excluded` and those for whom `isBusy(playerID, overlap)` holds: up to `limit`
  /// candidates that come after `cursor` in the result order.
  ///
  /// `isBusy` is asked only about candidates every other rule lets through, in result order, and
  /// no further than the page needs.
  public func search(
    for query: MatchRequest, excluding excluded: Set<Int64> = [],
    isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }, limit: Int,
    after cursor: MatchCursor? = nil
  ) -> MatchPage {
    precondition(limit > 0, "limit must be positive")
    // Keep only the first page and one more in a bounded heap while visiting; that is enough
    // unless booked players push the page past them.
    let keep = limit + 1
    var best = Heap<Ranked>()
    var total = 0
    visitCandidates(for: query, excluding: excluded) { candidate in
      if let cursor, !(cursor < candidate.cursor) { return }
      total += 1
      if best.count < keep {
        best.insert(Ranked(candidate))
      } else if candidate.cursor < best.max!.candidate.cursor {
        _ = best.replaceMax(with: Ranked(candidate))
      }
    }
    let first = best.unordered.sorted().map(\.candidate)
    var page: [MatchCandidate] = []
    for candidate in first where !isBusy(candidate.playerID, candidate.overlap) {
      if page.count == limit { return MatchPage(candidates: page, nextCursor: page.last!.cursor) }
      page.append(candidate)
    }
    guard total > first.count else { return MatchPage(candidates: page, nextCursor: nil) }
    // Booked players took places on the page: go on in result order past the ones kept.
    var rest = candidates(for: query, excluding: excluded, after: first.last!.cursor)
    rest.sort(by: MatchCandidate.precedes)
    for candidate in rest where !isBusy(candidate.playerID, candidate.overlap) {
      if page.count == limit { return MatchPage(candidates: page, nextCursor: page.last!.cursor) }
      page.append(candidate)
    }
    return MatchPage(candidates: page, nextCursor: nil)
  }

  /// A candidate in a heap, ordered by the result order.
  private struct Ranked: Comparable {
    var candidate: MatchCandidate
    init(_ candidate: MatchCandidate) { self.candidate = candidate }
    static func < (a: Ranked, b: Ranked) -> Bool { a.candidate.cursor < b.candidate.cursor }
    static func == (a: Ranked, b: Ranked) -> Bool { a.candidate.cursor == b.candidate.cursor }
  }

  /// How many requests fit `query`, with the same exclusions as `search`, without building pages.
  public func count(
    for query: MatchRequest, excluding excluded: Set<Int64> = [],
    isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }
  ) -> Int {
    var count = 0
    visitCandidates(for: query, excluding: excluded) { candidate in
      if !isBusy(candidate.playerID, candidate.overlap) { count += 1 }
    }
    return count
  }

  /// How many requests each relaxation of `query` would find (see `MatchRelaxation`), with the
  /// same exclusions as `search`.
  public func relaxations(
    for query: MatchRequest, excluding excluded: Set<Int64> = [],
    isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }
  ) -> [MatchRelaxation] {
    MatchRelaxation.options(for: query).map { kind, relaxed in
      MatchRelaxation(
        kind: kind, slot: relaxed.slot, skillTolerance: relaxed.skillTolerance,
        radiusMiles: relaxed.radiusMiles,
        candidateCount: count(for: relaxed, excluding: excluded, isBusy: isBusy))
    }
  }

  private func candidates(
    for query: MatchRequest, excluding excluded: Set<Int64>, after cursor: MatchCursor?
  ) -> [MatchCandidate] {
    var result: [MatchCandidate] = []
    visitCandidates(for: query, excluding: excluded) { candidate in
      if let cursor, !(cursor < candidate.cursor) { return }
      result.append(candidate)
    }
    return result
  }

  /// Calls `body` once for each request that fits `query` and whose player is not excluded.
  private func visitCandidates(
    for query: MatchRequest, excluding excluded: Set<Int64>, _ body: (MatchCandidate) -> Void
  ) {
    guard query.radiusMiles >= 0, query.slot.startUnixMs < query.slot.endUnixMs else { return }
    let radius = Self.reachMiles(of: query)
    let days = Self.days(of: query.slot)
    let cells = grid.cells(around: query.location, radiusMiles: radius)
    // A slot longer than the index's span of days need not visit the days in between.
    let keys =
      days.upperBound - days.lowerBound < Int64(buckets.count)
      ? days.map { BucketKey(day: $0, mode: query.mode) }
      : buckets.keys.filter { $0.mode == query.mode && days.contains($0.day) }
    // Cheap tests first, each one a consequence of the rules, so that only requests that can
    // fit get the full test of `MatchRules.candidate`: a slot that overlaps the query's by the
    // minimum, and a latitude no further than the radius allows (a great circle is at least as
    // long as the difference in latitude).
    let queryStartMinute = Self.floorDivide(query.slot.startUnixMs, 60_000)
    let queryEndMinute = -Self.floorDivide(-query.slot.endUnixMs, 60_000)
    let minimumOverlapMinutes = TimeSlot.minimumOverlapMs / 60_000
    // Single-precision latitudes are within a millionth of a degree or so; allow a thousandth.
    let latitudeReach = radius / Geo.earthRadiusMiles * 180 / .pi + 1e-3
    let queryShown = LocationPrivacy.shownPosition(of: query.location)
    for key in keys {
      guard let bucket = buckets[key] else { continue }
      for cell in cells {
        guard let filings = bucket[cell] else { continue }
        for filing in filings {
          guard
            filing.mayOverlap(
              queryStartMinute, queryEndMinute, minimum: minimumOverlapMinutes),
            abs(Double(filing.latitude) - query.location.latitude) <= latitudeReach
          else { continue }
          let entry = entries[Int(filing.place)]
          guard entry.playerID != query.playerID,
            // A request filed under several of the query's days is looked at on the first.
            max(Self.day(of: entry.startUnixMs), days.lowerBound) == key.day,
            excluded.isEmpty || !excluded.contains(entry.playerID),
            let candidate = MatchRules.candidate(
              request(at: filing.place), shownAt: entry.shown, for: query, shownAt: queryShown)
          else { continue }
          body(candidate)
        }
      }
    }
  }

  /// How far from the query's location the true locations of fitting requests can lie: a
  /// request fits by the distance between cell centres, each at most
  /// `LocationPrivacy.maximumSnapMiles` from its true location.
  static func reachMiles(of query: MatchRequest) -> Double {
    LocationPrivacy.banded(min(query.radiusMiles, Geo.maximumRadiusMiles))
      + 2 * LocationPrivacy.maximumSnapMiles
  }

  private func request(at place: Int32) -> MatchRequest {
    let entry = entries[Int(place)]
    return MatchRequest(
      id: entry.id, playerID: entry.playerID, mode: entry.mode,
      slot: TimeSlot(startUnixMs: entry.startUnixMs, endUnixMs: entry.endUnixMs),
      location: Coordinate(latitude: entry.latitude, longitude: entry.longitude),
      radiusMiles: entry.radiusMiles, skillTolerance: Int(entry.skillTolerance),
      displayLevel: Int(entry.level), postedAtUnixMs: entry.postedAtUnixMs)
  }

  /// The UTC day, counted from 1970-01-01, holding the instant `unixMs`.
  private static func day(of unixMs: Int64) -> Int64 { floorDivide(unixMs, dayMs) }

  /// `a / b` rounded down, for a positive `b`.
  fileprivate static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    a >= 0 ? a / b : (a + 1) / b - 1
  }

  /// The UTC days a non-empty slot touches.
  private static func days(of slot: TimeSlot) -> ClosedRange<Int64> {
    day(of: slot.startUnixMs)...day(of: slot.endUnixMs - 1)
  }
}

extension Array where Element == MatchIndex.Filing {
  /// Removes the filing at `index`, moving the last filing into its place; returns the place of
  /// the entry whose filing moved, nil when none did.
  fileprivate mutating func swapRemove(at index: Int) -> Int32? {
    let last = removeLast()
    guard index < count else { return nil }
    self[index] = last
    return last.place
  }
}
