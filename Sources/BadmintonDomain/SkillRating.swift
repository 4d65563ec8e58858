/// How peers rated a player: the reputation summary shown beside every player.
public struct ReputationScore: Hashable, Sendable {
  /// Average distance between peers' skill ratings and the self-reported level (0 = exact).
  public var averageSkillAccuracy: Double
  /// Share of matches the player was on time for, 0-100.
  public var punctualityPercentage: Double
  /// Average character rating, 1-5.
  public var averageCharacterRating: Double
  /// Number of peer evaluations.
  public var evaluationCount: Int

  /// A score with the given figures.
  public init(
    averageSkillAccuracy: Double, punctualityPercentage: Double, averageCharacterRating: Double,
    evaluationCount: Int
  ) {
    self.averageSkillAccuracy = averageSkillAccuracy
    self.punctualityPercentage = punctualityPercentage
    self.averageCharacterRating = averageCharacterRating
    self.evaluationCount = evaluationCount
  }

  /// The score of a player nobody has rated yet.
  public static let empty = ReputationScore(
    averageSkillAccuracy: 0, punctualityPercentage: 100, averageCharacterRating: 3,
    evaluationCount: 0)
}

/// The skill level rules: the calculated level, the displayed level and the new-player flag.
/// Every place that shows a level takes it from here.
public enum SkillRating {
  /// Peer evaluations needed before the calculated level is shown.
  public static let evaluationsForCalculatedLevel = 5

  /// round(0.3 x self + 0.7 x average peer rating), halves away from zero, computed exactly
  /// from the sum and count of peer ratings; nil without ratings.
  public static func calculatedLevel(selfLevel: Int, peerRatingSum: Int, peerRatingCount: Int)
    -> Int?
  {
    guard peerRatingCount > 0 else { return nil }
    // 0.3 s + 0.7 sum / n = (3 s n + 7 sum) / (10 n); both parts are non-negative.
    let numerator = 3 * selfLevel * peerRatingCount + 7 * peerRatingSum
    let denominator = 10 * peerRatingCount
    return (2 * numerator + denominator) / (2 * denominator)
  }

  /// The level shown for a player and whether they are a new player: the self-reported level
  /// and `true` below 5 evaluations, the calculated level and `false` from then on.
  public static func displayLevel(selfLevel: Int, peerRatingSum: Int, peerRatingCount: Int)
    -> (level: Int, isNewPlayer: Bool)
  {
    guard peerRatingCount >= evaluationsForCalculatedLevel,
      let calculated = calculatedLevel(
        selfLevel: selfLevel, peerRatingSum: peerRatingSum, peerRatingCount: peerRatingCount)
    else { return (selfLevel, true) }
    return (calculated, false)
  }

  /// Wins as a percentage of games, 0 with no games.
  public static func winRate(wins: Int, totalGames: Int) -> Double {
    totalGames > 0 ? Double(wins) / Double(totalGames) * 100 : 0
  }
}
