public import BadmintonDomain
public import BadmintonStore
import Synchronization

/// The active availability of every player, in the in-memory match index that searches run on,
/// and the times players are already booked by confirmed matches. Rebuilt from the store at
/// start; the matching service keeps it in step with every write.
public final class MatchBoard: Sendable {
  private struct State {
    var index = MatchIndex()
    /// Confirmed matches not yet ended, by player.
    var booked: [Int64: [Int64: TimeSlot]] = [:]

    func isBooked(_ playerID: Int64, during slot: TimeSlot) -> Bool {
      booked[playerID]?.values.contains {
        $0.startUnixMs < slot.endUnixMs && slot.startUnixMs < $0.endUnixMs
      } ?? false
    }
  }

  private let state = Mutex(State())

  /// An empty board.
  public init() {}

  /// A board holding every active availability in `store`, each with its player's display level.
  public static func rebuilt(
    from store: any ServerStore, nowUnixMs: Int64
  ) async throws -> MatchBoard {
    let board = MatchBoard()
    for match in try await store.confirmedMatches(endingAfter: nowUnixMs) {
      board.book(match.id, players: match.playerIDs, during: match.slot)
    }
    let records = try await store.allActiveAvailability(now: nowUnixMs)
    var levels: [Int64: Int] = [:]
    for chunk in stride(from: 0, to: records.count, by: 500) {
      let ids = Set(records[chunk..<min(chunk + 500, records.count)].map(\.playerID))
      let players = try await store.players(ids: Array(ids.subtracting(levels.keys)))
      for (id, player) in players { levels[id] = player.displayLevel.level }
    }
    for record in records {
      guard let level = levels[record.playerID] else { continue }
      board.insert(record, displayLevel: level)
    }
    return board
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

  /// Adds an active availability.
  @_spi(Benchmarks) public func insert(_ record: AvailabilityRecord, displayLevel: Int) {
    let request = Self.request(record, displayLevel: displayLevel)
    state.withLock { $0.index.insert(request) }
  }

  /// Removes availability that was cancelled or replaced.
  @_spi(Benchmarks) public func remove(_ ids: [Int64]) {
    state.withLock { state in
      for id in ids { _ = state.index.remove(id) }
    }
  }

  /// The player's display level changed.
  public func updateLevel(playerID: Int64, level: Int) {
    state.withLock { $0.index.updateLevel(playerID: playerID, level: level) }
  }

  /// Removes the availability and bookings that have ended by `nowUnixMs`; returns how many
  /// availability were removed.
  @discardableResult
  public func removeExpired(nowUnixMs: Int64) -> Int {
    state.withLock { state in
      for (player, matches) in state.booked {
        let left = matches.filter { $0.value.endUnixMs > nowUnixMs }
        state.booked[player] = left.isEmpty ? nil : left
      }
      return state.index.removeExpired(nowUnixMs: nowUnixMs).count
    }
  }

  /// Records a confirmed match: its players are booked for its time.
  func book(_ matchID: Int64, players: [Int64], during slot: TimeSlot) {
    state.withLock { state in
      for player in players { state.booked[player, default: [:]][matchID] = slot }
    }
  }

  /// Forgets a cancelled match.
  func unbook(_ matchID: Int64, players: [Int64]) {
    state.withLock { state in
      for player in players {
        state.booked[player]?[matchID] = nil
        if state.booked[player]?.isEmpty == true { state.booked[player] = nil }
      }
    }
  }

  /// True when `playerID` has a confirmed match during any of `slot`.
  func isBooked(_ playerID: Int64, during slot: TimeSlot) -> Bool {
    state.withLock { $0.isBooked(playerID, during: slot) }
  }

  /// The indexed form of availability `id`.
  @_spi(Benchmarks) public func request(_ id: Int64) -> MatchRequest? {
    state.withLock { $0.index.request(id) }
  }

  /// Availability in the index.
  public var count: Int { state.withLock { $0.index.count } }

  /// Whether availability `id` is on the board.
  public func contains(_ id: Int64) -> Bool { state.withLock { $0.index.request(id) != nil } }

  /// A page of the availability that fits `query`, leaving out the times either player is booked.
  @_spi(Benchmarks) public func search(
    for query: MatchRequest, excluding excluded: Set<Int64>, limit: Int, after cursor: MatchCursor?
  ) -> MatchPage {
    state.withLock { state in
      state.index.search(
        for: query, excluding: excluded,
        isBusy: { Self.busy(state, query.playerID, $0, $1) }, limit: limit, after: cursor)
    }
  }

  /// Every availability that fits `query`, in result order.
  func allFits(for query: MatchRequest, excluding excluded: Set<Int64>) -> [MatchCandidate] {
    state.withLock { state in
      let isBusy = { Self.busy(state, query.playerID, $0, $1) }
      let total = state.index.count(for: query, excluding: excluded, isBusy: isBusy)
      guard total > 0 else { return [] }
      return state.index.search(
        for: query, excluding: excluded, isBusy: isBusy, limit: total
      ).candidates
    }
  }

  /// What each relaxation of `query` would find.
  func relaxations(for query: MatchRequest, excluding excluded: Set<Int64>) -> [MatchRelaxation] {
    state.withLock { state in
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
