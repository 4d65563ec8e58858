#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// What other players may learn of a player's location, and how fast a player's own location may
/// move.
///
/// Every location is shown to others only as the fixed cell of a grid that holds it: rows
/// `cellDegrees` of latitude tall (about 0.69 miles, 1.11 km), each row cut into columns about as
/// wide on the ground. A distance shown to another player is the great-circle distance between
/// the centres of the two players' cells, rounded up to a whole number of `bandMiles`; searches
/// compare radii with it and order by it. Every answer is therefore a function of the cells
/// alone: moving a player anywhere inside their cell changes nothing anyone sees, so no number
/// of queries, from any number of places, narrows a location below its whole cell.
public enum LocationPrivacy {
  /// The height of a cell in degrees of latitude.
  public static let cellDegrees = 0.01
  /// Shown distances are whole multiples of this many miles, and never less than one band.
  public static let bandMiles = 0.5
  /// No point is further than this from its cell's centre (cells near the poles are the widest).
  public static let maximumSnapMiles = 1.0
  /// The fastest a player's own location may move between two updates, in miles per hour (an
  /// airliner's ground speed).
  public static let maximumSpeedMph = 600.0
  /// A move this short is always allowed, however soon it follows the last one (GPS jitter).
  public static let freeMoveMiles = 0.25

  private static let rows = Int((180 / cellDegrees).rounded())

  /// One cell of the grid: where it lies and its centre, the only position others are shown.
  public struct Cell: Hashable, Sendable {
    /// The row, counted from the south pole.
    public var row: Int
    /// The column within the row, counted east from 180° W.
    public var column: Int
    /// The southern edge in degrees.
    public var south: Double
    /// The northern edge in degrees.
    public var north: Double
    /// The western edge in degrees.
    public var west: Double
    /// The eastern edge in degrees.
    public var east: Double

    /// The centre of the cell.
    public var centre: Coordinate {
      Coordinate(latitude: (south + north) / 2, longitude: (west + east) / 2)
    }
  }

  /// The number of columns in each row: as many as keep a column about `cellDegrees` of latitude
  /// wide on the ground at the row's middle. Worked out once, so that finding a cell takes no
  /// cosine (searches find the shown cell of every request they consider).
  private static let columnCounts: [Int32] = (0..<rows).map { row in
    let middle = (Double(row) + 0.5) * cellDegrees - 90
    let count = (360 * cos(middle * .pi / 180) / cellDegrees).rounded(.up)
    return Int32(max(1, Int(count)))
  }

  /// The number of columns in `row`.
  private static func columns(inRow row: Int) -> Int { Int(columnCounts[row]) }

  /// The cell holding `coordinate` (a valid coordinate; 180° E shares the column of 180° W).
  public static func cell(of coordinate: Coordinate) -> Cell {
    let (row, column) = place(of: coordinate)
    return cell(row: row, column: column)
  }

  /// The row and column of the cell holding `coordinate`: a row is below 18,000 and a column
  /// below 36,000, so each fits in 16 bits.
  public static func place(of coordinate: Coordinate) -> (row: Int, column: Int) {
    let row = min(max(Int(((coordinate.latitude + 90) / cellDegrees).rounded(.down)), 0), rows - 1)
    let count = columns(inRow: row)
    let width = 360 / Double(count)
    let column =
      min(max(Int(((coordinate.longitude + 180) / width).rounded(.down)), 0), count) % count
    return (row, column)
  }

  /// The cell in `row` and `column` (as `place(of:)` gives them).
  public static func cell(row: Int, column: Int) -> Cell {
    let width = 360 / Double(columns(inRow: row))
    let south = Double(row) * cellDegrees - 90
    let west = Double(column) * width - 180
    return Cell(
      row: row, column: column, south: south, north: south + cellDegrees, west: west,
      east: west + width)
  }

  /// The position others are shown for `coordinate`: its cell's centre.
  public static func shownPosition(of coordinate: Coordinate) -> Coordinate {
    cell(of: coordinate).centre
  }

  /// `miles` rounded up to a whole number of bands, and at least one band. Never less than
  /// `miles`, and never smaller for a larger `miles`.
  public static func banded(_ miles: Double) -> Double {
    max(1, (miles / bandMiles).rounded(.up)) * bandMiles
  }

  /// The distance between `a` and `b` as other players see it: between the two cells' centres,
  /// in whole bands. The same both ways round.
  public static func shownDistanceMiles(_ a: Coordinate, _ b: Coordinate) -> Double {
    distanceMiles(betweenShown: shownPosition(of: a), shownPosition(of: b))
  }

  /// `shownDistanceMiles` of two locations given by their shown positions (`shownPosition`), for
  /// callers that keep those instead of computing them again for every pair.
  static func distanceMiles(betweenShown a: Coordinate, _ b: Coordinate) -> Double {
    let (first, second) = ordered(a, b)
    return banded(Geo.distanceMiles(first, second))
  }

  /// The two points in a fixed order, so a distance is the same bits whichever way it is asked.
  private static func ordered(_ a: Coordinate, _ b: Coordinate) -> (Coordinate, Coordinate) {
    (a.latitude, a.longitude) <= (b.latitude, b.longitude) ? (a, b) : (b, a)
  }

  /// Whether a player last placed at `from` at `fromUnixMs` may be placed at `to` at `toUnixMs`:
  /// a move of at most `freeMoveMiles`, or one no faster than `maximumSpeedMph`.
  public static func allowsMove(
    from: Coordinate, atUnixMs fromUnixMs: Int64, to: Coordinate, atUnixMs toUnixMs: Int64
  ) -> Bool {
    let miles = Geo.distanceMiles(from, to)
    if miles <= freeMoveMiles { return true }
    let hours = Double(max(0, toUnixMs - fromUnixMs)) / 3_600_000
    return miles <= maximumSpeedMph * hours
  }

  /// The refusal of a move faster than `allowsMove` allows.
  public static let moveTooFast = DomainError(
    .failedPrecondition, "LOCATION_MOVE_TOO_FAST",
    en: "Your location cannot move that far so soon; try again later.",
    zhCN: "位置变化过快，请稍后再试。")
}
