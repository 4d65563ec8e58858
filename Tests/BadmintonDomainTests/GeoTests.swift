import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("Distances and the nearby index (properties 1 and 27)")
struct GeoTests {
  /// Oracle: Vincenty's formula on the same sphere, numerically stable at every distance.
  private func vincentyMiles(_ a: Coordinate, _ b: Coordinate) -> Double {
    let lat1 = a.latitude * .pi / 180
    let lat2 = b.latitude * .pi / 180
    let deltaLon = (b.longitude - a.longitude) * .pi / 180
    let x = cos(lat2) * sin(deltaLon)
    let y = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(deltaLon)
    let z = sin(lat1) * sin(lat2) + cos(lat1) * cos(lat2) * cos(deltaLon)
    return 3958.8 * atan2((x * x + y * y).squareRoot(), z)
  }

  private static let coordinates = Generator { rng in
    Coordinate(
      latitude: Double.random(in: -90...90, using: &rng),
      longitude: Double.random(in: -180...180, using: &rng))
  }

  private func expectClose(_ a: Coordinate, _ b: Coordinate) {
    let haversine = Geo.distanceMiles(a, b)
    let vincenty = vincentyMiles(a, b)
    #expect(abs(haversine - vincenty) <= max(vincenty * 0.001, 1e-9), "\(a) \(b)")
  }

  @Test("property 27: haversine is within 0.1% of the great-circle distance")
  func haversine_matchesVincenty() async {
    await propertyCheck(count: 2000, input: Self.coordinates, Self.coordinates) { a, b in
      expectClose(a, b)
    }
    // Near pairs, where relative error is hardest.
    await propertyCheck(
      count: 1000, input: Self.coordinates, Gen.double(in: -0.01...0.01),
      Gen.double(in: -0.01...0.01)
    ) {
      a, dLat, dLon in
      let b = Coordinate(
        latitude: min(max(a.latitude + dLat, -90), 90), longitude: a.longitude + dLon)
      expectClose(a, b)
    }
  }

  @Test("antipodes, poles, the date line and equal points")
  func haversine_edgeCases() {
    let cases: [(Coordinate, Coordinate)] = [
      (Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 180)),
      (Coordinate(latitude: 39.9, longitude: 116.4), Coordinate(latitude: -39.9, longitude: -63.6)),
      (Coordinate(latitude: 90, longitude: 0), Coordinate(latitude: -90, longitude: 0)),
      (Coordinate(latitude: 90, longitude: 10), Coordinate(latitude: 90, longitude: -170)),
      (Coordinate(latitude: 10, longitude: 179.9), Coordinate(latitude: 10, longitude: -179.9)),
      (Coordinate(latitude: 51.5, longitude: -0.1), Coordinate(latitude: 51.5, longitude: -0.1)),
    ]
    for (a, b) in cases { expectClose(a, b) }
    #expect(abs(Geo.distanceMiles(cases[0].0, cases[0].1) - .pi * 3958.8) < 1e-6)
    #expect(Geo.distanceMiles(cases[5].0, cases[5].1) == 0)
    #expect(Geo.distanceMiles(cases[4].0, cases[4].1) < 14)
  }

  /// Players clustered around a few centres, some near the poles and the date line, a third of
  /// them on cell edges (which also puts several at the same distance).
  private static let scenes = Generator { rng in
    let centres = [
      Coordinate(latitude: 31.23, longitude: 121.47), Coordinate(latitude: 89.9, longitude: 0),
      Coordinate(latitude: -89.95, longitude: 45), Coordinate(latitude: 0, longitude: 179.95),
      Coordinate(latitude: 60, longitude: -179.9), Coordinate(latitude: 40.7, longitude: -74),
    ]
    let count = Int.random(in: 0...300, using: &rng)
    var players: [(Int64, Coordinate)] = []
    for id in 0..<count {
      let centre = centres.randomElement(using: &rng)!
      let spread = [0.01, 0.3, 1.0, 3.0].randomElement(using: &rng)!
      var longitude = centre.longitude + Double.random(in: -spread...spread, using: &rng) * 2
      if longitude > 180 { longitude -= 360 }
      if longitude < -180 { longitude += 360 }
      var latitude = min(
        max(centre.latitude + Double.random(in: -spread...spread, using: &rng), -90), 90)
      if Int.random(in: 0..<3, using: &rng) == 0 {
        latitude = (latitude * 100).rounded() / 100
        longitude = (longitude * 100).rounded() / 100
      }
      players.append((Int64(id), Coordinate(latitude: latitude, longitude: longitude)))
    }
    var query = centres.randomElement(using: &rng)!
    if Bool.random(using: &rng) {
      query.latitude = min(
        max(query.latitude + Double.random(in: -0.2...0.2, using: &rng), -90), 90)
      query.longitude += Double.random(in: -0.2...0.2, using: &rng)
      if query.longitude > 180 { query.longitude -= 360 }
      if query.longitude < -180 { query.longitude += 360 }
    }
    let radius = [0.5, 5, 25, 50, Double.random(in: 0...50, using: &rng)].randomElement(
      using: &rng)!
    let pageSizes = (0..<8).map { _ in Int.random(in: 1...30, using: &rng) }
    return (
      players, query, radius, Double([0.01, 0.05, 0.25, 1, 7].randomElement(using: &rng)!),
      pageSizes
    )
  }

  @Test("property 1: the index returns what a linear scan returns, in the same order")
  func index_matchesLinearScan() async {
    await propertyCheck(count: 1000, input: Self.scenes) { scene in
      let (players, query, radius, cellDegrees, pageSizes) = scene
      var index = GeoIndex(cellDegrees: cellDegrees)
      // The oracle keeps its own record of where everyone is.
      var current: [Int64: Coordinate] = [:]
      for (id, coordinate) in players {
        index.update(id, to: coordinate)
        current[id] = coordinate
      }
      // Move a few players and drop a few, as updates do.
      for (id, coordinate) in players.prefix(10) {
        let moved = Coordinate(
          latitude: coordinate.latitude * 0.999, longitude: coordinate.longitude)
        index.update(id, to: moved)
        current[id] = moved
      }
      for (id, _) in players.suffix(5) {
        index.remove(id)
        current[id] = nil
      }
      for id in 0..<Int64(players.count) { #expect(index.location(of: id) == current[id]) }
      let excluded: (Int64) -> Bool = { $0 % 7 == 3 }

      let scan = current.compactMap { id, coordinate -> NearbyHit? in
        let distance = Geo.distanceMiles(query, coordinate)
        return distance <= radius && !excluded(id)
          ? NearbyHit(playerID: id, distanceMiles: distance) : nil
      }.sorted(by: NearbyHit.precedes)
      // Page through the results as NearbyPlayers does, each page starting after the last hit
      // of the one before, with page sizes drawn for the scene.
      var found: [NearbyHit] = []
      for pageNumber in 0... {
        let limit = pageSizes[pageNumber % pageSizes.count]
        let page = index.nearest(
          to: query, radiusMiles: radius, after: found.last, limit: limit, excluding: excluded)
        found += page
        if page.count < limit { break }
      }
      #expect(found == scan)
      #expect(found.allSatisfy { $0.distanceMiles <= radius })
    }
  }
}
