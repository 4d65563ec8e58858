internal import HeapModule

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// One entry of a nearby search: a player and how far they are.
public struct NearbyHit: Hashable, Comparable, Sendable {
  /// The player.
  public var playerID: Int64
  /// The distance in miles.
  public var distanceMiles: Double

  /// A hit at `distanceMiles`.
  public init(playerID: Int64, distanceMiles: Double) {
    self.playerID = playerID
    self.distanceMiles = distanceMiles
  }

  /// Nearest first; equal distances by player id, so every search has one order.
  public static func precedes(_ a: NearbyHit, _ b: NearbyHit) -> Bool {
    (a.distanceMiles, a.playerID) < (b.distanceMiles, b.playerID)
  }

  /// The order of `precedes`.
  public static func < (a: NearbyHit, b: NearbyHit) -> Bool { precedes(a, b) }
}

/// Players' last known locations in a fine grid of latitude-longitude cells, searched nearest
/// first: a search visits cells in the order of how near any point of theirs can be, and stops
/// once no unvisited cell can hold a player nearer than the page's last one. Each grid row keeps
/// its occupied cells sorted by column, so empty land and sea cost nothing.
public struct GeoIndex: Sendable {
  /// A cell's edge in degrees.
  public var cellDegrees: Double { grid.cellDegrees }
  private let grid: GeoGrid
  private var locations: [Int64: Coordinate] = [:]
  private var rows: [Int: Row] = [:]

  /// A located player as a cell holds them.
  private struct Point {
    var playerID: Int64
    var coordinate: Coordinate
  }

  /// The occupied cells of one grid row: their columns, ascending, and their players.
  private struct Row {
    var columns: [Int] = []
    var cells: [[Point]] = []

    /// The place of the first column at or after `column`.
    func position(of column: Int) -> Int {
      var low = 0
      var high = columns.count
      while low < high {
        let middle = (low + high) / 2
        if columns[middle] < column { low = middle + 1 } else { high = middle }
      }
      return low
    }

    mutating func insert(_ point: Point, column: Int) {
      let place = position(of: column)
      if place < columns.count, columns[place] == column {
        cells[place].append(point)
      } else {
        columns.insert(column, at: place)
        cells.insert([point], at: place)
      }
    }

    mutating func remove(_ playerID: Int64, column: Int) {
      let place = position(of: column)
      guard place < columns.count, columns[place] == column else { return }
      cells[place].removeAll { $0.playerID == playerID }
      if cells[place].isEmpty {
        columns.remove(at: place)
        cells.remove(at: place)
      }
    }
  }

  /// An empty index whose cells are `cellDegrees` on a side (default 0.01 degrees, about 0.7
  /// miles north to south).
  public init(cellDegrees: Double = 0.01) {
    self.grid = GeoGrid(cellDegrees: cellDegrees)
  }

  /// Players in the index.
  public var count: Int { locations.count }

  /// The last known location of `playerID`.
  public func location(of playerID: Int64) -> Coordinate? { locations[playerID] }

  /// Every indexed player's location.
  public var allLocations: [Int64: Coordinate] { locations }

  /// Records `playerID` at `coordinate`, replacing where they were.
  public mutating func update(_ playerID: Int64, to coordinate: Coordinate) {
    remove(playerID)
    locations[playerID] = coordinate
    let place = grid.place(of: coordinate)
    rows[place.row, default: Row()].insert(
      Point(playerID: playerID, coordinate: coordinate), column: place.column)
  }

  /// Forgets `playerID`.
  public mutating func remove(_ playerID: Int64) {
    guard let old = locations.removeValue(forKey: playerID) else { return }
    let place = grid.place(of: old)
    rows[place.row]?.remove(playerID, column: place.column)
    if rows[place.row]?.columns.isEmpty == true { rows[place.row] = nil }
  }

  /// The first `limit` players within `radiusMiles` of `center` (the boundary included) that
  /// come after `cursor` in nearest-first order (see `NearbyHit.precedes`) and for whom
  /// `excluded` is false, nearest first.
  ///
  /// `shownDistance` turns each distance into the one hits carry, compare with the radius (as
  /// `shownDistance(radiusMiles)`) and are ordered by; it must never be less than its input nor
  /// smaller for a larger input. By default distances are exact.
  public func nearest(
    to center: Coordinate, radiusMiles: Double, after cursor: NearbyHit? = nil, limit: Int,
    shownDistance: (Double) -> Double = { $0 },
    excluding excluded: (Int64) -> Bool = { _ in false }
  ) -> [NearbyHit] {
    precondition(limit > 0, "limit must be positive")
    guard radiusMiles >= 0, !rows.isEmpty else { return [] }
    // A point is in when its shown distance is within the shown radius; its exact distance is
    // then at most the shown radius, which is how far the search reaches.
    let shownRadius = shownDistance(radiusMiles)
    let radiusMiles = shownRadius
    let reach = grid.reach(around: center, radiusMiles: radiusMiles)
    var frontiers = Heap<Frontier>()
    for rowNumber in reach.rows {
      guard let row = rows[rowNumber] else { continue }
      let latitudeBound = reach.latitudeBoundMiles(row: rowNumber)
      guard latitudeBound <= radiusMiles else { continue }
      let start = row.position(of: reach.centerColumn) % row.columns.count
      let count = row.columns.count
      if reach.spanDegrees == nil {
        // Every column is in reach: one frontier walks the whole row.
        frontiers.insert(
          Frontier(
            boundMiles: latitudeBound, row: rowNumber, place: start, step: 1, remaining: count,
            latitudeBoundMiles: latitudeBound))
        continue
      }
      // Two frontiers: one east from the centre, one west, each over the columns nearer its
      // way round, so that every cell is visited once.
      for (place, step) in [(start, 1), ((start - 1 + count) % count, -1)] {
        let longitude = reach.longitudeBound(column: row.columns[place])
        let bound = max(latitudeBound, longitude.miles)
        if longitude.east == (step > 0), bound <= radiusMiles {
          frontiers.insert(
            Frontier(
              boundMiles: bound, row: rowNumber, place: place, step: step, remaining: count,
              latitudeBoundMiles: latitudeBound))
        }
      }
    }

    let origin = Geo.Origin(center)
    var best = Heap<NearbyHit>()
    while var frontier = frontiers.popMin() {
      if best.count == limit, shownDistance(frontier.boundMiles) > best.max!.distanceMiles {
        break
      }
      let row = rows[frontier.row]!
      for point in row.cells[frontier.place] {
        let distance = shownDistance(origin.distanceMiles(to: point.coordinate))
        guard distance <= shownRadius else { continue }
        let hit = NearbyHit(playerID: point.playerID, distanceMiles: distance)
        if let cursor, !(cursor < hit) { continue }
        if best.count == limit, !(hit < best.max!) { continue }
        guard !excluded(point.playerID) else { continue }
        if best.count == limit {
          _ = best.replaceMax(with: hit)
        } else {
          best.insert(hit)
        }
      }
      // The next cell along the frontier, while one is left and can be in reach.
      frontier.remaining -= 1
      guard frontier.remaining > 0 else { continue }
      let count = row.columns.count
      frontier.place = (frontier.place + frontier.step + count) % count
      if reach.spanDegrees != nil {
        let longitude = reach.longitudeBound(column: row.columns[frontier.place])
        frontier.boundMiles = max(frontier.latitudeBoundMiles, longitude.miles)
        guard longitude.east == (frontier.step > 0), frontier.boundMiles <= radiusMiles else {
          continue
        }
      }
      frontiers.insert(frontier)
    }
    return best.unordered.sorted()
  }

  /// A walk along one grid row, east or west from the search's centre, and how near the next
  /// cell on it can be.
  private struct Frontier: Comparable {
    var boundMiles: Double
    var row: Int
    var place: Int
    var step: Int
    var remaining: Int
    var latitudeBoundMiles: Double

    static func < (a: Frontier, b: Frontier) -> Bool { a.boundMiles < b.boundMiles }
    static func == (a: Frontier, b: Frontier) -> Bool { a.boundMiles == b.boundMiles }
  }
}
