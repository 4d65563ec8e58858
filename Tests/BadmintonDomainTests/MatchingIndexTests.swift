import BadmintonDomain
import PropertyBased
import Testing

@Suite("The match index and the suggestions to widen a search (requirement 4.7)")
struct MatchingIndexTests {
  /// 2024-10-04 00:00 UTC.
  static let base: Int64 = 20_000 * 86_400_000
  static let hour: Int64 = 3_600_000

  /// A change to the index.
  enum Operation {
    case insert(MatchRequest)
    case remove(Int64)
    case updateLevel(playerID: Int64, level: Int)
    case removeExpired(nowUnixMs: Int64)
  }

  /// Changes to apply, then searches to check.
  struct Scene {
    var cellDegrees: Double
    /// How many requests of a bucket a cell holds before it keeps a list per level.
    var splitCellsAbove: Int
    var operations: [Operation]
    var queries: [MatchRequest]
    /// For each extra query, which live request asks, as "whose requests does mine fit".
    var livePicks: [Int]
    var pageSizes: [Int]
    var excluded: Set<Int64>
    var busyPlayers: Set<Int64>
    var busyWindow: TimeSlot
  }

  /// Clusters around cities, near the poles and on both sides of the date line, and some
  /// requests anywhere.
  static let centres = [
    Coordinate(latitude: 31.23, longitude: 121.47), Coordinate(latitude: 40.7, longitude: -74),
    Coordinate(latitude: 89.9, longitude: 0), Coordinate(latitude: -89.95, longitude: 45),
    Coordinate(latitude: 0, longitude: 179.95), Coordinate(latitude: 60, longitude: -179.9),
  ]

  /// Where and when a scene's requests fall: a few of the centres, spread more or less widely,
  /// over a few hours or a few days, so that some scenes are crowded and some sparse.
  struct Style {
    var centres: [Coordinate]
    var spreads: [Double]
    var spanQuarters: Int64
  }

  static func style(_ rng: inout some RandomNumberGenerator) -> Style {
    Style(
      centres: Array(centres.shuffled(using: &rng).prefix(Int.random(in: 1...4, using: &rng))),
      spreads: [[0.01, 0.1], [0.1, 0.3, 1.0], [0.01, 0.3, 1.0, 3.0]].randomElement(using: &rng)!,
      spanQuarters: [32, 96, 288].randomElement(using: &rng)!)
  }

  static func location(_ style: Style, _ rng: inout some RandomNumberGenerator) -> Coordinate {
    if Int.random(in: 0...9, using: &rng) == 0 {
      return Coordinate(
        latitude: Double.random(in: -90...90, using: &rng),
        longitude: Double.random(in: -180...180, using: &rng))
    }
    let centre = style.centres.randomElement(using: &rng)!
    let spread = style.spreads.randomElement(using: &rng)!
    var longitude = centre.longitude + Double.random(in: -spread...spread, using: &rng) * 2
    if longitude > 180 { longitude -= 360 }
    if longitude < -180 { longitude += 360 }
    let latitude = min(
      max(centre.latitude + Double.random(in: -spread...spread, using: &rng), -90), 90)
    return Coordinate(latitude: latitude, longitude: longitude)
  }

  /// A request in the scene's span of time after `base`, some crossing midnight UTC.
  static func request(id: Int64, _ style: Style, _ rng: inout some RandomNumberGenerator)
    -> MatchRequest
  {
    var start = base + Int64.random(in: 0..<style.spanQuarters, using: &rng) * 900_000
    if Int.random(in: 0...4, using: &rng) == 0 {
      start += Int64.random(in: 0..<900_000, using: &rng)
    }
    let length =
      Bool.random(using: &rng)
      ? Int64.random(in: 4...32, using: &rng) * 900_000
      : Int64.random(in: hour...(8 * hour), using: &rng)
    let radius = [0.5, 5, 25, 50, 50, Double.random(in: 0.1...50, using: &rng)].randomElement(
      using: &rng)!
    return MatchRequest(
      id: id, playerID: Int64.random(in: 1...40, using: &rng),
      mode: Int.random(in: 0...3, using: &rng) == 0 ? .doubles : .singles,
      slot: TimeSlot(startUnixMs: start, endUnixMs: start + length),
      location: location(style, &rng), radiusMiles: radius,
      skillTolerance: Int.random(in: 0...8, using: &rng),
      displayLevel: Int.random(in: 1...9, using: &rng),
      postedAtUnixMs: base - Int64.random(in: 0...3, using: &rng) * 1000)
  }

  static let scenes = Generator { rng in
    let style = style(&rng)
    let span = style.spanQuarters * 900_000
    var operations: [Operation] = []
    var nextID: Int64 = 1
    for _ in 0..<Int.random(in: 0...400, using: &rng) {
      switch Int.random(in: 0..<100, using: &rng) {
      case 0..<80:
        operations.append(.insert(request(id: nextID, style, &rng)))
        nextID += 1
      case 80..<85:
        operations.append(
          .insert(request(id: Int64.random(in: 1...nextID, using: &rng), style, &rng)))
      case 85..<93:
        operations.append(.remove(Int64.random(in: 1...nextID, using: &rng)))
      case 93..<99:
        operations.append(
          .updateLevel(
            playerID: Int64.random(in: 1...45, using: &rng),
            level: Int.random(in: 1...9, using: &rng)))
      default:
        operations.append(.removeExpired(nowUnixMs: base + Int64.random(in: 0...span, using: &rng)))
      }
    }
    var queries: [MatchRequest] = []
    for _ in 0..<4 {
      var query = request(id: 0, style, &rng)
      query.playerID = Int64.random(in: 1...45, using: &rng)
      queries.append(query)
    }
    let busyStart = base + Int64.random(in: 0...span, using: &rng)
    return Scene(
      cellDegrees: [0.1, 0.25, 1, 7].randomElement(using: &rng)!,
      splitCellsAbove: [0, 2, 8, 64, 1_000_000].randomElement(using: &rng)!, operations: operations,
      queries: queries, livePicks: (0..<3).map { _ in Int.random(in: 0...1000, using: &rng) },
      pageSizes: (0..<7).map { _ in Int.random(in: 1...6, using: &rng) },
      excluded: Set((1...45).filter { _ in Int.random(in: 0...9, using: &rng) == 0 }),
      busyPlayers: Set((1...45).filter { _ in Int.random(in: 0...6, using: &rng) == 0 }),
      busyWindow: TimeSlot(
        startUnixMs: busyStart, endUnixMs: busyStart + Int64.random(in: 1...12, using: &rng) * hour)
    )
  }

  /// The index's contents kept the plain way: live requests by id and each player's level.
  struct Model {
    var requests: [Int64: MatchRequest] = [:]
    var levels: [Int64: Int] = [:]

    mutating func apply(_ operation: Operation) {
      switch operation {
      case .insert(let request):
        requests[request.id] = request
        levels[request.playerID] = request.displayLevel
      case .remove(let id):
        requests[id] = nil
      case .updateLevel(let playerID, let level):
        levels[playerID] = level
      case .removeExpired(let now):
        requests = requests.filter { $0.value.slot.endUnixMs > now }
      }
    }

    /// The live request with its player's current level.
    func current(_ id: Int64) -> MatchRequest? {
      guard var request = requests[id] else { return nil }
      request.displayLevel = levels[request.playerID]!
      return request
    }

    /// Oracle: every live request checked against the rules, written out, then sorted.
    func scan(
      _ query: MatchRequest, excluded: Set<Int64>, isBusy: (Int64, TimeSlot) -> Bool
    ) -> [MatchCandidate] {
      requests.keys.compactMap { id -> MatchCandidate? in
        let other = current(id)!
        let start = max(query.slot.startUnixMs, other.slot.startUnixMs)
        let end = min(query.slot.endUnixMs, other.slot.endUnixMs)
        // Requests fit by the distance players are shown, radii rounded up to whole bands.
        let distance = LocationPrivacy.shownDistanceMiles(query.location, other.location)
        let difference = abs(query.displayLevel - other.displayLevel)
        let overlap = TimeSlot(startUnixMs: start, endUnixMs: end)
        guard other.playerID != query.playerID, other.mode == query.mode,
          end - start >= 30 * 60_000,
          distance <= LocationPrivacy.banded(min(query.radiusMiles, other.radiusMiles)),
          difference <= min(query.skillTolerance, other.skillTolerance),
          !excluded.contains(other.playerID), !isBusy(other.playerID, overlap)
        else { return nil }
        return MatchCandidate(
          requestID: id, playerID: other.playerID, distanceMiles: distance,
          skillDifference: difference, overlap: overlap, postedAtUnixMs: other.postedAtUnixMs)
      }.sorted(by: MatchCandidate.precedes)
    }
  }

  /// Oracle for the relaxations: each one's parameters worked out from the query directly.
  static func relaxations(
    _ query: MatchRequest, count: (MatchRequest) -> Int
  ) -> [MatchRelaxation] {
    var result: [MatchRelaxation] = []
    func add(_ kind: MatchRelaxation.Kind, _ relaxed: MatchRequest) {
      result.append(
        MatchRelaxation(
          kind: kind, slot: relaxed.slot, skillTolerance: relaxed.skillTolerance,
          radiusMiles: relaxed.radiusMiles, candidateCount: count(relaxed)))
    }
    let spare = 8 * hour - query.slot.durationMs
    var widened: Int64 = 0
    for hours in [1, 2] {
      let side = min(Int64(hours) * hour, spare / 2)
      if side > widened {
        var relaxed = query
        relaxed.slot = TimeSlot(
          startUnixMs: query.slot.startUnixMs - side, endUnixMs: query.slot.endUnixMs + side)
        add(.widenTime(hours: hours), relaxed)
        widened = side
      }
    }
    var raised = query.skillTolerance
    for levels in [1, 2] where min(query.skillTolerance + levels, 8) > raised {
      raised = min(query.skillTolerance + levels, 8)
      var relaxed = query
      relaxed.skillTolerance = raised
      add(.raiseTolerance(levels: levels), relaxed)
    }
    if query.radiusMiles < 50 {
      var relaxed = query
      relaxed.radiusMiles = 50
      add(.widenRadius(miles: 50), relaxed)
    }
    return result
  }

  @Test("searches, pages, counts and relaxations equal a linear scan over the live requests")
  func index_matchesLinearScan() async throws {
    await propertyCheck(count: 200, input: Self.scenes) { scene in
      var index = MatchIndex(cellDegrees: scene.cellDegrees, splitCellsAbove: scene.splitCellsAbove)
      var model = Model()
      var ids = Set<Int64>()
      for operation in scene.operations {
        switch operation {
        case .insert(let request):
          index.insert(request)
          ids.insert(request.id)
        case .remove(let id):
          #expect(index.remove(id) == model.current(id))
        case .updateLevel(let playerID, let level):
          index.updateLevel(playerID: playerID, level: level)
        case .removeExpired(let now):
          let expected = model.requests.values.filter { $0.slot.endUnixMs <= now }.map(\.id)
          #expect(index.removeExpired(nowUnixMs: now) == expected.sorted())
        }
        model.apply(operation)
      }
      #expect(index.count == model.requests.count)
      for id in ids { #expect(index.request(id) == model.current(id)) }
      #expect(Set(index.requests) == Set(model.requests.keys.compactMap(model.current)))

      let live = model.requests.keys.sorted()
      var queries = scene.queries
      if !live.isEmpty { queries += scene.livePicks.map { model.current(live[$0 % live.count])! } }
      let isBusy: (Int64, TimeSlot) -> Bool = { playerID, overlap in
        scene.busyPlayers.contains(playerID) && overlap.overlap(with: scene.busyWindow) != nil
      }
      for (number, query) in queries.enumerated() {
        let expected = model.scan(query, excluded: scene.excluded, isBusy: isBusy)
        let all = index.search(
          for: query, excluding: scene.excluded, isBusy: isBusy, limit: 100_000)
        #expect(all.candidates == expected)
        #expect(all.nextCursor == nil)
        if !expected.isEmpty {
          let exact = index.search(
            for: query, excluding: scene.excluded, isBusy: isBusy, limit: expected.count)
          #expect(exact == MatchPage(candidates: expected, nextCursor: nil))
        }
        #expect(
          index.count(for: query, excluding: scene.excluded, isBusy: isBusy) == expected.count)

        // Every page walk, through tokens as a client holds them, gives the same list.
        let pageSize = scene.pageSizes[number % scene.pageSizes.count]
        var walked: [MatchCandidate] = []
        var token: String?
        for _ in 0...expected.count {
          let cursor = try token.map { try MatchCursor(token: $0) }
          let page = index.search(
            for: query, excluding: scene.excluded, isBusy: isBusy, limit: pageSize, after: cursor)
          // Only the first page of an empty result is empty.
          #expect(!page.candidates.isEmpty || (walked.isEmpty && expected.isEmpty))
          walked += page.candidates
          #expect(page.nextCursor == nil || page.candidates.count == pageSize)
          #expect(page.nextCursor == page.candidates.last?.cursor || page.nextCursor == nil)
          token = page.nextCursor?.token
          if token == nil { break }
        }
        #expect(token == nil)
        #expect(walked == expected)

        let relaxations = index.relaxations(
          for: query, excluding: scene.excluded, isBusy: isBusy)
        #expect(
          relaxations
            == Self.relaxations(query) {
              model.scan($0, excluded: scene.excluded, isBusy: isBusy).count
            })
      }
    }
  }

  @Test(
    "requests kept in one index per region, searched in the regions a query reaches and merged, give one index's pages and relaxations"
  )
  func regions_mergeToOneIndex() async throws {
    await propertyCheck(count: 80, input: Self.scenes) { scene in
      var model = Model()
      for operation in scene.operations { model.apply(operation) }
      let live = model.requests.keys.sorted().compactMap(model.current)
      var whole = MatchIndex(cellDegrees: scene.cellDegrees, splitCellsAbove: scene.splitCellsAbove)
      for request in live { whole.insert(request) }
      var queries = scene.queries
      if !live.isEmpty { queries += scene.livePicks.map { live[$0 % live.count] } }
      let isBusy: (Int64, TimeSlot) -> Bool = { playerID, overlap in
        scene.busyPlayers.contains(playerID) && overlap.overlap(with: scene.busyWindow) != nil
      }
      // Regions narrower than a search, about as wide, and far wider.
      for degrees in [0.5, 5, 60] {
        let regions = MatchRegions(cellDegrees: degrees)
        var parts: [Int: MatchIndex] = [:]
        for request in live {
          parts[
            regions.region(of: request.location),
            default: MatchIndex(
              cellDegrees: scene.cellDegrees, splitCellsAbove: scene.splitCellsAbove)
          ].insert(request)
        }
        #expect(parts.values.reduce(0) { $0 + $1.count } == whole.count)
        for (number, query) in queries.enumerated() {
          let reached = regions.regions(searchedBy: query).compactMap { parts[$0] }
          let pageSize = scene.pageSizes[number % scene.pageSizes.count]
          var cursor: MatchCursor?
          for _ in 0...live.count {
            let expected = whole.search(
              for: query, excluding: scene.excluded, isBusy: isBusy, limit: pageSize,
              after: cursor)
            let merged = MatchPage.merging(
              reached.map {
                $0.search(
                  for: query, excluding: scene.excluded, isBusy: isBusy, limit: pageSize,
                  after: cursor)
              }, limit: pageSize)
            #expect(merged == expected)
            cursor = expected.nextCursor
            if cursor == nil { break }
          }
          let relaxedParts = regions.regions(searchedByRelaxationsOf: query).compactMap {
            parts[$0]
          }
          let relaxations = MatchRelaxation.summing(
            (relaxedParts.isEmpty ? [MatchIndex()] : relaxedParts).map {
              $0.relaxations(for: query, excluding: scene.excluded, isBusy: isBusy)
            })
          #expect(
            relaxations == whole.relaxations(for: query, excluding: scene.excluded, isBusy: isBusy))
        }
      }
    }
  }

  /// Makes `operation` on `index`.
  static func apply(_ operation: Operation, to index: inout MatchIndex) {
    switch operation {
    case .insert(let request): index.insert(request)
    case .remove(let id): index.remove(id)
    case .updateLevel(let playerID, let level):
      index.updateLevel(playerID: playerID, level: level)
    case .removeExpired(let now): index.removeExpired(nowUnixMs: now)
    }
  }

  /// How a test takes an index's snapshots.
  enum Taking: String, CaseIterable, CustomTestStringConvertible {
    /// `snapshot` of an index with places of its own, which copies what it changes.
    case plainIndex
    /// `snapshot` of an index over shared places, which changes chunks in place.
    case sharedPlaces
    /// As a board does: the index's shape, taken again only when the index is reshaped, read
    /// at the places' next moment.
    case shapesAtMoments

    var testDescription: String { rawValue }
  }

  @Test(
    "a snapshot taken at any moment answers every search as the index did then, whatever changes follow",
    arguments: Taking.allCases)
  func snapshot_keepsItsMoment(taking: Taking) async throws {
    // Over shared places the index changes the chunks its snapshots share in place, and each
    // snapshot must go on showing its own moment: besides the few kept to the end, the last
    // few moments' snapshots are kept while later changes are made, as a board's searches
    // hold the versions published just before, and every fifth of them is checked as it goes.
    await propertyCheck(count: 200, input: Self.scenes) { scene in
      let places = taking == .plainIndex ? nil : MatchIndex.Places()
      var index = MatchIndex(
        cellDegrees: scene.cellDegrees, splitCellsAbove: scene.splitCellsAbove, places: places)
      var shape: MatchIndex.Snapshot?
      func snapshot() -> MatchIndex.Snapshot {
        guard taking == .shapesAtMoments, let places else { return index.snapshot }
        if shape == nil || index.isReshaped { shape = index.takeShape() }
        return shape!.at(places.pin())
      }
      var model = Model()
      let isBusy: (Int64, TimeSlot) -> Bool = { playerID, overlap in
        scene.busyPlayers.contains(playerID) && overlap.overlap(with: scene.busyWindow) != nil
      }
      func check(_ snapshot: MatchIndex.Snapshot, _ then: Model) {
        #expect(snapshot.count == then.requests.count)
        #expect(Set(snapshot.requests) == Set(then.requests.keys.compactMap(then.current)))
        let live = then.requests.keys.sorted()
        var queries = scene.queries
        if !live.isEmpty { queries += scene.livePicks.map { then.current(live[$0 % live.count])! } }
        for query in queries {
          let expected = then.scan(query, excluded: scene.excluded, isBusy: isBusy)
          #expect(
            snapshot.search(
              for: query, excluding: scene.excluded, isBusy: isBusy, limit: 100_000
            ).candidates == expected)
          #expect(
            snapshot.count(for: query, excluding: scene.excluded, isBusy: isBusy)
              == expected.count)
        }
      }
      // A snapshot after each of a few operations, with the model of that moment.
      let count = scene.operations.count
      let moments = Set([0, count / 3, count / 2, count * 2 / 3, count - 1].filter { $0 >= 0 })
      var kept: [(snapshot: MatchIndex.Snapshot, model: Model)] = [(snapshot(), model)]
      var recent: [(snapshot: MatchIndex.Snapshot, model: Model)] = []
      for (number, operation) in scene.operations.enumerated() {
        Self.apply(operation, to: &index)
        model.apply(operation)
        if moments.contains(number) { kept.append((snapshot(), model)) }
        recent.append((snapshot(), model))
        if recent.count > number % 4 + 1 {
          let (snapshot, then) = recent.removeFirst()
          if number % 5 == 0 { check(snapshot, then) }
        }
      }
      kept.append((snapshot(), model))
      for (snapshot, then) in kept + recent { check(snapshot, then) }
    }
  }

  /// Scenes of churn in a few crowded cells: a growth of mostly posts, then as many cancels as
  /// posts, so that lists fill chunks, grow them, run past one chunk of 128, pack once holes
  /// crowd them (into one chunk or several) and empty, and cells split by level. In half of
  /// them every request is of one mode, so that a cell's one list runs long.
  static let churnScenes = Generator { rng in
    let style = Style(
      centres: [centres[0]], spreads: [0.01, 0.05],
      spanQuarters: [4, 16].randomElement(using: &rng)!)
    let oneMode = Bool.random(using: &rng)
    var operations: [Operation] = []
    var live: [Int64] = []
    var nextID: Int64 = 1
    let growth = Int.random(in: 0...700, using: &rng)
    for step in 0..<Int.random(in: 100...1_200, using: &rng) {
      let posts = step < growth ? 90 : 48
      switch Int.random(in: 0..<100, using: &rng) {
      case 0..<posts:
        var request = request(id: nextID, style, &rng)
        if oneMode { request.mode = .singles }
        operations.append(.insert(request))
        live.append(nextID)
        nextID += 1
      case posts..<94 where !live.isEmpty:
        let id = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
        operations.append(.remove(id))
      case 94..<98:
        operations.append(
          .updateLevel(
            playerID: Int64.random(in: 1...40, using: &rng),
            level: Int.random(in: 1...9, using: &rng)))
      default:
        guard let id = live.randomElement(using: &rng) else { continue }
        var request = request(id: id, style, &rng)
        if oneMode { request.mode = .singles }
        operations.append(.insert(request))
      }
    }
    return (operations, [0, 4, 16, 1_000_000, 1_000_000].randomElement(using: &rng)!)
  }

  @Test(
    "a board's way of reading (two indexes over one places, one moment of both a step, each index's shape taken again only once it is reshaped) shows every moment through chunks filled, grown, packed and emptied"
  )
  func shapesAtMoments_showEachMomentUnderChurn() async throws {
    await propertyCheck(count: 150, input: Self.churnScenes) { scene in
      let (operations, splitCellsAbove) = scene
      // Two parts, as a board's: a request goes to the part of its id's parity, and a level
      // reaches the player's requests in both (the board sets it on every part).
      let places = MatchIndex.Places()
      var parts = (0..<2).map { _ in MatchIndex(splitCellsAbove: splitCellsAbove, places: places) }
      var shapes = parts.indices.map { parts[$0].takeShape() }
      var model = Model()
      func part(_ id: Int64) -> Int { Int(id % 2) }
      // The last few moments' snapshots of both parts, kept while the parts change on, as
      // searches keep the versions published just before; each is checked when it is let go of.
      var recent: [(snapshots: [MatchIndex.Snapshot], model: Model)] = []
      func check(_ snapshots: [MatchIndex.Snapshot], _ then: Model, whole: Bool, _ number: Int) {
        #expect(snapshots.reduce(0) { $0 + $1.count } == then.requests.count, "at \(number)")
        guard whole else { return }
        #expect(
          Set(snapshots.flatMap(\.requests)) == Set(then.requests.keys.compactMap(then.current)),
          "at operation \(number)")
      }
      for (number, operation) in operations.enumerated() {
        switch operation {
        case .insert(let request):
          parts[part(request.id)].insert(request)
          parts[1 - part(request.id)].updateLevel(
            playerID: request.playerID, level: request.displayLevel)
        case .remove(let id): parts[part(id)].remove(id)
        case .updateLevel, .removeExpired:
          for n in parts.indices { Self.apply(operation, to: &parts[n]) }
        }
        model.apply(operation)
        for n in parts.indices where parts[n].isReshaped { shapes[n] = parts[n].takeShape() }
        let moment = places.pin()
        recent.append((shapes.map { $0.at(moment) }, model))
        while recent.count > number % 5 + 1 {
          let (snapshots, then) = recent.removeFirst()
          check(snapshots, then, whole: number % 4 == 0, number)
        }
      }
      for (snapshots, then) in recent { check(snapshots, then, whole: true, operations.count) }
    }
  }

  @Test("relaxations widen as far as 8 hours allow and skip what changes nothing")
  func relaxations_limits() {
    var index = MatchIndex()
    let query = MatchingRulesTests.request(
      id: 1, player: 1, start: Self.base, end: Self.base + 7 * Self.hour, radius: 50,
      tolerance: 7, level: 1)
    // A player eight levels away at the same time, and one free from when the query ends.
    index.insert(
      MatchingRulesTests.request(
        id: 2, player: 2, start: Self.base, end: Self.base + 7 * Self.hour, tolerance: 8, level: 9))
    index.insert(
      MatchingRulesTests.request(
        id: 3, player: 3, start: Self.base + 7 * Self.hour, end: Self.base + 9 * Self.hour,
        level: 1))
    #expect(index.count(for: query) == 0)
    let relaxations = index.relaxations(for: query)
    // 8 hours leave room for 30 minutes on each side, so widening by 2 hours adds nothing to
    // widening by 1; a tolerance of 8 cannot be raised twice; the radius is already 50 miles.
    #expect(relaxations.map(\.kind) == [.widenTime(hours: 1), .raiseTolerance(levels: 1)])
    #expect(
      relaxations.first?.slot
        == TimeSlot(
          startUnixMs: Self.base - Self.hour / 2,
          endUnixMs: Self.base + 7 * Self.hour + Self.hour / 2))
    #expect(relaxations.map(\.skillTolerance) == [7, 8])
    #expect(relaxations.allSatisfy { $0.radiusMiles == 50 })
    #expect(relaxations.map(\.candidateCount) == [1, 1])
    #expect(index.search(for: query, limit: 5).candidates.isEmpty)
  }

  @Test("a request crossing midnight UTC is found once from either day")
  func midnightCrossing_foundOnce() {
    var index = MatchIndex()
    let midnight = Self.base + 24 * Self.hour
    index.insert(
      MatchingRulesTests.request(
        id: 7, player: 2, start: midnight - 3 * Self.hour, end: midnight + 3 * Self.hour))
    for (start, end) in [(-2, 2), (-4, -1), (1, 4), (-1, 1)] {
      let query = MatchingRulesTests.request(
        id: 1, player: 1, start: midnight + Int64(start) * Self.hour,
        end: midnight + Int64(end) * Self.hour)
      #expect(index.search(for: query, limit: 10).candidates.map(\.requestID) == [7])
    }
    #expect(index.removeExpired(nowUnixMs: midnight + 3 * Self.hour) == [7])
    #expect(index.count == 0)
  }

  @Test("slots before 1970 and past the year 6000 are found like any other")
  func extremeTimes_found() {
    // 32-bit minutes since 1970 end in 6052; a slot past it skips the quick tests, not the rules.
    for start in [-3 * Self.hour + 17, 200_000 * 365 * 24 * Self.hour + 59_999] {
      var index = MatchIndex()
      index.insert(
        MatchingRulesTests.request(id: 7, player: 2, start: start, end: start + 2 * Self.hour))
      index.insert(
        MatchingRulesTests.request(
          id: 8, player: 3, start: start + 2 * Self.hour, end: start + 3 * Self.hour))
      let query = MatchingRulesTests.request(
        id: 1, player: 1, start: start + Self.hour + Self.hour / 2, end: start + 5 * Self.hour)
      #expect(index.search(for: query, limit: 10).candidates.map(\.requestID) == [7, 8])
    }
  }

  @Test("indexes over one table of places each hold and answer what a scan of their own gives")
  func sharedPlaces_eachIndexMatchesItsOwnScan() async throws {
    await propertyCheck(count: 120, input: Self.scenes) { scene in
      // A board's parts: one table of places, each request id in one part (by the id, so that
      // a request put again goes to the same part), every removal and level change asked of
      // every part, as the board asks of the parts it cannot tell apart.
      let places = MatchIndex.Places()
      let parts = 3
      var indexes = (0..<parts).map { _ in
        MatchIndex(
          cellDegrees: scene.cellDegrees, splitCellsAbove: scene.splitCellsAbove, places: places)
      }
      var models = Array(repeating: Model(), count: parts)
      var ids = Set<Int64>()
      for operation in scene.operations {
        switch operation {
        case .insert(let request):
          let part = Int(request.id % Int64(parts))
          indexes[part].insert(request)
          models[part].apply(operation)
          ids.insert(request.id)
        case .remove(let id):
          for part in 0..<parts {
            #expect(indexes[part].remove(id) == models[part].current(id))
            models[part].apply(operation)
          }
        case .updateLevel(let playerID, let level):
          for part in 0..<parts {
            indexes[part].updateLevel(playerID: playerID, level: level)
            models[part].apply(operation)
          }
        case .removeExpired(let now):
          for part in 0..<parts {
            let expected = models[part].requests.values.filter { $0.slot.endUnixMs <= now }
            #expect(
              indexes[part].removeExpired(nowUnixMs: now) == expected.map(\.id).sorted())
            models[part].apply(operation)
          }
        }
      }
      let isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }
      for part in 0..<parts {
        let (index, model) = (indexes[part], models[part])
        #expect(index.count == model.requests.count)
        for id in ids {
          #expect(index.request(id) == model.current(id))
          #expect(index.contains(id) == (model.requests[id] != nil))
        }
        #expect(Set(index.requests) == Set(model.requests.keys.compactMap(model.current)))
        for player in Int64(1)...45 {
          #expect(
            index.hasRequests(of: player)
              == model.requests.values.contains { $0.playerID == player })
        }
        for query in scene.queries {
          let page = index.search(for: query, excluding: [], isBusy: isBusy, limit: 100_000)
          #expect(page.candidates == model.scan(query, excluded: [], isBusy: isBusy))
        }
      }
    }
  }

  @Test("a copy of an index with places of its own changes apart from it")
  func ownPlaces_copyIsAValue() {
    var rng = Xoshiro(seed: (7, 11, 13, 17))
    let style = Self.style(&rng)
    var index = MatchIndex()
    var model = Model()
    for id in Int64(1)...200 {
      let request = Self.request(id: id, style, &rng)
      index.insert(request)
      model.apply(.insert(request))
    }
    let before = index
    let beforeModel = model
    for id in Int64(1)...100 {
      index.remove(id)
      model.apply(.remove(id))
    }
    let moved = Self.request(id: 150, style, &rng)
    index.insert(moved)
    model.apply(.insert(moved))
    for id in Int64(1)...200 {
      #expect(before.request(id) == beforeModel.current(id))
      #expect(index.request(id) == model.current(id))
    }
    #expect(before.count == 200)
    #expect(index.count == 100)
  }
}
