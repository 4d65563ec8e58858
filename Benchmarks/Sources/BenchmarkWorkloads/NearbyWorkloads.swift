import BadmintonDomain
public import BadmintonProjections

/// The nearby-players figures: the server's own nearby index with located synthetic players,
/// searched as NearbyPlayers does (the API's default radius, the first page of 20).
public enum NearbyWorkloads {
  /// The radius NearbyPlayers uses when the request gives none.
  public static let radiusMiles = Geo.maximumRadiusMiles

  /// The memory `players` located players and their index take, with room to spare: what the
  /// benchmark checks is available before it builds them.
  public static func memoryNeeded(players: Int) -> Int { 128 << 20 + players * 200 }

  /// An index of `players`, and the resident memory it added per player.
  public static func index(_ players: [SyntheticPlayer]) -> (
    index: NearbyIndex, bytesPerPlayer: Double, heapBytesPerPlayer: Double
  ) {
    let count = Double(max(players.count, 1))
    let before = ResidentMemory.current()
    let heapBefore = HeapInUse.current()
    let index = NearbyIndex()
    for player in players { index.place(player.id, at: player.home) }
    let heapAfter = HeapInUse.current()
    let after = ResidentMemory.current()
    return (index, Double(after - before) / count, Double(heapAfter - heapBefore) / count)
  }

  /// The latency of `searches` first-page searches, each from a random player's location,
  /// leaving that player out, as NearbyPlayers asks the index (one more than the page, to tell
  /// whether another page follows), and the mean number of players found.
  public static func searchLatencies(
    on index: NearbyIndex, players: [SyntheticPlayer], searches: Int
  ) -> (latencies: [Duration], meanFound: Double) {
    var random = SplitMix64(seed: 17)
    let callers = (0..<searches).map { _ in
      players[Int.random(in: 0..<players.count, using: &random)]
    }
    var found = 0
    let latencies = timeEach(searches) { n in
      found +=
        index.nearest(
          to: callers[n].home, radiusMiles: radiusMiles, after: nil,
          limit: PageRules.defaultSize + 1, excluding: [callers[n].id]
        ).count
    }
    return (latencies, Double(found) / Double(max(searches, 1)))
  }
}
