import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Foundation
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

@testable import BadmintonProjections

@Suite("Nearby players never give away where another player is")
struct LocationPrivacyServiceTests {
  /// `longitude` moved into [-180, 180) the way the earth wraps, so that points generated around
  /// a centre near the antimeridian stay valid coordinates.
  static func wrapped(_ longitude: Double) -> Double {
    longitude >= 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude
  }

  private static let target = Coordinate(latitude: 31.2304, longitude: 121.4737)

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

  /// Oracle: the lattice points around `target` that a search from each of `positions` would
  /// show at the distance it did, by the adversary's own model of the algorithm: the distance
  /// between cell centres in whole bands. `answers` holds exact distances when the server gives
  /// them, and then only the target's own point fits.
  static func expectCellStaysHidden(
    _ target: Coordinate, positions: [Coordinate], answers: [Double],
    model: (Coordinate, Coordinate) -> Double = { position, candidate in
      LocationPrivacy.banded(
        Geo.distanceMiles(
          LocationPrivacy.shownPosition(of: position),
          LocationPrivacy.shownPosition(of: candidate)))
    },
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let lattice = lattice(around: target)
    let region = Set(
      lattice.filter { candidate in
        zip(positions, answers).allSatisfy { position, answer in
          model(position, candidate) == answer
        }
      })
    let cell = LocationPrivacy.cell(of: target)
    let inCell = lattice.filter { LocationPrivacy.cell(of: $0) == cell }
    #expect(inCell.count >= 100, sourceLocation: sourceLocation)
    #expect(inCell.allSatisfy(region.contains), "\(target)", sourceLocation: sourceLocation)
    // So the locations that fit every answer reach at least a cell, about 1 km, each way.
    let latitudes = region.map(\.latitude)
    let longitudes = region.map(\.longitude)
    if let south = latitudes.min(), let north = latitudes.max(), let west = longitudes.min(),
      let east = longitudes.max()
    {
      let northSouth = (north - south) * Geo.earthRadiusMiles * .pi / 180
      let eastWest = Geo.distanceMiles(
        Coordinate(latitude: target.latitude, longitude: west),
        Coordinate(latitude: target.latitude, longitude: east))
      #expect(northSouth >= 0.55 && eastWest >= 0.55, sourceLocation: sourceLocation)
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

  /// Everything a nearby search of `index` from `centre` shows, page by page.
  static func answers(
    _ index: NearbyIndex, from centre: Coordinate, radius: Double, pageSizes: [Int] = [10]
  ) -> [NearbyHit] {
    var found: [NearbyHit] = []
    for pageNumber in 0... {
      let limit = pageSizes[pageNumber % pageSizes.count]
      let page = index.nearest(
        to: centre, radiusMiles: radius, after: found.last, limit: limit, excluding: [])
      found += page
      if page.count < limit { break }
    }
    return found
  }

  /// An index holding `players` at their true locations, as the service gives it them.
  static func index(of players: [(Int64, Coordinate)]) -> NearbyIndex {
    let index = NearbyIndex()
    for (id, location) in players { index.place(id, at: location) }
    return index
  }

  @Test("the index answers alike for players and searchers anywhere in the same cells")
  func nearbyIndex_answersByCellsAlone() async {
    let scenes = Generator { rng in
      let centre = Coordinate(
        latitude: Double.random(in: -70...70, using: &rng),
        longitude: Double.random(in: -180...180, using: &rng))
      var pairs: [(Coordinate, Coordinate)] = []
      for _ in 0..<Int.random(in: 1...40, using: &rng) {
        let spread = [0.02, 0.2, 0.8].randomElement(using: &rng)!
        let point = Coordinate(
          latitude: centre.latitude + Double.random(in: -spread...spread, using: &rng),
          longitude: Self.wrapped(
            centre.longitude + Double.random(in: -spread...spread, using: &rng)))
        pairs.append((point, Self.point(in: LocationPrivacy.cell(of: point), using: &rng) ?? point))
      }
      let queries = (0..<10).map { _ in
        let from = Coordinate(
          latitude: centre.latitude + Double.random(in: -0.3...0.3, using: &rng),
          longitude: Self.wrapped(centre.longitude + Double.random(in: -0.3...0.3, using: &rng)))
        return (
          from, Self.point(in: LocationPrivacy.cell(of: from), using: &rng) ?? from,
          [0.1, 0.7, 1.3, 5, Double.random(in: 0...50, using: &rng)].randomElement(using: &rng)!,
          (0..<3).map { _ in Int.random(in: 1...7, using: &rng) }
        )
      }
      return (pairs, queries)
    }
    await propertyCheck(count: 200, input: scenes) { scene in
      let (pairs, queries) = scene
      let here = Self.index(of: pairs.enumerated().map { (Int64($0.offset), $0.element.0) })
      let there = Self.index(of: pairs.enumerated().map { (Int64($0.offset), $0.element.1) })
      for (from, movedFrom, radius, pageSizes) in queries {
        #expect(
          Self.answers(here, from: from, radius: radius, pageSizes: pageSizes)
            == Self.answers(there, from: movedFrom, radius: radius, pageSizes: pageSizes))
      }
    }
  }

  @Test("an adversary seeing only the index's answers, from anywhere, cannot narrow a cell")
  func nearbyIndex_trilaterationFails() async {
    let scenes = Generator { rng in
      let target = Coordinate(
        latitude: Double.random(in: -70...70, using: &rng),
        longitude: Double.random(in: -179...179, using: &rng))
      // Others near the target, whose places the adversary may know, so order tells something.
      let others = (2..<5).map { id in
        (
          Int64(id),
          Coordinate(
            latitude: target.latitude + Double.random(in: -0.02...0.02, using: &rng),
            longitude: target.longitude + Double.random(in: -0.02...0.02, using: &rng))
        )
      }
      // Many places to search from, a third of them right around the target, at any radius.
      let searches = (0..<40).map { index in
        let spread = index % 3 == 0 ? 0.03 : 0.5
        return (
          Coordinate(
            latitude: target.latitude + Double.random(in: -spread...spread, using: &rng),
            longitude: target.longitude + Double.random(in: -spread...spread, using: &rng)),
          [0.5, 1, 2, 50].randomElement(using: &rng)!
        )
      }
      return (target, others, searches)
    }
    await propertyCheck(count: 6, input: scenes) { scene in
      let (target, others, searches) = scene
      func observed(targetAt location: Coordinate) -> [[NearbyHit]] {
        let index = Self.index(of: [(1, location)] + others)
        return searches.map { Self.answers(index, from: $0.0, radius: $0.1) }
      }
      let seen = observed(targetAt: target)
      // Oracle: every lattice point where the target would have drawn the very same answers.
      let region = Self.lattice(around: target).filter { observed(targetAt: $0) == seen }
      Self.expectSpansCell(region, of: target)
    }
  }

  /// A player's last stored location and its time, as a test's stand-in for the store and its
  /// feed: `write` commits a move, `stored` reads what was last committed.
  final class StoredMoves: Sendable {
    private let last = Mutex<(location: Coordinate, atUnixMs: Int64)?>(nil)

    func stored() -> (location: Coordinate, atUnixMs: Int64)? { last.withLock { $0 } }

    func commit(_ location: Coordinate, atUnixMs: Int64) {
      last.withLock { $0 = (location, atUnixMs) }
    }
  }

  @Test("a failed location write leaves the speed limit measured from the stored location")
  func move_failedWriteIsNotRecorded() async throws {
    struct WriteFailed: Error {}
    let index = NearbyIndex()
    let moves = StoredMoves()
    let here = Coordinate(latitude: 31.2304, longitude: 121.4737)
    // About 100 miles north: ten minutes at 600 miles an hour.
    let there = Coordinate(latitude: here.latitude + 100 / 69.09, longitude: here.longitude)
    let start: Int64 = 1_800_000_000_000
    let later = start + 11 * 60_000
    _ = try await index.move(
      1, to: here, stored: moves.stored, now: { start },
      write: { moves.commit(here, atUnixMs: $0) })
    await #expect(throws: WriteFailed.self) {
      _ = try await index.move(
        1, to: there, stored: moves.stored, now: { later }, write: { _ in throw WriteFailed() })
    }
    // The player never left: a step beside the stored location is GPS jitter, allowed at once.
    let beside = Coordinate(latitude: here.latitude + 0.001, longitude: here.longitude)
    #expect(
      try await index.move(
        1, to: beside, stored: moves.stored, now: { later },
        write: { moves.commit(beside, atUnixMs: $0) })
        == later)
  }

  @Test("a player's moves are checked one at a time, each against the one committed before")
  func move_concurrentMovesInOrder() async throws {
    let index = NearbyIndex()
    let moves = StoredMoves()
    let here = Coordinate(latitude: 31.2304, longitude: 121.4737)
    let north = Coordinate(latitude: here.latitude + 100 / 69.09, longitude: here.longitude)
    let south = Coordinate(latitude: here.latitude - 100 / 69.09, longitude: here.longitude)
    let start: Int64 = 1_800_000_000_000
    let later = start + 11 * 60_000
    _ = try await index.move(
      1, to: here, stored: moves.stored, now: { start },
      write: { moves.commit(here, atUnixMs: $0) })
    // The move north holds its write open until the move south is waiting.
    let (writing, writingStarted) = AsyncStream.makeStream(of: Void.self)
    let (gate, openGate) = AsyncStream.makeStream(of: Void.self)
    let first = Task {
      try await index.move(
        1, to: north, stored: moves.stored, now: { later },
        write: { now in
          writingStarted.yield()
          for await _ in gate { break }
          moves.commit(north, atUnixMs: now)
        })
    }
    for await _ in writing { break }
    let secondEnded = Atomic(false)
    let second = Task {
      defer { secondEnded.store(true, ordering: .releasing) }
      return try await index.move(
        1, to: south, stored: moves.stored, now: { later },
        write: { moves.commit(south, atUnixMs: $0) })
    }
    while index.movesWaiting(for: 1) == 0 && !secondEnded.load(ordering: .acquiring) {
      await Task.yield()
    }
    openGate.yield()
    #expect(try await first.value == later)
    // 200 miles from the location just committed, in no time at all.
    let refused = await #expect(throws: DomainError.self) { try await second.value }
    #expect(refused?.reason == "LOCATION_MOVE_TOO_FAST")
    #expect(moves.stored()?.location == north)
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

  @Test(
    "moving about within the speed limit and searching from each place leaves a whole cell",
    arguments: StoreKind.allCases)
  func trilateration_withSpeedLimit(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let target = try await world.player(nickname: "Target")
      let adversary = try await world.player(nickname: "Adversary")
      _ = try await world.client.players.updateLocation(
        .init(latitude: Self.target.latitude, longitude: Self.target.longitude),
        options: target.options)
      var rng = Xoshiro(seed: (27, 31, 121, 2026))
      var positions: [Coordinate] = []
      var answers: [Double] = []
      var last: Coordinate?
      for step in 0..<24 {
        let spread = step % 2 == 0 ? 0.02 : 0.3
        let position = Coordinate(
          latitude: Self.target.latitude + Double.random(in: -spread...spread, using: &rng),
          longitude: Self.target.longitude + Double.random(in: -spread...spread, using: &rng))
        // Wait as long as the speed limit asks before moving there.
        if let last {
          let hours = Geo.distanceMiles(last, position) / LocationPrivacy.maximumSpeedMph
          world.clock.advance(by: Int64((hours * 3_600_000).rounded(.up)) + 1)
        }
        _ = try await world.client.players.updateLocation(
          .init(latitude: position.latitude, longitude: position.longitude),
          options: adversary.options)
        last = position
        let found = try await world.client.players.nearbyPlayers(options: adversary.options)
        let entry = try #require(found.players.first { $0.userID == target.id })
        positions.append(position)
        answers.append(entry.distanceMiles)
      }
      Self.expectCellStaysHidden(Self.target, positions: positions, answers: answers)
    }
  }

  @Test(
    "searching for partners from many places leaves a whole cell too", arguments: StoreKind.allCases
  )
  func trilateration_findMatches(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let target = try await world.player(nickname: "Target")
      let adversary = try await world.player(nickname: "Adversary")
      let point = GeoPoint(latitude: Self.target.latitude, longitude: Self.target.longitude)
      _ = try await world.client.matching.postAvailability(
        MatchingTests.request(at: point, radius: 50), options: target.options)
      var rng = Xoshiro(seed: (11, 5, 1, 2027))
      var positions: [Coordinate] = []
      var answers: [Double] = []
      for step in 0..<30 {
        // Availability may be posted anywhere: no speed limit applies to it.
        let spread = step % 2 == 0 ? 0.02 : 0.3
        let position = Coordinate(
          latitude: Self.target.latitude + Double.random(in: -spread...spread, using: &rng),
          longitude: Self.target.longitude + Double.random(in: -spread...spread, using: &rng))
        let mine = try await world.client.matching.postAvailability(
          MatchingTests.request(
            at: GeoPoint(latitude: position.latitude, longitude: position.longitude), radius: 50),
          options: adversary.options)
        let found = try await world.client.matching.findMatches(
          .init(availabilityID: mine.id), options: adversary.options)
        let candidate = try #require(found.candidates.first { $0.userID == target.id })
        positions.append(position)
        answers.append(candidate.distanceMiles)
        _ = try await world.client.matching.cancelAvailability(
          .init(availabilityID: mine.id), options: adversary.options)
      }
      Self.expectCellStaysHidden(
        Self.target, positions: positions, answers: answers,
        model: LocationPrivacy.shownDistanceMiles)
    }
  }

  @Test(
    "moving too fast is refused with a stable reason, and allowed once enough time passed",
    arguments: StoreKind.allCases)
  func updateLocation_speedLimit(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let here = GeoPoint(latitude: 31.2304, longitude: 121.4737)
      // About 100 miles north: ten minutes at 600 miles an hour.
      let there = GeoPoint(latitude: here.latitude + 100 / 69.09, longitude: here.longitude)
      _ = try await world.client.players.updateLocation(
        .init(latitude: here.latitude, longitude: here.longitude), options: player.options)
      let refused = await rpcError {
        _ = try await world.client.players.updateLocation(
          .init(latitude: there.latitude, longitude: there.longitude), options: player.options)
      }
      #expect(refused?.code == .failedPrecondition)
      #expect(refused?.reason == "LOCATION_MOVE_TOO_FAST")
      #expect(try await world.store.player(id: player.id)?.location?.latitude == here.latitude)
      // A short move (GPS jitter) is always allowed.
      _ = try await world.client.players.updateLocation(
        .init(latitude: here.latitude + 0.001, longitude: here.longitude), options: player.options)
      world.clock.advance(by: 9 * 60_000)
      let early = await rpcError {
        _ = try await world.client.players.updateLocation(
          .init(latitude: there.latitude, longitude: there.longitude), options: player.options)
      }
      #expect(early?.reason == "LOCATION_MOVE_TOO_FAST")
      world.clock.advance(by: 2 * 60_000)
      _ = try await world.client.players.updateLocation(
        .init(latitude: there.latitude, longitude: there.longitude), options: player.options)
      #expect(try await world.store.player(id: player.id)?.location?.latitude == there.latitude)
    }
  }

  @Test("a player's first location may be anywhere", arguments: StoreKind.allCases)
  func updateLocation_firstIsFree(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      _ = try await world.client.players.updateLocation(
        .init(latitude: -33.9, longitude: 151.2), options: player.options)
    }
  }

  @Test(
    "the radius and the order answer by cells: players in one cell are shown alike",
    arguments: StoreKind.allCases)
  func radiusAndOrder_byCellOnly(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let me = try await world.player()
      let centre = LocationPrivacy.cell(of: Self.target)
      _ = try await world.client.players.updateLocation(
        .init(latitude: Self.target.latitude, longitude: Self.target.longitude),
        options: me.options)
      // Two players in one cell 2 cells north, one near its north edge and one near its south.
      let cellNorth = LocationPrivacy.cell(
        of: Coordinate(latitude: centre.centre.latitude + 0.02, longitude: Self.target.longitude))
      var ids: [Int64] = []
      for latitude in [cellNorth.north - 0.0001, cellNorth.south + 0.0001] {
        let player = try await world.player()
        _ = try await world.client.players.updateLocation(
          .init(latitude: latitude, longitude: cellNorth.centre.longitude),
          options: player.options)
        ids.append(player.id)
      }
      let all = try await world.client.players.nearbyPlayers(options: me.options).players
      #expect(all.map(\.userID) == ids.sorted())
      #expect(all.count == 2 && all[0].distanceMiles == all[1].distanceMiles)
      // Any radius includes both or neither.
      for radius in stride(from: 0.25, through: 3, by: 0.05) {
        let found = try await world.client.players.nearbyPlayers(
          .init(radiusMiles: radius), options: me.options
        ).players
        #expect(found.count == 0 || found.count == 2, "\(radius)")
      }
    }
  }

  @Test("forged NearbyPlayers page tokens are refused", arguments: StoreKind.allCases)
  func pageTokens_forged(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let me = try await world.player()
      _ = try await world.client.players.updateLocation(
        .init(latitude: Self.target.latitude, longitude: Self.target.longitude),
        options: me.options)
      for token in [
        "nonsense", "1", "1.2.3", ".1", "1.", "0.1", "-0.1", "+1.1", "01.1", "101.1", "nan.1",
        "inf.1", "-inf.1", "1e0.1", "1.-9223372036854775808", "1.-1", "1.0", "1.-0", "1.+5",
        "1.05", "4004000000000000.2", "7ff8000000000000.2", "1.9223372036854775808", " 1.1",
        "1.1 ", "3.7", "nearby", "nearby.0.1", "nearby.101.1", "nearby.-0.1", "nearby.+1.1",
        "nearby.01.1", "nearby.1.0", "nearby.1.-1", "nearby.1.05", "nearby.nan.1",
        "nearby.1.9223372036854775808", "nearby.1.2.3", "nearby.3.7 ", "matches.0.3.1.7",
        "threads.7",
      ] {
        let refused = await rpcError {
          _ = try await world.client.players.nearbyPlayers(
            .init(pageToken: token), options: me.options)
        }
        #expect(refused?.code == .invalidArgument, "\(token)")
        #expect(refused?.reason == "PAGE_TOKEN_INVALID", "\(token)")
        #expect(refused?.violations.map(\.field) == ["page_token"], "\(token)")
      }
      // A well-formed token is accepted.
      _ = try await world.client.players.nearbyPlayers(
        .init(pageToken: "nearby.3.7"), options: me.options)
    }
  }
}

/// A player store whose location writes fail while `failing` is set; everything else goes to
/// `base`.
private final class FlakyLocationStore: PlayerStore {
  struct WriteFailed: Error {}

  let base: any PlayerStore
  let failing = Atomic(false)

  init(_ base: any PlayerStore) { self.base = base }

  var feed: ChangeFeed { base.feed }
  func startFeed() { base.startFeed() }
  func replayPlayers(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    try await base.replayPlayers(apply)
  }
  func replaySessions(nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void)
    async throws
  { try await base.replaySessions(nowUnixMs: nowUnixMs, apply) }

  func updateLocation(id: Int64, to location: Coordinate, atUnixMs: Int64) async throws -> Int64 {
    if failing.load(ordering: .acquiring) { throw WriteFailed() }
    return try await base.updateLocation(id: id, to: location, atUnixMs: atUnixMs)
  }

  func createPlayer(_ player: NewPlayer) async throws -> PlayerRecord {
    try await base.createPlayer(player)
  }
  func player(id: Int64) async throws -> PlayerRecord? { try await base.player(id: id) }
  func player(phone: String) async throws -> PlayerRecord? { try await base.player(phone: phone) }
  func replacePassword(id: Int64, current: PasswordDigest, with digest: PasswordDigest)
    async throws -> Bool
  { try await base.replacePassword(id: id, current: current, with: digest) }
  func passwordParameterCounts() async throws -> [String: Int] {
    try await base.passwordParameterCounts()
  }
  func updateProfile(id: Int64, _ changes: ProfileChanges) async throws -> PlayerRecord {
    try await base.updateProfile(id: id, changes)
  }
  func allLocations() async throws -> [(playerID: Int64, location: Coordinate, revision: Int64)] {
    try await base.allLocations()
  }
  func players(ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    try await base.players(ids: ids)
  }
  func createSession(_ session: SessionRecord) async throws {
    try await base.createSession(session)
  }
  func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
    try await base.session(tokenHash: tokenHash)
  }
  func deleteSession(tokenHash: [UInt8]) async throws {
    try await base.deleteSession(tokenHash: tokenHash)
  }
  func deleteSessions(expiredBefore unixMs: Int64) async throws -> Int {
    try await base.deleteSessions(expiredBefore: unixMs)
  }
  func createVerification(
    playerID: Int64, kind: ChampionshipKind, contentType: String, document: [UInt8], atUnixMs: Int64
  ) async throws -> VerificationRecord {
    try await base.createVerification(
      playerID: playerID, kind: kind, contentType: contentType, document: document,
      atUnixMs: atUnixMs)
  }
  func verification(id: Int64) async throws -> VerificationRecord? {
    try await base.verification(id: id)
  }
  func verifications(playerID: Int64) async throws -> [VerificationRecord] {
    try await base.verifications(playerID: playerID)
  }
  func pendingVerifications() async throws -> [VerificationRecord] {
    try await base.pendingVerifications()
  }
  func verificationDocument(id: Int64) async throws -> [UInt8]? {
    try await base.verificationDocument(id: id)
  }
  func startDocumentUpload(
    playerID: Int64, contentType: String, totalSize: Int64, firstPiece: [UInt8], atUnixMs: Int64,
    openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    try await base.startDocumentUpload(
      playerID: playerID, contentType: contentType, totalSize: totalSize, firstPiece: firstPiece,
      atUnixMs: atUnixMs, openBytesLimit: openBytesLimit)
  }
  func appendDocumentPiece(
    playerID: Int64, uploadID: Int64, offset: Int64, statedTotal: Int64, data: [UInt8],
    atUnixMs: Int64, openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    try await base.appendDocumentPiece(
      playerID: playerID, uploadID: uploadID, offset: offset, statedTotal: statedTotal, data: data,
      atUnixMs: atUnixMs, openBytesLimit: openBytesLimit)
  }
  func deleteDocumentUploads(expiredBefore unixMs: Int64) async throws -> Int {
    try await base.deleteDocumentUploads(expiredBefore: unixMs)
  }
  func createVerification(playerID: Int64, kind: ChampionshipKind, uploadID: Int64, atUnixMs: Int64)
    async throws -> VerificationRecord
  {
    try await base.createVerification(
      playerID: playerID, kind: kind, uploadID: uploadID, atUnixMs: atUnixMs)
  }
  func verificationDocumentPart(id: Int64, offset: Int64) async throws -> [UInt8]? {
    try await base.verificationDocumentPart(id: id, offset: offset)
  }
  func reviewVerification(
    id: Int64, approve: Bool, note: String, reviewerID: Int64, atUnixMs: Int64,
    notify: @escaping @Sendable (VerificationRecord) -> [UInt8]
  ) async throws -> ReviewOutcome {
    try await base.reviewVerification(
      id: id, approve: approve, note: note, reviewerID: reviewerID, atUnixMs: atUnixMs,
      notify: notify)
  }
  func appendEvent(playerID: Int64, payload: [UInt8], atUnixMs: Int64) async throws -> UInt64 {
    try await base.appendEvent(playerID: playerID, payload: payload, atUnixMs: atUnixMs)
  }
  func appendEvents(_ events: [(playerID: Int64, payload: [UInt8])], atUnixMs: Int64) async throws
    -> [UInt64]
  { try await base.appendEvents(events, atUnixMs: atUnixMs) }
  func events(playerID: Int64, after sequence: UInt64, limit: Int) async throws -> [EventRecord] {
    try await base.events(playerID: playerID, after: sequence, limit: limit)
  }
  func deleteEvents(createdBefore unixMs: Int64) async throws -> Int {
    try await base.deleteEvents(createdBefore: unixMs)
  }
}

/// No player has blocked anyone.
private struct NoBlocks: BlockRelations {
  func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64> { [] }
  func playersBlockedNow(eitherWayWith playerID: Int64) -> Set<Int64> { [] }
  func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool { false }
}

@Suite("UpdateLocation measures the speed limit from stored locations")
struct UpdateLocationStoreFailureTests {
  @Test(
    "a failed store write leaves the limit measured from the previous stored location",
    arguments: StoreKind.allCases)
  func failedWrite_leavesStoredLocation(kind: StoreKind) async throws {
    try await withStore(kind) { base in
      let store = FlakyLocationStore(base)
      let clock = ManualClock()
      let me = try await base.createPlayer(
        NewPlayer(
          phone: "+8613800007777", nickname: "Mover",
          password: PasswordDigest(hash: [1], salt: [2], parameters: "x"),
          selfLevel: 3, locale: "en", joinedAtUnixMs: 0))
      let projections = try await PlayerProjections.started(from: base, nowUnixMs: 0)
      let service = PlayersService(
        store: store, index: projections.index, players: projections.players, blocks: NoBlocks(),
        clock: clock, events: EventPublisher(store: store, clock: clock))
      let call = context(
        from: "10.0.0.1", principal: Principal(userID: me.id, isAdministrator: false))
      let here = GeoPoint(latitude: 31.2304, longitude: 121.4737)
      _ = try await service.updateLocation(
        .init(latitude: here.latitude, longitude: here.longitude), context: call)
      // About 100 miles north, eleven minutes later: allowed, but the write fails.
      clock.advance(by: 11 * 60_000)
      store.failing.store(true, ordering: .releasing)
      await #expect(throws: FlakyLocationStore.WriteFailed.self) {
        _ = try await service.updateLocation(
          .init(latitude: here.latitude + 100 / 69.09, longitude: here.longitude), context: call)
      }
      store.failing.store(false, ordering: .releasing)
      // The player is still where the store says: a step beside it is allowed at once.
      _ = try await service.updateLocation(
        .init(latitude: here.latitude + 0.001, longitude: here.longitude), context: call)
      #expect(try await base.player(id: me.id)?.location?.latitude == here.latitude + 0.001)
    }
  }
}
