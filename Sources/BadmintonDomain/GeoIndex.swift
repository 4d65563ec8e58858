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
  public var cellDegrees: Double { grid.cellDegrees }
  private let grid: GeoGrid
  private var locations: [Int64: Coordinate] = [:]
  private var cells: [Int: [Int64]] = [:]

  /// An empty index whose cells are `cellDegrees` on a side (default 0.25 degrees, about 17 miles
  /// north to south).
  public init(cellDegrees: Double = 0.25) {
    self.grid = GeoGrid(cellDegrees: cellDegrees)
  }

  /// Players in the index.
  public var count: Int { locations.count }

  /// The last known location of `playerID`.
  public func location(of playerID: Int64) -> Coordinate? { locations[playerID] }

  /// Records `playerID` at `coordinate`, replacing where they were.
  public mutating func update(_ playerID: Int64, to coordinate: Coordinate) {
    remove(playerID)
    locations[playerID] = coordinate
    cells[grid.cell(of: coordinate), default: []].append(playerID)
  }

  /// Forgets `playerID`.
  public mutating func remove(_ playerID: Int64) {
    guard let old = locations.removeValue(forKey: playerID) else { return }
    let key = grid.cell(of: old)
    cells[key]?.removeAll { $0 == playerID }
    if cells[key]?.isEmpty == true { cells[key] = nil }
  }

  /// Every player within `radiusMiles` of `center` (the boundary included) for whom `excluded`
  /// is false, nearest first.
  public func nearby(
    _ center: Coordinate, radiusMiles: Double, excluding excluded: (Int64) -> Bool = { _ in false }
  ) -> [NearbyHit] {
    var hits: [NearbyHit] = []
    for key in grid.cells(around: center, radiusMiles: radiusMiles) {
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
}
