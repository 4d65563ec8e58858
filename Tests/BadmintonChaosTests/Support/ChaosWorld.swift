import Foundation
import Synchronization

/// A player of the chaos run.
struct ChaosPlayer: Sendable, Hashable {
  /// Its place among the players, from 0.
  var index: Int
  var id: Int64
  var phone: String
  var password: String

  /// Far from every other player (at least 21 degrees of longitude apart, hundreds of miles
  /// at these latitudes), so that no post finds partners and the events are the ones the
  /// workload makes.
  var latitude: Double { -60 + Double(index % 9) * 15 }
  var longitude: Double { -170 + Double(index) * 21 }
}

/// What the workload believes the store holds, so that each operation is one the server should
/// accept: the active availability of each player and the state of each pair of players.
/// Devices reserve what they act on, so that two never act on the same thing at once.
final class ChaosWorld: Sendable {
  /// Two players, the lower id first.
  struct Pair: Hashable, Sendable {
    var low: Int64
    var high: Int64

    init(_ one: Int64, _ other: Int64) {
      low = min(one, other)
      high = max(one, other)
    }
  }

  enum PairState: Sendable, Hashable {
    case strangers
    /// `sender` asked; request `id` waits for the other.
    case requested(id: Int64, sender: Int64)
    case friends
    /// A device is acting on the pair.
    case busy
    /// A write on the pair had an answer the model cannot follow: left alone from then on.
    case unknown
  }

  struct State: Sendable {
    var active: [Int64: [Int64]] = [:]
    /// Posts sent and not yet answered, by player: they count against the limit of 10.
    var posting: [Int64: Int] = [:]
    var pairs: [Pair: PairState] = [:]
  }

  let players: [ChaosPlayer]
  let state: Mutex<State>

  init(players: [ChaosPlayer]) {
    self.players = players
    var state = State()
    for (index, one) in players.enumerated() {
      for other in players[(index + 1)...] { state.pairs[Pair(one.id, other.id)] = .strangers }
    }
    self.state = Mutex(state)
  }

  /// Reserves a post for `player` when it has room under the limit (8, leaving a margin).
  func reservePost(_ player: Int64) -> Bool {
    state.withLock { state in
      guard state.active[player, default: []].count + state.posting[player, default: 0] < 8
      else { return false }
      state.posting[player, default: 0] += 1
      return true
    }
  }

  /// A reserved post was answered: `id` when it succeeded.
  func posted(_ player: Int64, id: Int64?) {
    state.withLock { state in
      state.posting[player, default: 0] -= 1
      if let id { state.active[player, default: []].append(id) }
    }
  }

  /// Takes one of `player`'s active availability to cancel, chosen by `pick`.
  func takeActive(_ player: Int64, pick: (Int) -> Int) -> Int64? {
    state.withLock { state in
      guard let active = state.active[player], !active.isEmpty else { return nil }
      return state.active[player]!.remove(at: pick(active.count))
    }
  }

  /// A friend action `player` can take now, reserved: the other player and the pair's state.
  func reservePair(for player: Int64, pick: (Int) -> Int) -> (other: Int64, PairState)? {
    state.withLock { state in
      let candidates = state.pairs.filter { pair, pairState in
        guard pair.low == player || pair.high == player else { return false }
        switch pairState {
        case .strangers, .friends: return true
        case .requested(_, let sender): return sender != player
        case .busy, .unknown: return false
        }
      }.sorted { ($0.key.low, $0.key.high) < ($1.key.low, $1.key.high) }
      guard !candidates.isEmpty else { return nil }
      let (pair, pairState) = candidates[pick(candidates.count)]
      state.pairs[pair] = .busy
      return (pair.low == player ? pair.high : pair.low, pairState)
    }
  }

  /// Ends a reservation of the pair of `one` and `other` with its new state.
  func release(_ one: Int64, _ other: Int64, as pairState: PairState) {
    state.withLock { $0.pairs[Pair(one, other)] = pairState }
  }

  /// The pairs' states at the end.
  var pairs: [Pair: PairState] { state.withLock { $0.pairs } }
}

/// Dates as the store and the requests write them.
enum ChaosDates {
  /// The UTC calendar.
  static var utc: Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }

  /// The day `days` after today, in UTC: year, month, day.
  static func day(after days: Int, from now: Date = Date()) -> (Int32, Int32, Int32) {
    let date = utc.date(byAdding: .day, value: days, to: now)!
    let parts = utc.dateComponents([.year, .month, .day], from: date)
    return (Int32(parts.year!), Int32(parts.month!), Int32(parts.day!))
  }

  /// `YYYY-MM-DD`.
  static func text(_ day: (Int32, Int32, Int32)) -> String {
    String(format: "%04d-%02d-%02d", day.0, day.1, day.2)
  }
}
