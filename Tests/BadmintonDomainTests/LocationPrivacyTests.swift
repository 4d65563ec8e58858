import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("What other players learn of a location")
struct LocationPrivacyTests {
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
            longitude: centre.longitude + Double.random(in: -0.8...0.8, using: &rng))
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

  @Test("moving players within their cells changes no answer: distance, radius and order")
  func answers_dependOnCellsAlone() async {
    let scenes = Generator { rng in
      let centre = Coordinate(
        latitude: Double.random(in: -70...70, using: &rng),
        longitude: Double.random(in: -180...180, using: &rng))
      var pairs: [(Coordinate, Coordinate)] = []
      for _ in 0..<Int.random(in: 1...40, using: &rng) {
        let spread = [0.02, 0.2, 0.8].randomElement(using: &rng)!
        let point = Coordinate(
          latitude: centre.latitude + Double.random(in: -spread...spread, using: &rng),
          longitude: centre.longitude + Double.random(in: -spread...spread, using: &rng))
        let cell = LocationPrivacy.cell(of: point)
        pairs.append((point, Self.point(in: cell, using: &rng) ?? point))
      }
      let queries = (0..<10).map { _ in
        (
          Coordinate(
            latitude: centre.latitude + Double.random(in: -0.3...0.3, using: &rng),
            longitude: centre.longitude + Double.random(in: -0.3...0.3, using: &rng)),
          [0.1, 0.7, 1.3, 5, Double.random(in: 0...50, using: &rng)].randomElement(using: &rng)!,
          (0..<3).map { _ in Int.random(in: 1...7, using: &rng) }
        )
      }
      return (pairs, queries)
    }
    await propertyCheck(count: 200, input: scenes) { scene in
      let (pairs, queries) = scene
      var here = GeoIndex()
      var there = GeoIndex()
      for (id, pair) in pairs.enumerated() {
        here.update(Int64(id), to: LocationPrivacy.shownPosition(of: pair.0))
        there.update(Int64(id), to: LocationPrivacy.shownPosition(of: pair.1))
      }
      for (centre, radius, pageSizes) in queries {
        #expect(
          Self.answers(here, from: centre, radius: radius, pageSizes: pageSizes)
            == Self.answers(there, from: centre, radius: radius, pageSizes: pageSizes))
      }
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
          longitude: centre.longitude + Double.random(in: -0.4...0.4, using: &rng))
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

  @Test("an adversary that knows the algorithm and queries from anywhere cannot narrow a cell")
  func trilateration_fails() async {
    let scenes = Generator { rng in
      let target = Coordinate(
        latitude: Double.random(in: -70...70, using: &rng),
        longitude: Double.random(in: -179...179, using: &rng))
      // Many positions, a third of them right around the target.
      let positions = (0..<60).map { index in
        let spread = index % 3 == 0 ? 0.03 : 0.5
        return Coordinate(
          latitude: target.latitude + Double.random(in: -spread...spread, using: &rng),
          longitude: target.longitude + Double.random(in: -spread...spread, using: &rng))
      }
      return (target, positions)
    }
    await propertyCheck(count: 25, input: scenes) { scene in
      let (target, positions) = scene
      var index = GeoIndex()
      index.update(1, to: LocationPrivacy.shownPosition(of: target))
      // The answers a nearby search gives the adversary at each position.
      let answers = positions.map { position in
        Self.answers(index, from: position, radius: 50, pageSizes: [10]).first?.distanceMiles
      }
      let region = Self.consistentRegion(around: target, positions: positions, answers: answers)
      Self.expectSpansCell(region, of: target)
    }
  }

  /// A fine lattice around `target`: every 0.05 miles, 1.5 miles each way.
  static func lattice(around target: Coordinate) -> [Coordinate] {
    let milesPerDegreeLatitude = Geo.earthRadiusMiles * .pi / 180
    let milesPerDegreeLongitude = milesPerDegreeLatitude * cos(target.latitude * .pi / 180)
    return (-30...30).flatMap { north in
      (-30...30).map { east in
        Coordinate(
          latitude: target.latitude + Double(north) * 0.05 / milesPerDegreeLatitude,
          longitude: target.longitude + Double(east) * 0.05 / milesPerDegreeLongitude)
      }
    }
  }

  /// Oracle: the lattice points around `target` at which the adversary's own model of the
  /// algorithm (shown distance between cell centres, in bands, absent beyond 50 miles) gives
  /// every one of `answers`.
  static func consistentRegion(
    around target: Coordinate, positions: [Coordinate], answers: [Double?]
  ) -> [Coordinate] {
    lattice(around: target).filter { candidate in
      let shown = LocationPrivacy.shownPosition(of: candidate)
      return zip(positions, answers).allSatisfy { position, answer in
        let distance = LocationPrivacy.banded(
          Geo.distanceMiles(LocationPrivacy.shownPosition(of: position), shown))
        return answer == (distance <= 50 ? distance : nil)
      }
    }
  }

  /// Expects `region` to hold every lattice point of the target's cell, and so to reach at least
  /// 0.55 miles north to south and east to west (a cell's 0.6 miles or more, less a lattice step).
  static func expectSpansCell(
    _ region: [Coordinate], of target: Coordinate,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let cell = LocationPrivacy.cell(of: target)
    let inCell = lattice(around: target).filter { LocationPrivacy.cell(of: $0) == cell }
    let latitudes = region.map(\.latitude)
    let longitudes = region.map(\.longitude)
    guard let south = latitudes.min(), let north = latitudes.max(), let west = longitudes.min(),
      let east = longitudes.max()
    else {
      Issue.record("no location fits every answer", sourceLocation: sourceLocation)
      return
    }
    let middle = (south + north) / 2
    let northSouth = Geo.distanceMiles(
      Coordinate(latitude: south, longitude: west), Coordinate(latitude: north, longitude: west))
    let eastWest = Geo.distanceMiles(
      Coordinate(latitude: middle, longitude: west), Coordinate(latitude: middle, longitude: east))
    let found = Set(region)
    #expect(
      inCell.allSatisfy { found.contains($0) }, "\(target)", sourceLocation: sourceLocation)
    #expect(
      northSouth >= 0.55 && eastWest >= 0.55, "\(target): \(northSouth) x \(eastWest) miles",
      sourceLocation: sourceLocation)
  }
}
