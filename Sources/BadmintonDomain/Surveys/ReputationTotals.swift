/// The exact integer sums a player's reputation is computed from. Every formula of the
/// reputation lives here: the store keeps these sums and writes the averages `score` gives, in
/// the transaction that adds a survey, so nothing drifts. See docs/surveys.md.
public struct ReputationTotals: Hashable, Sendable {
  /// Surveys that rated the player.
  public var evaluationCount: Int
  /// Sum of the skill levels peers gave (the calculated level's `peer_rating_sum`).
  public var skillRatingSum: Int
  /// Sum of |skill level given - the player's self-reported level when the survey was accepted|.
  public var skillDeviationSum: Int
  /// Ratings that said the player was on time.
  public var punctualCount: Int
  /// Sum of the character ratings.
  public var characterSum: Int

  /// Totals with the given sums.
  public init(
    evaluationCount: Int, skillRatingSum: Int, skillDeviationSum: Int, punctualCount: Int,
    characterSum: Int
  ) {
    self.evaluationCount = evaluationCount
    self.skillRatingSum = skillRatingSum
    self.skillDeviationSum = skillDeviationSum
    self.punctualCount = punctualCount
    self.characterSum = characterSum
  }

  /// The totals of a player nobody has rated.
  public static let zero = ReputationTotals(
    evaluationCount: 0, skillRatingSum: 0, skillDeviationSum: 0, punctualCount: 0, characterSum: 0)

  /// The totals after one more rating, given to a player whose self-reported level is
  /// `selfLevel` at that moment.
  public func adding(_ rating: SurveyRating, selfLevel: Int) -> ReputationTotals {
    var next = self
    next.evaluationCount += 1
    next.skillRatingSum += rating.skillLevel
    next.skillDeviationSum += abs(rating.skillLevel - selfLevel)
    next.punctualCount += rating.punctual == true ? 1 : 0
    next.characterSum += rating.character
    return next
  }

  /// The reputation these sums give: skill accuracy = deviation sum / n, punctuality =
  /// 100 x on-time count / n, character = character sum / n; `ReputationScore.empty` for n = 0.
  public var score: ReputationScore {
    guard evaluationCount > 0 else { return .empty }
    let n = Double(evaluationCount)
    return ReputationScore(
      averageSkillAccuracy: Double(skillDeviationSum) / n,
      punctualityPercentage: Double(punctualCount * 100) / n,
      averageCharacterRating: Double(characterSum) / n, evaluationCount: evaluationCount)
  }
}
