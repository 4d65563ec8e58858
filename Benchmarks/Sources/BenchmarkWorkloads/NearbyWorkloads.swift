public import BadmintonDomain
public import BadmintonServices

/// The nearby-players figures: the server's own nearby index with located synthetic players,
/// searched as NearbyPlayers does (the API's default radius, the first page of 20).
public enum NearbyWorkloads {
  /// The radius NearbyPlayers uses when the request gives none.
  public static let radiusMiles = Geo.maximumRadiusMiles

  /// An index of `players`, and the resident memory it added per player.
  public static func index(_ players: [SyntheticPlayer]) -> (
    index: NearbyIndex, bytesPerPlayer: Double, heapBytesPerPlayer: Double
  ) {
    let count = Double(max(players.count, 1))
    let before = ResidentMemory.current()
    let heapBefore = HeapInUse.current()
    let index = NearbyIndex()
    for player in players { index.update(player.id, to: player.home, revision: 1) }
    let heapAfter = HeapInUse.current()
    let after = ResidentMemory.current()
    return (index, Double(after - before) / count, Double(heapAfter - heapBefore) / count)
  }

  /// The latency of `searches` first-page searches, each from a random player's location,
  /// leaving that player out, and the mean number of players within the radius.
  public static func searchLatencies(
    on index: NearbyIndex, players: [SyntheticPlayer], searches: Int
  ) -> (latencies: [Duration], meanWithin: Double) {
    var random = SplitMix64(seed: 17)
    let callers = (0..<searches).map { _ in
      players[Int.random(in: 0..<players.count, using: &random)]
    }
    var within = 0
    let latencies = timeEach(searches) { n in
      let hits = index.nearby(callers[n].home, radiusMiles: radiusMiles, excluding: [callers[n].id])
      within += hits.count
      _ = hits.prefix(PageRules.defaultSize)
    }
    return (latencies, Double(within) / Double(max(searches, 1)))
  }
}
