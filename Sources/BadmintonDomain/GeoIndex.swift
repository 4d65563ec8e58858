#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// One entry of a nearby search: a player and how far they are.
public struct NearbyHit: Hashable, Sendable {
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
}

/// Players' last known locations in a grid of latitude-longitude cells, so that a search looks
/// only at the cells a circle can touch instead of at every player.
public struct GeoIndex: Sendable {
  /// A cell's edge in degrees.
  public let cellDegrees: Double
  private let columns: Int
  private var locations: [Int64: Coordinate] = [:]
  private var cells: [Cell: [Int64]] = [:]

  private struct Cell: Hashable {
    var row: Int
    var column: Int
  }

  /// An empty index whose cells are `cellDegrees` on a side (default 0.25 degrees, about 17 miles
  /// north to south).
  public init(cellDegrees: Double = 0.25) {
    precondition(cellDegrees > 0 && cellDegrees <= 90)
    self.cellDegrees = cellDegrees
    self.columns = Int((360 / cellDegrees).rounded(.up))
  }

  /// Players in the index.
  public var count: Int { locations.count }

  /// The last known location of `playerID`.
  public func location(of playerID: Int64) -> Coordinate? { locations[playerID] }

  private func row(_ latitude: Double) -> Int { Int((latitude + 90) / cellDegrees) }

  /// The column of a longitude in [-180, 180]; 180 shares the last column.
  private func column(_ longitude: Double) -> Int {
    min(Int(((longitude + 180) / cellDegrees).rounded(.down)), columns - 1)
  }

  private func cell(of coordinate: Coordinate) -> Cell {
    Cell(row: row(coordinate.latitude), column: column(coordinate.longitude))
  }

  /// Records `playerID` at `coordinate`, replacing where they were.
  public mutating func update(_ playerID: Int64, to coordinate: Coordinate) {
    remove(playerID)
    locations[playerID] = coordinate
    cells[cell(of: coordinate), default: []].append(playerID)
  }

  /// Forgets `playerID`.
  public mutating func remove(_ playerID: Int64) {
    guard let old = locations.removeValue(forKey: playerID) else { return }
    let key = cell(of: old)
    cells[key]?.removeAll { $0 == playerID }
    if cells[key]?.isEmpty == true { cells[key] = nil }
  }

  /// Every player within `radiusMiles` of `center` (the boundary included) for whom `excluded`
  /// is false, nearest first.
  public func nearby(
    _ center: Coordinate, radiusMiles: Double, excluding excluded: (Int64) -> Bool = { _ in false }
  ) -> [NearbyHit] {
    var hits: [NearbyHit] = []
    for key in candidateCells(center, radiusMiles: radiusMiles) {
      for playerID in cells[key] ?? [] where !excluded(playerID) {
        let distance = Geo.distanceMiles(center, locations[playerID]!)
        if distance <= radiusMiles {
          hits.append(NearbyHit(playerID: playerID, distanceMiles: distance))
        }
      }
    }
    hits.sort(by: NearbyHit.precedes)
    return hits
  }

  /// The cells a circle of `radiusMiles` around `center` can touch, each once.
  private func candidateCells(_ center: Coordinate, radiusMiles: Double) -> [Cell] {
    // A point within angle θ of the center differs in latitude by at most θ, and in longitude by
    // at most asin(sin θ / cos φ) while the circle stays clear of the poles. A small margin
    // covers rounding in the distance formula.
    let angle = radiusMiles / Geo.earthRadiusMiles
    let angleDegrees = angle * 180 / .pi + 1e-6
    let south = center.latitude - angleDegrees
    let north = center.latitude + angleDegrees
    let firstRow = row(max(south, -90))
    let lastRow = row(min(north, 90))
    let cosLatitude = cos(center.latitude * .pi / 180)
    let ratio = sin(min(angle, .pi / 2)) / cosLatitude
    let allColumns = south <= -90 || north >= 90 || ratio >= 1 || angle >= .pi / 2
    var result: [Cell] = []
    if allColumns {
      for r in firstRow...lastRow {
        for c in 0..<columns { result.append(Cell(row: r, column: c)) }
      }
      return result
    }
    let spanDegrees = asin(ratio) * 180 / .pi + 1e-6
    // The longitude interval, split in two where it crosses the date line.
    let west = center.longitude - spanDegrees
    let east = center.longitude + spanDegrees
    var intervals: [(Double, Double)] = [(max(west, -180), min(east, 180))]
    if west < -180 { intervals.append((west + 360, 180)) }
    if east > 180 { intervals.append((-180, east - 360)) }
    var seen = Set<Cell>()
    for r in firstRow...lastRow {
      for (from, to) in intervals {
        for c in column(from)...max(column(from), column(to)) {
          let cell = Cell(row: r, column: c)
          if seen.insert(cell).inserted { result.append(cell) }
        }
      }
    }
    return result
  }
}
