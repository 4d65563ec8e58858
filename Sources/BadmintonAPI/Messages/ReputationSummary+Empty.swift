extension ReputationSummary {
  /// The summary of a player with no evaluations yet: accuracy 0, punctuality 100, character 3.
  public static let empty = ReputationSummary(
    evaluationCount: 0, averageSkillAccuracy: 0, punctualityPercentage: 100,
    averageCharacterRating: 3)
}
