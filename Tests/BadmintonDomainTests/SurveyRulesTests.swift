import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("Survey rules and reputation formulas (properties 3, 4, 19 and 20)")
struct SurveyRulesTests {
  /// One generated rating entry: skill, punctuality, character.
  typealias Fields = (skill: Int, punctual: Bool?, character: Int)

  /// Rating fields: 7 times in 10 all in range, otherwise anything around the ranges.
  private static let fields = zip(
    Gen.int(in: -2...12), Gen.int(in: 0...11), Gen.int(in: -1...7), Gen.int(in: 0...9)
  ).map { drawn -> Fields in
    let (skill, punctual, character, roll) = drawn
    guard roll >= 7 else {
      return (min(max(skill, 1), 9), punctual % 2 == 0, min(max(character, 1), 5))
    }
    return (skill, punctual == 0 ? nil : punctual % 2 == 0, character)
  }

  @Test(
    "property 19: for any set of ratings, a survey is accepted iff it rates every other participant once with all three fields in range"
  )
  func validate_matchesOracle() async {
    let input = zip(
      Gen.bool(), Gen.int(in: 0...13), Self.fields.array(of: 5...5), Gen.int(in: 0...3))
    await propertyCheck(count: 3000, input: input) { doubles, mutation, fields, shift in
      let rater: Int64 = 10
      let participants: [Int64] = doubles ? [10, 11, 12, 13] : [11, 10]
      let outsider: Int64 = 99
      var ids = participants.filter { $0 != rater }
      // Some order; then, sometimes, one thing wrong with who is rated.
      ids = Array(ids[(shift % ids.count)...] + ids[..<(shift % ids.count)])
      switch mutation {
      case 8: ids.removeLast()
      case 9: ids.append(ids[0])
      case 10: ids[0] = rater
      case 11: ids[0] = outsider
      case 12: ids.append(outsider)
      case 13: ids = []
      default: break
      }
      let ratings = ids.enumerated().map { index, id in
        let f = fields[index % fields.count]
        return SurveyRating(
          ratedID: id, skillLevel: f.skill, punctual: f.punctual, character: f.character)
      }
      // The oracle: a multiset comparison and a scan of the fields.
      let others = participants.filter { $0 != rater }.sorted()
      let fieldsValid = ratings.allSatisfy {
        (1...9).contains($0.skillLevel) && $0.punctual != nil && (1...5).contains($0.character)
      }
      let valid = ratings.map(\.ratedID).sorted() == others && fieldsValid
      let violations = SurveyRules.violations(
        of: ratings, raterID: rater, participants: participants)
      #expect(violations.isEmpty == valid)
      let named = Set(violations.map(\.field))
      for (index, rating) in ratings.enumerated() {
        #expect(
          named.contains("ratings[\(index)].skill_level") == !(1...9).contains(rating.skillLevel))
        #expect(named.contains("ratings[\(index)].punctuality") == (rating.punctual == nil))
        #expect(
          named.contains("ratings[\(index)].character") == !(1...5).contains(rating.character))
        let badID =
          rating.ratedID == rater || !participants.contains(rating.ratedID)
          || ratings[..<index].contains { $0.ratedID == rating.ratedID }
        #expect(named.contains("ratings[\(index)].user_id") == badID)
      }
      let missing = others.contains { id in !ratings.contains { $0.ratedID == id } }
      #expect(named.contains("ratings") == missing)
      let thrown = Result { () throws(DomainError) in
        try SurveyRules.validate(ratings, raterID: rater, participants: participants)
      }
      if valid {
        #expect(thrown.failure == nil)
      } else {
        #expect(thrown.failure?.reason == "SURVEY_INVALID")
        #expect(thrown.failure?.kind == .invalidArgument)
        #expect(thrown.failure?.violations == violations)
      }
    }
  }

  @Test("property 20: a survey is expired from exactly 48 hours after completion")
  func deadline_boundary() async {
    let hours48: Int64 = 48 * 3_600_000
    await propertyCheck(
      count: 1000, input: Gen.int(in: 0...2_000_000_000), Gen.int(in: -5...5)
    ) { completed, offset in
      let completedAt = Int64(completed) * 1000
      let due = SurveyRules.dueAt(completedAtUnixMs: completedAt)
      #expect(due == completedAt + hours48)
      let now = due + Int64(offset)
      #expect(SurveyRules.isExpired(dueAtUnixMs: due, nowUnixMs: now) == (offset >= 0))
    }
    let due = SurveyRules.dueAt(completedAtUnixMs: 0)
    #expect(!SurveyRules.isExpired(dueAtUnixMs: due, nowUnixMs: due - 1))
    #expect(SurveyRules.isExpired(dueAtUnixMs: due, nowUnixMs: due))
    #expect(SurveyErrors.expired.zhCN == "问卷已过期，无法提交")
  }

  @Test("the winning team is 1 or 2")
  func winningTeam() {
    for team in -1...4 {
      let outcome = Result { () throws(DomainError) in try SurveyRules.validateWinningTeam(team) }
      #expect((outcome.failure == nil) == (team == 1 || team == 2))
      if team != 1 && team != 2 {
        #expect(outcome.failure?.violations.map(\.field) == ["winning_team"])
      }
    }
  }

  /// One rating as it arrives: the rated player's self level at that moment and the answers.
  typealias Arrival = (selfLevel: Int, skill: Int, punctual: Bool, character: Int)

  @Test(
    "for any sequence of ratings, the running totals give the averages an oracle computes from the whole list"
  )
  func reputation_matchesOracle() async {
    let arrival = zip(Gen.int(in: 1...9), Gen.int(in: 1...9), Gen.bool(), Gen.int(in: 1...5))
      .map { drawn -> Arrival in
        (selfLevel: drawn.0, skill: drawn.1, punctual: drawn.2, character: drawn.3)
      }
    await propertyCheck(count: 1000, input: arrival.array(of: 0...40)) { arrivals in
      var totals = ReputationTotals.zero
      for a in arrivals {
        totals = totals.adding(
          SurveyRating(
            ratedID: 1, skillLevel: a.skill, punctual: a.punctual, character: a.character),
          selfLevel: a.selfLevel)
      }
      let score = totals.score
      guard !arrivals.isEmpty else {
        #expect(score == .empty)
        return
      }
      // The oracle: exact rationals, as Decimal, from the whole list.
      let n = Decimal(arrivals.count)
      let accuracy = Decimal(arrivals.map { abs($0.skill - $0.selfLevel) }.reduce(0, +)) / n
      let punctuality = Decimal(arrivals.filter(\.punctual).count * 100) / n
      let character = Decimal(arrivals.map(\.character).reduce(0, +)) / n
      #expect(score.evaluationCount == arrivals.count)
      #expect(abs(Decimal(score.averageSkillAccuracy) - accuracy) < Decimal(string: "1e-12")!)
      #expect(abs(Decimal(score.punctualityPercentage) - punctuality) < Decimal(string: "1e-10")!)
      #expect(abs(Decimal(score.averageCharacterRating) - character) < Decimal(string: "1e-12")!)
      #expect(totals.skillRatingSum == arrivals.map(\.skill).reduce(0, +))
    }
  }

  @Test(
    "properties 3 and 4: from 5 ratings the shown level is round(0.3 s + 0.7 avg), halves away from zero; below 5 the self level and the new-player flag"
  )
  func displayLevel_matchesDecimalOracle() async {
    await propertyCheck(
      count: 2000, input: Gen.int(in: 1...9), Gen.int(in: 1...9).array(of: 0...60)
    ) { selfLevel, ratings in
      let display = SkillRating.displayLevel(
        selfLevel: selfLevel, peerRatingSum: ratings.reduce(0, +), peerRatingCount: ratings.count)
      guard ratings.count >= 5 else {
        #expect(display.level == selfLevel)
        #expect(display.isNewPlayer)
        return
      }
      // 0.3 s + 0.7 avg in Decimal, rounded half away from zero (.plain).
      var exact =
        Decimal(3 * selfLevel) / 10 + Decimal(7 * ratings.reduce(0, +))
        / Decimal(10 * ratings.count)
      var rounded = Decimal()
      NSDecimalRound(&rounded, &exact, 0, .plain)
      #expect(display.level == NSDecimalNumber(decimal: rounded).intValue)
      #expect(!display.isNewPlayer)
    }
  }

  @Test("the worked example of docs/surveys.md")
  func workedExample() {
    // Self level 6; peers rate 5, 7, 6, 5, 6 with punctual yes, no, yes, yes, yes and character
    // 4, 5, 3, 4, 4.
    let answers: [(Int, Bool, Int)] = [
      (5, true, 4), (7, false, 5), (6, true, 3), (5, true, 4), (6, true, 4),
    ]
    var totals = ReputationTotals.zero
    for (skill, punctual, character) in answers {
      totals = totals.adding(
        SurveyRating(ratedID: 1, skillLevel: skill, punctual: punctual, character: character),
        selfLevel: 6)
    }
    #expect(
      totals
        == ReputationTotals(
          evaluationCount: 5, skillRatingSum: 29, skillDeviationSum: 3, punctualCount: 4,
          characterSum: 20))
    #expect(
      totals.score
        == ReputationScore(
          averageSkillAccuracy: 0.6, punctualityPercentage: 80, averageCharacterRating: 4,
          evaluationCount: 5))
    // round(0.3 x 6 + 0.7 x 29/5) = round(1.8 + 4.06) = round(5.86) = 6.
    #expect(SkillRating.calculatedLevel(selfLevel: 6, peerRatingSum: 29, peerRatingCount: 5) == 6)
  }
}
