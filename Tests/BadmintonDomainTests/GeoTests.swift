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

  /// Everything `search` finds, page by page, each page starting after the last hit of the one
  /// before.
  private static func paged(
    _ pageSizes: [Int], _ search: (_ after: NearbyHit?, _ limit: Int) -> [NearbyHit]
  ) -> [NearbyHit] {
    var found: [NearbyHit] = []
    for pageNumber in 0... {
      let limit = pageSizes[pageNumber % pageSizes.count]
      let page = search(found.last, limit)
      found += page
      if page.count < limit { break }
    }
    return found
  }

  /// Players often at the very same position (as shown positions are, many to a cell, so that
  /// a position's players fill several chunks), then changes: moves, removals and players new
  /// to the index, in random order of ids. Searches from a few places at a few radii, exact or
  /// in half-mile bands, with random page sizes.
  private static let histories = Generator { rng in
    let centre = Coordinate(
      latitude: Double.random(in: -70...70, using: &rng),
      longitude: Double.random(in: -180...180, using: &rng))
    let spread = [0.02, 0.3, 1.0].randomElement(using: &rng)!
    func near(_ rng: inout any SeededRandomNumberGenerator) -> Coordinate {
      var longitude = centre.longitude + Double.random(in: -spread...spread, using: &rng)
      if longitude >= 180 { longitude -= 360 }
      if longitude < -180 { longitude += 360 }
      return Coordinate(
        latitude: centre.latitude + Double.random(in: -spread...spread, using: &rng),
        longitude: longitude)
    }
    let shared = (0..<Int.random(in: 1...6, using: &rng)).map { _ in near(&rng) }
    let fresh = Double.random(in: 0...0.5, using: &rng)
    func position(_ rng: inout any SeededRandomNumberGenerator) -> Coordinate {
      Double.random(in: 0..<1, using: &rng) < fresh
        ? near(&rng) : shared.randomElement(using: &rng)!
    }
    // Now and then over a thousand players, so that a position holds several hundred.
    let crowd = Int.random(in: 0..<3, using: &rng) == 0
    let idRange = Int64(0)...Int64.random(in: 1...(crowd ? 2000 : 600), using: &rng)
    let players = (0..<Int.random(in: 0...(crowd ? 1500 : 400), using: &rng)).map { _ in
      (Int64.random(in: idRange, using: &rng), position(&rng))
    }
    // nil removes the player.
    let changes = (0..<Int.random(in: 1...300, using: &rng)).map { _ in
      (
        Int64.random(in: idRange, using: &rng),
        Int.random(in: 0..<4, using: &rng) == 0 ? nil : position(&rng)
      )
    }
    let snapshotsAt = (0..<3).map { _ in Int.random(in: 0...changes.count, using: &rng) }
    let queries = (0..<3).map { _ in
      (
        shared.randomElement(using: &rng)!,
        [0.5, 5, 50, Double.random(in: 0...50, using: &rng)].randomElement(using: &rng)!,
        Bool.random(using: &rng),
        (0..<3).map { _ in Int.random(in: 1...40, using: &rng) }
      )
    }
    return (players, changes, snapshotsAt, queries)
  }

  @Test(
    "a snapshot answers as the index did when it was taken, whatever changes follow, and the index answers as one built afresh"
  )
  func snapshots_persist() async {
    await propertyCheck(count: 300, input: Self.histories) { history in
      let (players, changes, snapshotsAt, queries) = history
      func answers(
        _ nearest: (Coordinate, Double, NearbyHit?, Int, (Double) -> Double) -> [NearbyHit]
      )
        -> [[NearbyHit]]
      {
        queries.map { centre, radius, banded, pageSizes in
          Self.paged(pageSizes) { after, limit in
            nearest(centre, radius, after, limit, banded ? LocationPrivacy.banded : { $0 })
          }
        }
      }
      func answers(_ snapshot: GeoIndex.Snapshot) -> [[NearbyHit]] {
        answers {
          snapshot.nearest(to: $0, radiusMiles: $1, after: $2, limit: $3, shownDistance: $4)
        }
      }
      // The oracles: a linear scan of where everyone is, and an index built afresh from it.
      func scans(_ locations: [Int64: Coordinate]) -> [[NearbyHit]] {
        var all: [[NearbyHit]] = []
        for (centre, radius, banded, _) in queries {
          func shown(_ miles: Double) -> Double { banded ? LocationPrivacy.banded(miles) : miles }
          var hits: [NearbyHit] = []
          for (id, location) in locations {
            let distance = shown(Geo.distanceMiles(centre, location))
            if distance <= shown(radius) {
              hits.append(NearbyHit(playerID: id, distanceMiles: distance))
            }
          }
          all.append(hits.sorted(by: NearbyHit.precedes))
        }
        return all
      }
      func afresh(_ locations: [Int64: Coordinate]) -> GeoIndex.Snapshot {
        var index = GeoIndex()
        for (id, location) in locations.sorted(by: { $0.key < $1.key }) {
          index.update(id, to: location)
        }
        return index.snapshot
      }

      var index = GeoIndex()
      var locations: [Int64: Coordinate] = [:]
      for (id, location) in players {
        index.update(id, to: location)
        locations[id] = location
      }
      var kept: [(GeoIndex.Snapshot, [[NearbyHit]], [Int64: Coordinate])] = []
      for step in 0...changes.count {
        if snapshotsAt.contains(step) {
          kept.append((index.snapshot, answers(index.snapshot), locations))
        }
        guard step < changes.count else { break }
        let (id, location) = changes[step]
        if let location {
          index.update(id, to: location)
        } else {
          index.remove(id)
        }
        locations[id] = location
      }

      #expect(index.allLocations == locations)
      #expect(index.count == locations.count && index.snapshot.count == locations.count)
      for id in Int64(0)...2000 { #expect(index.location(of: id) == locations[id]) }
      #expect(answers(index.snapshot) == scans(locations))
      #expect(answers(index.snapshot) == answers(afresh(locations)))
      for (snapshot, then, locationsThen) in kept {
        #expect(answers(snapshot) == then)
        #expect(then == scans(locationsThen))
        #expect(snapshot.count == locationsThen.count)
      }
    }
  }
}
