#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// A point on the Earth in degrees.
public struct Coordinate: Hashable, Sendable {
  /// Degrees north, -90 to 90.
  public var latitude: Double
  /// Degrees east, -180 to 180.
  public var longitude: Double

  /// A point with the given degrees; see `validated` for checked input.
  public init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }

  /// The point if both numbers are finite and in range, else an error naming each bad field.
  public static func validated(latitude: Double, longitude: Double) throws(DomainError)
    -> Coordinate
  {
    var violations: [DomainError.Violation] = []
    if !latitude.isFinite || !(-90...90).contains(latitude) {
      violations.append(
        .init(
          field: "latitude", reason: "LATITUDE_OUT_OF_RANGE",
          en: "The latitude must be a number from -90 to 90.",
          zhCN: "纬度须为 -90 到 90 之间的数。"))
    }
    if !longitude.isFinite || !(-180...180).contains(longitude) {
      violations.append(
        .init(
          field: "longitude", reason: "LONGITUDE_OUT_OF_RANGE",
          en: "The longitude must be a number from -180 to 180.",
          zhCN: "经度须为 -180 到 180 之间的数。"))
    }
    guard violations.isEmpty else {
      throw DomainError(
        .invalidArgument, "LOCATION_INVALID", en: "The location is not a valid coordinate.",
        zhCN: "位置不是有效的坐标。", violations: violations)
    }
    return Coordinate(latitude: latitude, longitude: longitude)
  }
}

/// Distances on the Earth, taken as a sphere.
public enum Geo {
  /// The Earth's mean radius in miles.
  public static let earthRadiusMiles = 3958.8
  /// The default and largest search radius in miles (80.47 km).
  public static let maximumRadiusMiles = 50.0

  /// The great-circle distance in miles between `a` and `b` by the haversine formula.
  public static func distanceMiles(_ a: Coordinate, _ b: Coordinate) -> Double {
    Origin(a).distanceMiles(to: b)
  }

  /// A point that many distances are measured from, with its cosine worked out once; every
  /// distance is exactly the one `distanceMiles(_:_:)` gives.
  struct Origin {
    let coordinate: Coordinate
    private let cosLatitude: Double

    init(_ coordinate: Coordinate) {
      self.coordinate = coordinate
      self.cosLatitude = cos(coordinate.latitude * .pi / 180)
    }

    /// The great-circle distance in miles to `b`.
    func distanceMiles(to b: Coordinate) -> Double {
      let a = coordinate
      let lat2 = b.latitude * .pi / 180
      let deltaLat = (b.latitude - a.latitude) * .pi / 180
      let deltaLon = (b.longitude - a.longitude) * .pi / 180
      let h =
        sin(deltaLat / 2) * sin(deltaLat / 2)
        + cosLatitude * cos(lat2) * sin(deltaLon / 2) * sin(deltaLon / 2)
      // Rounding can push h a hair past 1 for antipodes; the formula needs it in [0, 1].
      let clamped = min(max(h, 0), 1)
      return earthRadiusMiles * 2 * atan2(clamped.squareRoot(), (1 - clamped).squareRoot())
    }
  }
}
