import BadmintonDomain
import PropertyBased
import Testing

@Suite("Skill levels (properties 2, 3 and 4)")
struct SkillRatingTests {
  /// Oracle for property 3: the level L in 1...9 nearest to 0.3 s + 0.7 avg, ties to the larger,
  /// compared exactly in tenths times the count.
  private func oracleLevel(selfLevel: Int, ratings: [Int]) -> Int {
    let n = ratings.count
    let target = 3 * selfLevel * n + 7 * ratings.reduce(0, +)  // = 10 n x the exact value
    var best = 1
    for level in 1...9 {
      let distance = abs(10 * n * level - target)
      let bestDistance = abs(10 * n * best - target)
      if distance < bestDistance || (distance == bestDistance && level > best) { best = level }
    }
    return best
  }

  private static let ratings = Gen.int(in: 1...9).array(of: 0...40)

  @Test("property 3: from 5 evaluations the level is round(0.3 x self + 0.7 x average)")
  func calculatedLevel_matchesOracle() async {
    await propertyCheck(count: 1000, input: Gen.int(in: 1...9), Self.ratings) {
      selfLevel, ratings in
      let calculated = SkillRating.calculatedLevel(
        selfLevel: selfLevel, peerRatingSum: ratings.reduce(0, +), peerRatingCount: ratings.count)
      if ratings.isEmpty {
        #expect(calculated == nil)
      } else {
        #expect(calculated == oracleLevel(selfLevel: selfLevel, ratings: ratings))
      }
      let display = SkillRating.displayLevel(
        selfLevel: selfLevel, peerRatingSum: ratings.reduce(0, +), peerRatingCount: ratings.count)
      if ratings.count >= 5 {
        #expect(display.level == oracleLevel(selfLevel: selfLevel, ratings: ratings))
        #expect(!display.isNewPlayer)
      } else {
        // Property 4: below 5 evaluations, the self level and the new-player flag.
        #expect(display.level == selfLevel)
        #expect(display.isNewPlayer)
      }
    }
  }

  @Test("halves round away from zero")
  func halves_roundUp() {
    // s = 1 and seven ratings summing to 12: 0.3 + 0.7 x 12/7 = 1.5 exactly.
    #expect(SkillRating.calculatedLevel(selfLevel: 1, peerRatingSum: 12, peerRatingCount: 7) == 2)
    // s = 5 and ratings averaging 5.5: 1.5 + 3.85 = 5.35.
    #expect(SkillRating.calculatedLevel(selfLevel: 5, peerRatingSum: 11, peerRatingCount: 2) == 5)
  }

  @Test("property 2: levels 1-7 may be self-assigned; 8 and 9 need verification")
  func selfAssignment() async {
    await propertyCheck(count: 200, input: Gen.int(in: -5...15), Gen.int(in: 7...9)) {
      level, verified in
      let outcome = Result { () throws(DomainError) in
        try PlayerRules.validateSelfLevel(level, verifiedMaximum: verified)
      }
      switch level {
      case 1...7:
        #expect((try? outcome.get()) != nil)
      case 8, 9:
        if level <= verified {
          #expect((try? outcome.get()) != nil)
        } else {
          #expect(outcome.failureReason == "SKILL_LEVEL_REQUIRES_VERIFICATION")
        }
      default:
        #expect(outcome.failureReason == "SKILL_LEVEL_OUT_OF_RANGE")
      }
    }
    #expect(
      Result { () throws(DomainError) in try PlayerRules.validateSelfLevel(8) }.failure?.zhCN
        == "8-9级需要赛事认证，请选择1-7级")
  }

  @Test("the win rate is wins over games in percent, 0 with no games")
  func winRate() {
    #expect(SkillRating.winRate(wins: 0, totalGames: 0) == 0)
    #expect(SkillRating.winRate(wins: 3, totalGames: 4) == 75)
  }
}

extension Result where Failure == DomainError {
  var failure: DomainError? {
    if case .failure(let error) = self { return error }
    return nil
  }
  var failureReason: String? { failure?.reason }
}
