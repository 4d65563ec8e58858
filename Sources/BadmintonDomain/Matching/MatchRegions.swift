/// Coarse squares of the globe that split the standing requests into parts kept and searched
/// apart, so that a change to one part need not wait for searches of the others.
///
/// A request belongs to the region holding its location; a search can find requests only in
/// the regions its reach touches (the same reach the match index's grid cells are chosen by,
/// on a coarser grid), so searching those regions and merging their pages gives what one index
/// holding every request gives.
public struct MatchRegions: Sendable {
  private let grid: GeoGrid

  /// Regions `cellDegrees` on a side (default 5 degrees: about 350 by 350 miles at the
  /// equator, far wider than the largest search radius).
  public init(cellDegrees: Double = 5) {
    grid = GeoGrid(cellDegrees: cellDegrees)
  }

  /// The region holding `location`.
  public func region(of location: Coordinate) -> Int {
    grid.cell(of: location)
  }

  /// The regions holding every request that can fit `query`, each once.
  public func regions(searchedBy query: MatchRequest) -> [Int] {
    guard query.radiusMiles >= 0 else { return [] }
    return grid.cells(around: query.location, radiusMiles: MatchIndex.reachMiles(of: query))
  }

  /// The regions holding every request that can fit `query` or any of its relaxations (see
  /// `MatchRelaxation`), each once.
  public func regions(searchedByRelaxationsOf query: MatchRequest) -> [Int] {
    var seen = Set<Int>()
    var result: [Int] = []
    for (_, relaxed) in MatchRelaxation.options(for: query) {
      for region in regions(searchedBy: relaxed) where seen.insert(region).inserted {
        result.append(region)
      }
    }
    return result
  }
}

extension MatchPage {
  /// The page one search of all the requests gives, from the pages of the same search (same
  /// query, exclusions, limit and cursor) in parts that together hold every request once.
  public static func merging(_ pages: [MatchPage], limit: Int) -> MatchPage {
    precondition(limit > 0, "limit must be positive")
    if pages.count == 1 { return pages[0] }
    var all = pages.flatMap(\.candidates)
    all.sort(by: MatchCandidate.precedes)
    // More follow when the parts hold more than a page, or a part had more than it gave.
    let more = all.count > limit || pages.contains { $0.nextCursor != nil }
    let page = Array(all.prefix(limit))
    return MatchPage(candidates: page, nextCursor: more ? page.last?.cursor : nil)
  }
}

extension MatchRelaxation {
  /// What each relaxation finds in parts that together hold every request once, from what it
  /// finds in each part (each part's list in the order `MatchIndex.relaxations` gives).
  public static func summing(_ parts: [[MatchRelaxation]]) -> [MatchRelaxation] {
    guard var total = parts.first else { return [] }
    for part in parts.dropFirst() {
      precondition(part.count == total.count, "relaxations of different queries")
      for n in total.indices { total[n].candidateCount += part[n].candidateCount }
    }
    return total
  }
}
