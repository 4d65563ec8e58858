/// One participant's rating of another, as submitted.
public struct SurveyRating: Hashable, Sendable {
  /// The rated participant.
  public var ratedID: Int64
  /// The level the rated player played at, 1-9.
  public var skillLevel: Int
  /// Whether they were on time; nil when the rater did not answer.
  public var punctual: Bool?
  /// Their character, 1-5.
  public var character: Int

  /// A rating with the given fields.
  public init(ratedID: Int64, skillLevel: Int, punctual: Bool?, character: Int) {
    self.ratedID = ratedID
    self.skillLevel = skillLevel
    self.punctual = punctual
    self.character = character
  }
}

/// Where a participant's survey of a match stands.
public enum SurveyStatus: Hashable, Sendable {
  /// Waiting for the participant's ratings.
  case pending
  /// Submitted; it counts.
  case submitted
  /// Its 48 hours passed first; it never counts.
  case expired
}

/// The rules of completing a match and of its surveys: the result, the deadline, and what a
/// valid survey holds.
public enum SurveyRules {
  /// The most ratings one survey may carry: a doubles match has 3 other players.
  public static let maximumRatings = 3

  /// How long a participant has to submit their survey: 48 hours from completion.
  public static let answerWindowMs: Int64 = 48 * 3_600_000
  /// Skill ratings peers may give.
  public static let skillLevels = 1...9
  /// Character ratings peers may give.
  public static let characterRatings = 1...5

  /// When a survey of a match completed at `completedAtUnixMs` is due.
  public static func dueAt(completedAtUnixMs: Int64) -> Int64 {
    completedAtUnixMs + answerWindowMs
  }

  /// Whether a survey due at `dueAtUnixMs` has expired at `nowUnixMs`: from the due instant on.
  public static func isExpired(dueAtUnixMs: Int64, nowUnixMs: Int64) -> Bool {
    nowUnixMs >= dueAtUnixMs
  }

  /// Checks that a survey at `status`, due at `dueAtUnixMs`, may be submitted at `nowUnixMs`:
  /// not submitted before (`SURVEY_ALREADY_SUBMITTED`), pending and not expired
  /// (`SURVEY_EXPIRED`).
  public static func checkSubmission(status: SurveyStatus, dueAtUnixMs: Int64, nowUnixMs: Int64)
    throws(DomainError)
  {
    guard status != .submitted else { throw SurveyErrors.alreadySubmitted }
    guard status == .pending, !isExpired(dueAtUnixMs: dueAtUnixMs, nowUnixMs: nowUnixMs) else {
      throw SurveyErrors.expired
    }
  }

  /// Checks that `playerID` may record the result of a match played by `participants`: only a
  /// participant may; to anyone else the match does not exist (`MATCH_NOT_FOUND`).
  public static func checkRecorder(playerID: Int64, participants: [Int64]) throws(DomainError) {
    guard participants.contains(playerID) else { throw MatchingErrors.matchNotFound }
  }

  /// Checks the winning team of a result: 1 or 2.
  public static func validateWinningTeam(_ team: Int) throws(DomainError) {
    guard team == 1 || team == 2 else {
      throw DomainError.invalidField(
        "winning_team", "WINNING_TEAM_INVALID", en: "The winning team must be 1 or 2.",
        zhCN: "获胜方须为 1 或 2。")
    }
  }

  /// The problems of `ratings` by `raterID` of a match played by `participants`, each naming
  /// its field (`ratings[1].skill_level`); empty when the survey is valid. A valid survey rates
  /// every other participant exactly once, with a skill level 1-9, a punctuality answer and a
  /// character rating 1-5.
  public static func violations(
    of ratings: [SurveyRating], raterID: Int64, participants: [Int64]
  ) -> [DomainError.Violation] {
    var violations: [DomainError.Violation] = []
    let players = Set(participants)
    var rated: Set<Int64> = []
    for (index, rating) in ratings.enumerated() {
      let field = "ratings[\(index)]"
      if rating.ratedID == raterID {
        violations.append(
          .init(
            field: "\(field).user_id", reason: "CANNOT_RATE_SELF",
            en: "You cannot rate yourself.", zhCN: "不能评价自己。"))
      } else if !players.contains(rating.ratedID) {
        violations.append(
          .init(
            field: "\(field).user_id", reason: "RATED_PLAYER_NOT_IN_MATCH",
            en: "Player \(rating.ratedID) did not play in this match.",
            zhCN: "球友 \(rating.ratedID) 未参加这场比赛。"))
      } else if !rated.insert(rating.ratedID).inserted {
        violations.append(
          .init(
            field: "\(field).user_id", reason: "RATED_PLAYER_DUPLICATE",
            en: "Player \(rating.ratedID) is rated more than once.",
            zhCN: "球友 \(rating.ratedID) 被重复评价。"))
      }
      if !skillLevels.contains(rating.skillLevel) {
        violations.append(
          .init(
            field: "\(field).skill_level", reason: "SKILL_RATING_OUT_OF_RANGE",
            en: "The skill level must be 1 to 9.", zhCN: "技术水平评分须为 1 到 9。"))
      }
      if rating.punctual == nil {
        violations.append(
          .init(
            field: "\(field).punctuality", reason: "PUNCTUALITY_REQUIRED",
            en: "Say whether the player was on time.", zhCN: "请选择该球友是否准时。"))
      }
      if !characterRatings.contains(rating.character) {
        violations.append(
          .init(
            field: "\(field).character", reason: "CHARACTER_RATING_OUT_OF_RANGE",
            en: "The character rating must be 1 to 5.", zhCN: "人品评分须为 1 到 5。"))
      }
    }
    for player in participants where player != raterID && !rated.contains(player) {
      violations.append(
        .init(
          field: "ratings", reason: "RATING_MISSING",
          en: "Rate every other player of the match; player \(player) is missing.",
          zhCN: "请评价比赛中的每位其他球友，缺少球友 \(player)。"))
    }
    return violations
  }

  /// Throws INVALID_ARGUMENT / SURVEY_INVALID with every violation when `ratings` is not a
  /// valid survey (see `violations(of:raterID:participants:)`).
  public static func validate(_ ratings: [SurveyRating], raterID: Int64, participants: [Int64])
    throws(DomainError)
  {
    let violations = violations(of: ratings, raterID: raterID, participants: participants)
    guard violations.isEmpty else {
      throw DomainError(
        .invalidArgument, "SURVEY_INVALID",
        en: "The survey is incomplete or has ratings out of range.",
        zhCN: "问卷不完整或评分超出范围。", violations: violations)
    }
  }
}

/// The errors of completing matches and submitting surveys.
public enum SurveyErrors {
  /// The survey's 48 hours have passed (reference README: 问卷已过期，无法提交).
  public static let expired = DomainError(
    .failedPrecondition, "SURVEY_EXPIRED",
    en: "This survey has expired and can no longer be submitted.", zhCN: "问卷已过期，无法提交")

  /// The caller already submitted their survey of this match.
  public static let alreadySubmitted = DomainError(
    .alreadyExists, "SURVEY_ALREADY_SUBMITTED",
    en: "You already submitted your survey of this match.", zhCN: "您已提交过这场比赛的问卷。")

  /// The caller has no survey of this match: not a participant, or the match is not completed.
  public static let notFound = DomainError(
    .notFound, "SURVEY_NOT_FOUND", en: "You have no survey for this match.",
    zhCN: "您没有这场比赛的问卷。")

  /// The match's start time has not come yet.
  public static let matchNotStarted = DomainError(
    .failedPrecondition, "MATCH_NOT_STARTED",
    en: "The match has not started; record the result once it has.",
    zhCN: "比赛尚未开始，开始后才能记录结果。")
}
