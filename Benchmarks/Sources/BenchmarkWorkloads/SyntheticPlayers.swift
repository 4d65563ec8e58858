public import BadmintonDomain
import Foundation

/// A small, fast, seedable generator, so that every run builds the same players.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator that starts from `seed`.
  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A normally distributed number with mean 0 and standard deviation 1 (Box-Muller).
  public mutating func gaussian() -> Double {
    let u = Double.random(in: Double.ulpOfOne..<1, using: &self)
    let v = Double.random(in: 0..<1, using: &self)
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
  }

  /// One of `choices`, each as likely as its weight.
  public mutating func pick<T>(_ choices: [(T, Double)]) -> T {
    var roll = Double.random(in: 0..<choices.reduce(0) { $0 + $1.1 }, using: &self)
    for (choice, weight) in choices {
      if roll < weight { return choice }
      roll -= weight
    }
    return choices[choices.count - 1].0
  }
}

/// A synthetic player: where they live and how well they play.
public struct SyntheticPlayer: Sendable {
  /// The player's id, from 1.
  public var id: Int64
  /// The index of the player's city in `cities`.
  public var city: Int
  /// Where the player lives.
  public var home: Coordinate
  /// The player's display level, 1 to 9.
  public var level: Int
}

/// Players and their standing availability, spread as real players are: clustered around the
/// 50 cities by population with most players within 10 miles of the centre, a mix of singles and
/// doubles over the next 14 days, mostly on evenings and weekend days, of 1 to 8 hours, at levels
/// that peak around 3 and 4.
public struct SyntheticWorld: Sendable {
  /// The players.
  public var players: [SyntheticPlayer]
  /// Their availability, as the match index holds it; ids from 1.
  public var requests: [MatchRequest]

  private static let milesPerDegree = 69.0
  private static let dayMs: Int64 = 86_400_000

  /// About `requestCount / 2.5` players with `requestCount` availability between them, from
  /// `startUnixMs` (a UTC midnight) onwards.
  public static func generate(requests requestCount: Int, startUnixMs: Int64, seed: UInt64 = 42)
    -> SyntheticWorld
  {
    var random = SplitMix64(seed: seed)
    var players: [SyntheticPlayer] = []
    var requests: [MatchRequest] = []
    players.reserveCapacity(requestCount * 2 / 5 + 1)
    requests.reserveCapacity(requestCount)
    while requests.count < requestCount {
      let player = makePlayer(id: Int64(players.count + 1), using: &random)
      players.append(player)
      let tolerance = random.pick([(1, 20.0), (2, 60), (3, 20)])
      let radius = random.pick([(5.0, 15.0), (10, 40), (15, 30), (25, 15)])
      for _ in 0..<Int.random(in: 1...4, using: &random) where requests.count < requestCount {
        requests.append(
          makeRequest(
            id: Int64(requests.count + 1), player: player, tolerance: tolerance, radius: radius,
            startUnixMs: startUnixMs, using: &random))
      }
    }
    return SyntheticWorld(players: players, requests: requests)
  }

  /// `count` players, each with one availability (ids from 1, the availability's id its
  /// player's), made one at a time and handed to `body`, spread as `generate` spreads them:
  /// for stores of millions that the process need not hold at once.
  public static func eachPlayerWithAvailability(
    _ count: Int, startUnixMs: Int64, seed: UInt64 = 42,
    _ body: (SyntheticPlayer, MatchRequest) throws -> Void
  ) rethrows {
    var random = SplitMix64(seed: seed)
    for id in Int64(1)...Int64(max(count, 1)) where id <= count {
      let player = makePlayer(id: id, using: &random)
      let tolerance = random.pick([(1, 20.0), (2, 60), (3, 20)])
      let radius = random.pick([(5.0, 15.0), (10, 40), (15, 30), (25, 15)])
      try body(
        player,
        makeRequest(
          id: id, player: player, tolerance: tolerance, radius: radius, startUnixMs: startUnixMs,
          using: &random))
    }
  }

  /// `count` located players, spread over the cities as `generate` spreads them.
  public static func locatedPlayers(_ count: Int, seed: UInt64 = 7) -> [SyntheticPlayer] {
    var random = SplitMix64(seed: seed)
    return (1...max(count, 1)).prefix(count).map { makePlayer(id: Int64($0), using: &random) }
  }

  private static let cityWeights = cities.indices.map { ($0, cities[$0].weight) }

  private static func makePlayer(id: Int64, using random: inout SplitMix64) -> SyntheticPlayer {
    let city = random.pick(cityWeights)
    // Most players live within 10 miles of the centre; a few up to 30 miles out.
    let home = scatter(cities[city].center, sigmaMiles: 6, capMiles: 30, using: &random)
    let level = random.pick([
      (1, 6.0), (2, 14), (3, 22), (4, 22), (5, 16), (6, 10), (7, 6), (8, 3), (9, 1),
    ])
    return SyntheticPlayer(id: id, city: city, home: home, level: level)
  }

  private static func makeRequest(
    id: Int64, player: SyntheticPlayer, tolerance: Int, radius: Double, startUnixMs: Int64,
    using random: inout SplitMix64
  ) -> MatchRequest {
    let mode: MatchMode = random.pick([(.singles, 65.0), (.doubles, 35)])
    // Nearer days are posted more often than later ones.
    let day = Int64(random.pick((0..<14).map { ($0, 14.0 - Double($0) * 0.6) }))
    let weekend = (day + 6) % 7 >= 5
    let localStartMinute: Int =
      weekend && Bool.random(using: &random)
      ? Int.random(in: 16...32, using: &random) * 30  // 8:00 to 16:00
      : random.pick([
        (Int.random(in: 12...15, using: &random) * 30, 15.0),  // 6:00 to 7:30
        (Int.random(in: 34...42, using: &random) * 30, 85),
      ])  // 17:00 to 21:00
    let minutes = random.pick([(60, 30.0), (90, 20), (120, 30), (180, 15), (240, 4), (480, 1)])
    let offsetMinutes = cities[player.city].utcOffsetHours * 60
    let start = startUnixMs + day * dayMs + Int64(localStartMinute - offsetMinutes) * 60_000
    // Play happens near home, sometimes near work.
    let location = scatter(player.home, sigmaMiles: 1.5, capMiles: 8, using: &random)
    return MatchRequest(
      id: id, playerID: player.id, mode: mode,
      slot: TimeSlot(startUnixMs: start, endUnixMs: start + Int64(minutes) * 60_000),
      location: location, radiusMiles: radius, skillTolerance: tolerance,
      displayLevel: player.level, postedAtUnixMs: startUnixMs - Int64(id % 86_400) * 1000)
  }

  /// A point about `sigmaMiles` from `center` in each direction, at most `capMiles` away.
  private static func scatter(
    _ center: Coordinate, sigmaMiles: Double, capMiles: Double, using random: inout SplitMix64
  ) -> Coordinate {
    var north = random.gaussian() * sigmaMiles
    var east = random.gaussian() * sigmaMiles
    let distance = (north * north + east * east).squareRoot()
    if distance > capMiles {
      north *= capMiles / distance
      east *= capMiles / distance
    }
    let latitude = center.latitude + north / milesPerDegree
    let longitude =
      center.longitude + east / (milesPerDegree * cos(center.latitude * .pi / 180))
    return Coordinate(latitude: latitude, longitude: longitude)
  }
}
