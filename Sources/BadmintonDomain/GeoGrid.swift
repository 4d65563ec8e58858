#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// A grid of latitude-longitude cells, numbered row by row, that tells which cells a circle can
/// touch; the indexes keep their entries per cell and search only those cells.
struct GeoGrid: Sendable {
  /// A cell's edge in degrees.
  let cellDegrees: Double
  /// Cells in one row, around the whole Earth.
  let columns: Int

  /// A grid whose cells are `cellDegrees` on a side.
  init(cellDegrees: Double) {
    precondition(cellDegrees > 0 && cellDegrees <= 90)
    self.cellDegrees = cellDegrees
    self.columns = Int((360 / cellDegrees).rounded(.up))
  }

  private func row(_ latitude: Double) -> Int { Int((latitude + 90) / cellDegrees) }

  /// The column of a longitude in [-180, 180]; 180 shares the last column.
  private func column(_ longitude: Double) -> Int {
    min(Int(((longitude + 180) / cellDegrees).rounded(.down)), columns - 1)
  }

  /// The cell holding `coordinate`.
  func cell(of coordinate: Coordinate) -> Int {
    row(coordinate.latitude) * columns + column(coordinate.longitude)
  }

  /// The cells a circle of `radiusMiles` around `center` can touch, each once.
  func cells(around center: Coordinate, radiusMiles: Double) -> [Int] {
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
    var result: [Int] = []
    if allColumns {
      for r in firstRow...lastRow {
        for c in 0..<columns { result.append(r * columns + c) }
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
    var seen = Set<Int>()
    for r in firstRow...lastRow {
      for (from, to) in intervals {
        for c in column(from)...max(column(from), column(to)) {
          let cell = r * columns + c
          if seen.insert(cell).inserted { result.append(cell) }
        }
      }
    }
    return result
  }
}
