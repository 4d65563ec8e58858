import BadmintonDomain
import PropertyBased
import Testing

@Suite("Match rules, result order and doubles teams (property 14)")
struct MatchingRulesTests {
  static func error(_ body: () throws -> Void) -> DomainError? {
    MatchingTimeSlotTests.error(body)
  }

  @Test("modes are named in both languages")
  func modes_names() {
    #expect(MatchMode.singles.zhCN == "单打")
    #expect(MatchMode.doubles.zhCN == "双打")
    #expect(MatchMode.allCases.map(\.en) == ["Singles", "Doubles"])
  }

  @Test("radius is more than 0 and at most 50 miles; tolerance is 0 to 8 levels")
  func radiusAndTolerance_validation() async throws {
    await propertyCheck(count: 1000, input: Gen.double(in: -10...60)) { miles in
      let error = Self.error { _ = try MatchRules.validateRadius(miles) }
      #expect((error == nil) == (miles > 0 && miles <= 50))
      #expect(error == nil || error?.violations.map(\.field) == ["radius_miles"])
      #expect(error == nil || error?.reason == "RADIUS_OUT_OF_RANGE")
    }
    for miles in [0, -0.0, .nan, .infinity, 50.000_001] {
      #expect(
        Self.error { _ = try MatchRules.validateRadius(miles) }?.reason == "RADIUS_OUT_OF_RANGE")
    }
    #expect(try MatchRules.validateRadius(50) == 50)
    for levels in -2...10 {
      let error = Self.error { _ = try MatchRules.validateSkillTolerance(levels) }
      #expect((error == nil) == (0...8).contains(levels))
      #expect(error == nil || error?.violations.map(\.field) == ["skill_tolerance"])
      #expect(error == nil || error?.reason == "SKILL_TOLERANCE_INVALID")
    }
  }

  /// Candidates with few distinct keys, so that ties on every part of the order come up.
  static let candidates = Generator { rng in
    let count = Int.random(in: 0...40, using: &rng)
    return (0..<count).map { index in
      MatchCandidate(
        requestID: Int64(index * 7 % 41),
        playerID: Int64.random(in: 1...5, using: &rng),
        distanceMiles: [0, 1.5, 2, Double.random(in: 0...50, using: &rng)].randomElement(
          using: &rng)!,
        skillDifference: Int.random(in: 0...3, using: &rng),
        overlap: TimeSlot(startUnixMs: 0, endUnixMs: 1_800_000),
        postedAtUnixMs: Int64.random(in: 0...3, using: &rng))
    }
  }

  @Test("property 14: results come by skill difference, then distance, then posting, then id")
  func order_isLexicographic() async {
    await propertyCheck(count: 1000, input: Self.candidates) { candidates in
      let sorted = candidates.sorted(by: MatchCandidate.precedes)
      for (a, b) in zip(sorted, sorted.dropFirst()) {
        #expect(
          a.skillDifference < b.skillDifference
            || (a.skillDifference == b.skillDifference && a.distanceMiles <= b.distanceMiles))
        // Oracle: the whole key, compared part by part.
        let strictlyBefore =
          a.skillDifference != b.skillDifference
          ? a.skillDifference < b.skillDifference
          : a.distanceMiles != b.distanceMiles
            ? a.distanceMiles < b.distanceMiles
            : a.postedAtUnixMs != b.postedAtUnixMs
              ? a.postedAtUnixMs < b.postedAtUnixMs : a.requestID < b.requestID
        #expect(strictlyBefore)
      }
      // A total order: any starting order sorts the same.
      #expect(candidates.reversed().sorted(by: MatchCandidate.precedes) == sorted)
    }
  }

  @Test("page tokens name a cursor and nothing else")
  func cursorTokens() async throws {
    await propertyCheck(
      count: 1000, input: Gen.int(in: 0...8), Gen.int(in: 1...100), Gen.int64(in: 0...Int64.max),
      Gen.int64(in: 1...Int64.max)
    ) { skill, bands, posted, id throws in
      let cursor = MatchCursor(
        skillDifference: skill, distanceMiles: Double(bands) * LocationPrivacy.bandMiles,
        postedAtUnixMs: posted, requestID: id)
      #expect(try MatchCursor(token: cursor.token) == cursor)
    }
    let valid = MatchCursor(
      skillDifference: 1, distanceMiles: 2.5, postedAtUnixMs: 3, requestID: 4
    ).token
    #expect(valid == "matches.1.5.3.4")
    for token in [
      "", "matches.1.5.3", "matches.1.5.3.4.5", "matches.x.5.3.4", "matches.9.5.3.4",
      "matches.-1.5.3.4", "matches.+1.5.3.4", "matches.01.5.3.4", "matches.1.5.3.",
      "matches. ", "matches.1.05.3.4", "matches.1.+5.3.4", "matches.1.-0.3.4", "matches.1.0.3.4",
      "matches.1.101.3.4", "matches.1.nan.3.4", "matches.1.inf.3.4", "matches.1.-inf.3.4",
      "matches.1.2.5.3.4", "matches.1.5e0.3.4", "matches.1.4004000000000000.3.4",
      "matches.1.7ff8000000000000.3.4", "matches.1.5.-1.3", "matches.1.5.-0.4",
      "matches.1.5.-9223372036854775808.4", "matches.1.5.3.-9223372036854775808", "matches.1.5.3.0",
      "matches.1.5.3.-0", "matches.1.5.3.9223372036854775808", "matches.1.5.3.+4",
      "matches.1.5.3.4\0", "matches.1.5.3.٤", "1.5.3.4", "threads.1.5.3.4", "nearby.5.4",
      valid + " ", " " + valid,
    ] {
      let error = Self.error { _ = try MatchCursor(token: token) }
      #expect(error?.reason == "PAGE_TOKEN_INVALID", "\(token)")
      #expect(error?.violations.map(\.field) == ["page_token"])
    }
  }

  /// A request with the given place, time, level and limits.
  static func request(
    id: Int64, player: Int64, mode: MatchMode = .singles, start: Int64 = 0,
    end: Int64 = 7_200_000, latitude: Double = 31.23, longitude: Double = 121.47,
    radius: Double = 50, tolerance: Int = 2, level: Int = 5
  ) -> MatchRequest {
    MatchRequest(
      id: id, playerID: player, mode: mode,
      slot: TimeSlot(startUnixMs: start, endUnixMs: end),
      location: Coordinate(latitude: latitude, longitude: longitude), radiusMiles: radius,
      skillTolerance: tolerance, displayLevel: level, postedAtUnixMs: 0)
  }

  @Test("two requests fit by the rules, whichever side asks")
  func candidate_rules() {
    let a = Self.request(id: 1, player: 1)
    #expect(MatchRules.candidate(Self.request(id: 2, player: 1), for: a) == nil)
    #expect(MatchRules.candidate(Self.request(id: 2, player: 2, mode: .doubles), for: a) == nil)
    // 29 minutes in common is too little, 30 is enough.
    #expect(
      MatchRules.candidate(Self.request(id: 2, player: 2, start: 5_460_000, end: 9_000_000), for: a)
        == nil)
    let fit = MatchRules.candidate(
      Self.request(id: 2, player: 2, start: 5_400_000, end: 9_000_000), for: a)
    #expect(fit?.overlap == TimeSlot(startUnixMs: 5_400_000, endUnixMs: 7_200_000))
    // The tighter tolerance and the smaller radius of the two apply.
    #expect(
      MatchRules.candidate(Self.request(id: 2, player: 2, tolerance: 0, level: 6), for: a) == nil)
    #expect(
      MatchRules.candidate(Self.request(id: 2, player: 2, level: 7), for: a)?.skillDifference == 2)
    // 0.1 degrees of latitude is about 6.9 miles.
    let near = Self.request(id: 2, player: 2, latitude: 31.33, radius: 6)
    #expect(MatchRules.candidate(near, for: a) == nil)
    #expect(MatchRules.candidate(a, for: near) == nil)
    var wider = near
    wider.radiusMiles = 7
    #expect(MatchRules.candidate(wider, for: a) != nil)
    #expect(MatchRules.candidate(a, for: wider) != nil)
  }

  @Test("doubles teams: the split with the closest level sums, ties to the lowest ids")
  func doublesTeams_matchOracle() async {
    let players = Generator { rng in
      var ids = Set<Int64>()
      while ids.count < 4 { ids.insert(Int64.random(in: 1...20, using: &rng)) }
      return ids.shuffled(using: &rng).map { ($0, Int.random(in: 1...9, using: &rng)) }
    }
    await propertyCheck(count: 2000, input: players) { players in
      let teams = DoublesTeams.balanced(players.map { (playerID: $0.0, level: $0.1) })
      // Oracle: all three pairings, each team's ids sorted, the team holding the lowest id
      // first; the smallest gap wins, then the smallest first team.
      let ids = players.map(\.0)
      let level = Dictionary(uniqueKeysWithValues: players)
      var options: [(gap: Int, first: [Int64], second: [Int64])] = []
      for partner in ids where partner != ids[0] {
        let teamA = [ids[0], partner].sorted()
        let teamB = ids.filter { !teamA.contains($0) }.sorted()
        let (first, second) = teamA[0] < teamB[0] ? (teamA, teamB) : (teamB, teamA)
        let gap = abs(
          first.map { level[$0]! }.reduce(0, +) - second.map { level[$0]! }.reduce(0, +))
        options.append((gap, first, second))
      }
      let best = options.min {
        ($0.gap, $0.first[0], $0.first[1]) < ($1.gap, $1.first[0], $1.first[1])
      }!
      #expect(teams == DoublesTeams(first: best.first, second: best.second, levelGap: best.gap))
    }
    let teams = DoublesTeams.balanced([
      (playerID: 4, level: 9), (playerID: 3, level: 3), (playerID: 2, level: 2),
      (playerID: 1, level: 1),
    ])
    #expect(teams == DoublesTeams(first: [1, 4], second: [2, 3], levelGap: 5))
    let even = DoublesTeams.balanced((1...4).map { (playerID: Int64(10 - $0), level: 5) })
    #expect(even == DoublesTeams(first: [6, 7], second: [8, 9], levelGap: 0))
  }
}
