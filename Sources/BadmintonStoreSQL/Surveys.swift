public import BadmintonDomain
public import BadmintonStore

/// Match results, surveys, and the exact sums behind each player's reputation, on either
/// engine. Each write reads the rows it decides on in its own transaction: a match completed
/// twice at once, or one survey submitted twice at once (on this instance or another), commits
/// once, and the write that comes second (or is run again) finds it already done.
extension SurveyStore where Self: StoreEngine {
  public func completeMatch(
    id: Int64, playerID: Int64, winningTeam: Int, now: Int64,
    notify: @escaping @Sendable (MatchCompletion) -> OutgoingEvents
  ) async throws -> MatchCompletion {
    try await writeTransaction { db in
      guard let match = try MatchRows.matches(db, ids: [id])[id] else {
        throw MatchingErrors.matchNotFound
      }
      try SurveyRules.checkRecorder(playerID: playerID, participants: match.playerIDs)
      switch try MatchLifecycle.completion(
        status: match.state.status, slotStartUnixMs: match.slot.startUnixMs, nowUnixMs: now)
      {
      case .alreadyCompleted: return MatchCompletion(match: match, surveys: [])
      case .record: break
      }
      try db.rows(
        SurveyGameComplete.self, StoredMatchState.completed.rawValue, winningTeam, now, playerID,
        id)
      let due = SurveyRules.dueAt(completedAtUnixMs: now)
      var surveys: [SurveyRecord] = []
      for participant in match.participants {
        let won = participant.team == winningTeam ? 1 : 0
        try db.rows(SurveyPlayerCountGame.self, won, participant.playerID)
        try db.rows(
          SurveyInsert.self, id, participant.playerID, StoredSurveyState.pending.rawValue, due)
        surveys.append(
          SurveyRecord(
            matchID: id, evaluatorID: participant.playerID, state: .pending, dueAtUnixMs: due))
      }
      let completion = MatchCompletion(
        match: try MatchRows.matches(db, ids: [id])[id]!, surveys: surveys)
      try Shared.append(db, notify(completion), atUnixMs: now)
      return completion
    }
  }

  public func survey(matchID: Int64, evaluatorID: Int64) async throws -> SurveyRecord? {
    try await readSnapshot { db in
      try Self.fetchSurvey(db, matchID: matchID, evaluatorID: evaluatorID)
    }
  }

  public func pendingSurveys(
    evaluatorID: Int64, now: Int64, after: (dueAtUnixMs: Int64, matchID: Int64)?, limit: Int
  ) async throws -> [SurveyRecord] {
    // The (evaluator, state, due, match) index, read forwards from past the cursor.
    let cursor = after ?? (dueAtUnixMs: now, matchID: Int64.max)
    let (cursorDue, cursorMatch) = (cursor.dueAtUnixMs, cursor.matchID)
    return try await readSnapshot { db in
      try db.rows(
        SurveysPending.self, evaluatorID, StoredSurveyState.pending.rawValue, now, cursorDue,
        cursorMatch, Int64(max(limit, 0))
      ).map(Self.survey(from:))
    }
  }

  public func submitSurvey(matchID: Int64, evaluatorID: Int64, ratings: [SurveyRating], now: Int64)
    async throws -> SurveyRecord
  {
    try await writeTransaction { db in
      guard var survey = try Self.fetchSurvey(db, matchID: matchID, evaluatorID: evaluatorID),
        let match = try MatchRows.matches(db, ids: [matchID])[matchID]
      else { throw SurveyErrors.notFound }
      try SurveyRules.checkSubmission(
        status: survey.state.status, dueAtUnixMs: survey.dueAtUnixMs, nowUnixMs: now)
      try SurveyRules.validate(ratings, raterID: evaluatorID, participants: match.playerIDs)
      let submitted = try db.rows(
        SurveySubmit.self, StoredSurveyState.submitted.rawValue, now, matchID, evaluatorID,
        StoredSurveyState.pending.rawValue)
      // The state was read in this transaction. A second submission beside this one either
      // comes after its commit (SQLite's one writer) or is refused by the database and run
      // again (PostgreSQL); either way it then stops at the check above.
      guard submitted.count == 1 else { throw SurveyErrors.alreadySubmitted }
      for rating in ratings {
        try db.rows(
          SurveyRatingInsert.self, matchID, evaluatorID, rating.ratedID, rating.skillLevel,
          rating.punctual == true ? 1 : 0, rating.character)
        try Self.addRating(db, rating)
      }
      survey.state = .submitted
      survey.submittedAtUnixMs = now
      return survey
    }
  }

  public func expireSurveys(now: Int64) async throws -> Int {
    try await writeTransaction { db in
      // The pending surveys by due time, as far as now; `SurveyRules.isExpired` decides.
      var expired: [(matchID: Int64, evaluatorID: Int64)] = []
      for row in try db.rows(SurveysDue.self, StoredSurveyState.pending.rawValue, now) {
        let (matchID, evaluatorID, due) = try row.decode((Int64, Int64, Int64).self)
        if SurveyRules.isExpired(dueAtUnixMs: due, nowUnixMs: now) {
          expired.append((matchID, evaluatorID))
        }
      }
      for survey in expired {
        try db.rows(
          SurveySetState.self, StoredSurveyState.expired.rawValue, survey.matchID,
          survey.evaluatorID)
      }
      return expired.count
    }
  }

  public func reputationTotals(playerID: Int64) async throws -> ReputationTotals? {
    try await readSnapshot { db in
      try db.row(SurveyPlayerTotals.self, playerID).map { try Self.totals(from: $0).totals }
    }
  }
}

extension SurveyStore where Self: StoreEngine {
  /// Adds one rating to the rated player's totals and rewrites their averages from the new
  /// totals, measured against their self-reported level as it is now.
  private static func addRating(_ db: any StoreSession, _ rating: SurveyRating) throws {
    guard let row = try db.row(SurveyPlayerTotals.self, rating.ratedID) else { return }
    let (before, selfLevel) = try totals(from: row)
    let totals = before.adding(rating, selfLevel: selfLevel)
    let score = totals.score
    try db.rows(
      SurveyPlayerSetTotals.self, totals.evaluationCount, totals.skillRatingSum,
      totals.evaluationCount, totals.skillDeviationSum, totals.punctualCount,
      totals.characterSum, score.averageSkillAccuracy, score.punctualityPercentage,
      score.averageCharacterRating, rating.ratedID)
  }

  /// A player's totals and self-reported level, from a `SurveyPlayerTotals` row.
  private static func totals(from row: StoreRow) throws -> (
    totals: ReputationTotals, selfLevel: Int
  ) {
    let (count, skillSum, deviationSum, punctualCount, characterSum, selfLevel) = try row.decode(
      (Int, Int, Int, Int, Int, Int).self)
    return (
      ReputationTotals(
        evaluationCount: count, skillRatingSum: skillSum, skillDeviationSum: deviationSum,
        punctualCount: punctualCount, characterSum: characterSum),
      selfLevel
    )
  }

  private static func fetchSurvey(_ db: any StoreSession, matchID: Int64, evaluatorID: Int64)
    throws -> SurveyRecord?
  {
    try db.row(SurveyByKey.self, matchID, evaluatorID).map(survey(from:))
  }

  private static func survey(from row: StoreRow) throws -> SurveyRecord {
    let (matchID, evaluatorID, state, due, submittedAt) = try row.decode(
      (Int64, Int64, Int, Int64, Int64?).self)
    return SurveyRecord(
      matchID: matchID, evaluatorID: evaluatorID,
      state: StoredSurveyState(rawValue: state) ?? .expired, dueAtUnixMs: due,
      submittedAtUnixMs: submittedAt)
  }
}

// MARK: Statements

private enum SurveyGameComplete: StoreStatement {
  static let sql = """
    UPDATE game SET state = $1, winning_team = $2, completed_at_ms = $3, completed_by = $4
    WHERE id = $5
    """
}
private enum SurveyPlayerCountGame: StoreStatement {
  static let sql =
    "UPDATE player SET total_games = total_games + 1, wins = wins + $1 WHERE id = $2"
}
private enum SurveyInsert: StoreStatement {
  static let sql = """
    INSERT INTO survey (game_id, evaluator_id, state, due_at_ms) VALUES ($1, $2, $3, $4)
    """
}
private enum SurveyByKey: StoreStatement {
  static let sql = """
    SELECT game_id, evaluator_id, state, due_at_ms, submitted_at_ms FROM survey
    WHERE game_id = $1 AND evaluator_id = $2
    """
}
private enum SurveysPending: StoreStatement {
  static let sql = """
    SELECT game_id, evaluator_id, state, due_at_ms, submitted_at_ms FROM survey
    WHERE evaluator_id = $1 AND state = $2 AND due_at_ms > $3 AND (due_at_ms, game_id) > ($4, $5)
    ORDER BY due_at_ms, game_id LIMIT $6
    """
}
private enum SurveySubmit: StoreStatement {
  static let sql = """
    UPDATE survey SET state = $1, submitted_at_ms = $2
    WHERE game_id = $3 AND evaluator_id = $4 AND state = $5
    RETURNING game_id
    """
}
private enum SurveyRatingInsert: StoreStatement {
  static let sql = """
    INSERT INTO survey_rating (game_id, evaluator_id, rated_id, skill_level, punctual, character)
    VALUES ($1, $2, $3, $4, $5, $6)
    """
}
private enum SurveysDue: StoreStatement {
  static let sql = """
    SELECT game_id, evaluator_id, due_at_ms FROM survey WHERE state = $1 AND due_at_ms <= $2
    """
}
private enum SurveySetState: StoreStatement {
  static let sql = "UPDATE survey SET state = $1 WHERE game_id = $2 AND evaluator_id = $3"
}
private enum SurveyPlayerTotals: StoreStatement {
  static let sql = """
    SELECT evaluation_count, peer_rating_sum, skill_deviation_sum, punctual_count, character_sum,
      self_level
    FROM player WHERE id = $1
    """
}
private enum SurveyPlayerSetTotals: StoreStatement {
  static let sql = """
    UPDATE player SET evaluation_count = $1, peer_rating_sum = $2, peer_rating_count = $3,
      skill_deviation_sum = $4, punctual_count = $5, character_sum = $6,
      skill_accuracy = $7, punctuality_percentage = $8, character_rating = $9
    WHERE id = $10
    """
}
