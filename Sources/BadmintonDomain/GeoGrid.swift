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

  /// The row and column of the cell holding `coordinate`.
  func place(of coordinate: Coordinate) -> (row: Int, column: Int) {
    (row(coordinate.latitude), column(coordinate.longitude))
  }

  /// What a nearest-first search of `radiusMiles` around `center` may visit, and how near a
  /// point of each row and column can be to the centre.
  func reach(around center: Coordinate, radiusMiles: Double) -> Reach {
    // A point within angle θ of the center differs in latitude by at most θ, and in longitude by
    // at most asin(sin θ / cos φ) while the circle stays clear of the poles. A small margin
    // covers rounding in the distance formula.
    let angle = radiusMiles / Geo.earthRadiusMiles
    let angleDegrees = angle * 180 / .pi + 1e-6
    let south = center.latitude - angleDegrees
    let north = center.latitude + angleDegrees
    let cosLatitude = cos(center.latitude * .pi / 180)
    let ratio = sin(min(angle, .pi / 2)) / cosLatitude
    let allColumns = south <= -90 || north >= 90 || ratio >= 1 || angle >= .pi / 2
    return Reach(
      grid: self, center: center, rows: row(max(south, -90))...row(min(north, 90)),
      centerColumn: column(center.longitude), cosLatitude: cosLatitude,
      spanDegrees: allColumns ? nil : asin(ratio) * 180 / .pi + 1e-6)
  }

  /// The rows and columns a search can reach, with lower bounds on the distance from the centre
  /// to any point of a row or of a column.
  struct Reach {
    let grid: GeoGrid
    let center: Coordinate
    /// The rows the circle touches.
    let rows: ClosedRange<Int>
    /// The column holding the centre.
    let centerColumn: Int
    let cosLatitude: Double
    /// How far east or west of the centre, in degrees, a point within the radius can lie; nil
    /// when the circle reaches a pole or half way round the Earth, so every column is in reach.
    let spanDegrees: Double?

    /// A small angle, in degrees, that the bounds give away so that rounding in the cell and
    /// distance arithmetic never makes a bound exceed a true distance.
    private static let slackDegrees = 1e-7

    /// No point of row `row` is nearer the centre than this: a great circle between two points
    /// is at least as long as their difference in latitude.
    func latitudeBoundMiles(row: Int) -> Double {
      let south = Double(row) * grid.cellDegrees - 90
      let north = south + grid.cellDegrees
      let gap = max(south - center.latitude, center.latitude - north, 0)
      return Self.miles(degrees: gap)
    }

    /// No point of column `column` within the radius is nearer the centre than `miles`: a point
    /// whose longitude differs from the centre's by Δλ is at least asin(cos φ · sin Δλ) away,
    /// the angle from the centre to that point's meridian. `east` tells whether the column is
    /// nearer going east from the centre's column (or is that column) than going west.
    func longitudeBound(column: Int) -> (miles: Double, east: Bool) {
      let west = Double(column) * grid.cellDegrees - 180
      let east = min(west + grid.cellDegrees, 180)
      let eastward = (west - center.longitude).positiveRemainder(360)
      let westward = (center.longitude - east).positiveRemainder(360)
      // Going east from the centre round to it again measures 360 degrees when the column lies
      // beside the centre and 720 when it holds the centre.
      let holdsCentre = eastward + westward + (east - west) > 540
      let gap = holdsCentre ? 0 : min(eastward, westward)
      // Sides are told apart by column numbers, which rounding cannot blur.
      let isEast =
        (column - centerColumn + grid.columns) % grid.columns
        <= (centerColumn - column + grid.columns) % grid.columns
      if let spanDegrees, gap > spanDegrees { return (.infinity, isEast) }
      let angle = max(gap - Self.slackDegrees, 0) * .pi / 180
      return (
        asin(min(cosLatitude * sin(angle), 1)) * Geo.earthRadiusMiles * (1 - 1e-12), isEast
      )
    }

    private static func miles(degrees: Double) -> Double {
      max(degrees - slackDegrees, 0) * .pi / 180 * Geo.earthRadiusMiles * (1 - 1e-12)
    }
  }

  /// The cells a circle of `radiusMiles` around `center` can touch, each once.
  func cells(around center: Coordinate, radiusMiles: Double) -> [Int] {
    let reach = reach(around: center, radiusMiles: radiusMiles)
    var result: [Int] = []
    guard let spanDegrees = reach.spanDegrees else {
      for r in reach.rows {
        for c in 0..<columns { result.append(r * columns + c) }
      }
      return result
    }
    // The longitude interval, split in two where it crosses the date line.
    let west = center.longitude - spanDegrees
    let east = center.longitude + spanDegrees
    var intervals: [(Double, Double)] = [(max(west, -180), min(east, 180))]
    if west < -180 { intervals.append((west + 360, 180)) }
    if east > 180 { intervals.append((-180, east - 360)) }
    // Two intervals that meet at the date line can share a column; one interval cannot.
    var seen = Set<Int>()
    for r in reach.rows {
      for (from, to) in intervals {
        for c in column(from)...max(column(from), column(to)) {
          let cell = r * columns + c
          if intervals.count == 1 || seen.insert(cell).inserted { result.append(cell) }
        }
      }
    }
    return result
  }
}

extension Double {
  /// The remainder of dividing by `divisor`, in `0..<divisor`.
  fileprivate func positiveRemainder(_ divisor: Double) -> Double {
    let remainder = truncatingRemainder(dividingBy: divisor)
    return remainder < 0 ? remainder + divisor : remainder
  }
}
