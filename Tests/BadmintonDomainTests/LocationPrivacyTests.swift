import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("What other players learn of a location")
struct LocationPrivacyTests {
  /// `longitude` moved into [-180, 180) the way the earth wraps, so that points generated around
  /// a centre near the antimeridian stay valid coordinates.
  static func wrapped(_ longitude: Double) -> Double {
    longitude >= 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude
  }

  private static let coordinates = Generator { rng in
    // A third of the points within a degree of a pole or the date line, where cells are odd.
    switch Int.random(in: 0..<3, using: &rng) {
    case 0:
      Coordinate(
        latitude: Double.random(in: 89...90, using: &rng) * (Bool.random(using: &rng) ? 1 : -1),
        longitude: Double.random(in: -180...180, using: &rng))
    case 1:
      Coordinate(
        latitude: Double.random(in: -80...80, using: &rng),
        longitude: Double.random(in: 179...180, using: &rng) * (Bool.random(using: &rng) ? 1 : -1))
    default:
      Coordinate(
        latitude: Double.random(in: -90...90, using: &rng),
        longitude: Double.random(in: -180...180, using: &rng))
    }
  }

  /// A point drawn anywhere inside `cell`, or nil when rounding put it in a neighbour.
  static func point<R: RandomNumberGenerator>(
    in cell: LocationPrivacy.Cell, using rng: inout R
  ) -> Coordinate? {
    let point = Coordinate(
      latitude: Double.random(in: cell.south..<cell.north, using: &rng),
      longitude: Double.random(in: cell.west..<cell.east, using: &rng))
    return LocationPrivacy.cell(of: point) == cell ? point : nil
  }

  @Test("a point lies in its cell, near its centre, and the centre's cell is the same")
  func cells_holdTheirPoints() async {
    await propertyCheck(count: 3000, input: Self.coordinates) { point in
      let cell = LocationPrivacy.cell(of: point)
      #expect(cell.south <= point.latitude && point.latitude <= cell.north, "\(point)")
      #expect(cell.west <= point.longitude && point.longitude <= cell.east, "\(point)")
      #expect(
        Geo.distanceMiles(point, cell.centre) <= LocationPrivacy.maximumSnapMiles, "\(point)")
      #expect(LocationPrivacy.cell(of: cell.centre) == cell)
      // The row and column alone give the same cell, and each fits in 16 bits.
      let place = LocationPrivacy.place(of: point)
      #expect(place.row == cell.row && place.column == cell.column)
      #expect(LocationPrivacy.cell(row: place.row, column: place.column) == cell)
      #expect(UInt16(exactly: place.row) != nil && UInt16(exactly: place.column) != nil)
      // A row holds as many columns as keep one about a cell tall on the ground at its middle.
      let middle = (Double(cell.row) + 0.5) * LocationPrivacy.cellDegrees - 90
      let columns = max(
        1, Int((360 * cos(middle * .pi / 180) / LocationPrivacy.cellDegrees).rounded(.up)))
      #expect(Int((360 / (cell.east - cell.west)).rounded()) == columns, "\(point)")
      // Away from the poles a cell is at least 0.6 miles (about 1 km) across each way.
      if abs(point.latitude) <= 85 {
        let middle = (cell.south + cell.north) / 2
        let across = Geo.distanceMiles(
          Coordinate(latitude: middle, longitude: cell.west),
          Coordinate(latitude: middle, longitude: cell.east))
        #expect(across >= 0.6 && (cell.north - cell.south) * 69.09 >= 0.6, "\(point)")
      }
    }
    let east = LocationPrivacy.cell(of: Coordinate(latitude: 10, longitude: 180))
    #expect(east == LocationPrivacy.cell(of: Coordinate(latitude: 10, longitude: -180)))
  }

  @Test("shown distances are whole bands, the same both ways, never below the true one by much")
  func shownDistance_isCoarse() async {
    await propertyCheck(count: 2000, input: Self.coordinates, Self.coordinates) { a, b in
      let shown = LocationPrivacy.shownDistanceMiles(a, b)
      #expect(shown == LocationPrivacy.shownDistanceMiles(b, a))
      let bands = shown / LocationPrivacy.bandMiles
      #expect(bands == bands.rounded() && bands >= 1)
      let exact = Geo.distanceMiles(a, b)
      #expect(shown >= exact - 2 * LocationPrivacy.maximumSnapMiles)
      #expect(shown <= exact + 2 * LocationPrivacy.maximumSnapMiles + LocationPrivacy.bandMiles)
    }
  }

  /// Everything a nearby search shows about a set of players.
  private static func answers(
    _ index: GeoIndex, from centre: Coordinate, radius: Double, pageSizes: [Int]
  ) -> [NearbyHit] {
    var found: [NearbyHit] = []
    for pageNumber in 0... {
      let limit = pageSizes[pageNumber % pageSizes.count]
      let page = index.nearest(
        to: LocationPrivacy.shownPosition(of: centre), radiusMiles: radius, after: found.last,
        limit: limit, shownDistance: LocationPrivacy.banded)
      found += page
      if page.count < limit { break }
    }
    return found
  }

  @Test("a banded nearby search returns what a linear scan of shown distances returns")
  func bandedSearch_matchesLinearScan() async {
    let scenes = Generator { rng in
      let centre = Coordinate(
        latitude: Double.random(in: -60...60, using: &rng),
        longitude: Double.random(in: -180...180, using: &rng))
      let players = (0..<Int.random(in: 0...120, using: &rng)).map { id in
        (
          Int64(id),
          Coordinate(
            latitude: centre.latitude + Double.random(in: -0.8...0.8, using: &rng),
            longitude: Self.wrapped(centre.longitude + Double.random(in: -0.8...0.8, using: &rng)))
        )
      }
      return (
        centre, players, Double.random(in: 0...50, using: &rng),
        (0..<4).map { _ in Int.random(in: 1...20, using: &rng) }
      )
    }
    await propertyCheck(count: 300, input: scenes) { scene in
      let (centre, players, radius, pageSizes) = scene
      var index = GeoIndex()
      for (id, point) in players { index.update(id, to: LocationPrivacy.shownPosition(of: point)) }
      let origin = LocationPrivacy.shownPosition(of: centre)
      let scan = players.compactMap { id, point -> NearbyHit? in
        let shown = LocationPrivacy.banded(
          Geo.distanceMiles(origin, LocationPrivacy.shownPosition(of: point)))
        return shown <= LocationPrivacy.banded(radius)
          ? NearbyHit(playerID: id, distanceMiles: shown) : nil
      }.sorted(by: NearbyHit.precedes)
      #expect(Self.answers(index, from: centre, radius: radius, pageSizes: pageSizes) == scan)
    }
  }

  @Test("match searches see requests moved within their cells the same: fits, order, distances")
  func matchSearch_dependsOnCellsAlone() async {
    let scenes = Generator { rng in
      let centre = Coordinate(
        latitude: Double.random(in: -70...70, using: &rng),
        longitude: Double.random(in: -180...180, using: &rng))
      var requests: [(MatchRequest, MatchRequest)] = []
      for id in 1...Int64.random(in: 1...40, using: &rng) {
        let point = Coordinate(
          latitude: centre.latitude + Double.random(in: -0.4...0.4, using: &rng),
          longitude: Self.wrapped(centre.longitude + Double.random(in: -0.4...0.4, using: &rng)))
        let moved = Self.point(in: LocationPrivacy.cell(of: point), using: &rng) ?? point
        let request = MatchRequest(
          id: id, playerID: id, mode: .singles,
          slot: TimeSlot(startUnixMs: 0, endUnixMs: 7_200_000), location: point,
          radiusMiles: [1, 2.5, 10, 50].randomElement(using: &rng)!, skillTolerance: 8,
          displayLevel: Int.random(in: 1...9, using: &rng), postedAtUnixMs: id % 3)
        var other = request
        other.location = moved
        requests.append((request, other))
      }
      let query = MatchRequest(
        id: 1000, playerID: 1000, mode: .singles,
        slot: TimeSlot(startUnixMs: 0, endUnixMs: 7_200_000), location: centre,
        radiusMiles: Double.random(in: 0.1...50, using: &rng), skillTolerance: 8,
        displayLevel: 5, postedAtUnixMs: 0)
      return (requests, query, Int.random(in: 1...6, using: &rng))
    }
    await propertyCheck(count: 300, input: scenes) { scene in
      let (requests, query, pageSize) = scene
      var here = MatchIndex()
      var there = MatchIndex()
      for (request, moved) in requests {
        here.insert(request)
        there.insert(moved)
      }
      var cursor: MatchCursor?
      repeat {
        let page = here.search(for: query, limit: pageSize, after: cursor)
        #expect(page == there.search(for: query, limit: pageSize, after: cursor))
        cursor = page.nextCursor
      } while cursor != nil
      #expect(here.count(for: query) == there.count(for: query))
    }
  }
}
