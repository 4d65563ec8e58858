public import BadmintonDomain
public import BadmintonStore
import GRDB

extension SQLitePlayerStore: SurveyStore {
  /// Match results, surveys, and the exact sums behind each player's reputation.
  static func registerSurveyMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v9: match results, surveys and reputation") { db in
      try db.execute(
        sql: """
          ALTER TABLE game ADD COLUMN winning_team INTEGER;
          ALTER TABLE game ADD COLUMN completed_at_ms INTEGER;
          ALTER TABLE game ADD COLUMN completed_by INTEGER;
          ALTER TABLE player ADD COLUMN skill_deviation_sum INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE player ADD COLUMN punctual_count INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE player ADD COLUMN character_sum INTEGER NOT NULL DEFAULT 0;
          CREATE TABLE survey (
            game_id INTEGER NOT NULL REFERENCES game(id) ON DELETE CASCADE,
            evaluator_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            state INTEGER NOT NULL,
            due_at_ms INTEGER NOT NULL,
            submitted_at_ms INTEGER,
            PRIMARY KEY (game_id, evaluator_id)
          ) WITHOUT ROWID;
          CREATE INDEX survey_evaluator ON survey(evaluator_id, state, due_at_ms);
          CREATE INDEX survey_due ON survey(state, due_at_ms);
          CREATE TABLE survey_rating (
            game_id INTEGER NOT NULL,
            evaluator_id INTEGER NOT NULL,
            rated_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            skill_level INTEGER NOT NULL CHECK (skill_level BETWEEN 1 AND 9),
            punctual INTEGER NOT NULL CHECK (punctual IN (0, 1)),
            character INTEGER NOT NULL CHECK (character BETWEEN 1 AND 5),
            PRIMARY KEY (game_id, evaluator_id, rated_id),
            FOREIGN KEY (game_id, evaluator_id) REFERENCES survey(game_id, evaluator_id)
              ON DELETE CASCADE
          ) WITHOUT ROWID;
          """)
    }
  }

  public func completeMatch(
    id: Int64, playerID: Int64, winningTeam: Int, now: Int64,
    notify: @escaping @Sendable (MatchCompletion) -> OutgoingEvents
  ) async throws -> MatchCompletion {
    try await grouped.write { db in
      guard let match = try Self.fetchMatch(db, id: id), match.playerIDs.contains(playerID) else {
        throw MatchingErrors.matchNotFound
      }
      switch try MatchLifecycle.completion(
        status: match.state.status, slotStartUnixMs: match.slot.startUnixMs, nowUnixMs: now)
      {
      case .alreadyCompleted: return MatchCompletion(match: match, surveys: [])
      case .record: break
      }
      try db.execute(
        sql: """
          UPDATE game SET state = ?, winning_team = ?, completed_at_ms = ?, completed_by = ?
          WHERE id = ?
          """,
        arguments: [StoredMatchState.completed.rawValue, winningTeam, now, playerID, id])
      let due = SurveyRules.dueAt(completedAtUnixMs: now)
      var surveys: [SurveyRecord] = []
      for participant in match.participants {
        let won = participant.team == winningTeam ? 1 : 0
        try db.execute(
          sql: "UPDATE player SET total_games = total_games + 1, wins = wins + ? WHERE id = ?",
          arguments: [won, participant.playerID])
        try db.execute(
          sql: "INSERT INTO survey (game_id, evaluator_id, state, due_at_ms) VALUES (?, ?, ?, ?)",
          arguments: [id, participant.playerID, StoredSurveyState.pending.rawValue, due])
        surveys.append(
          SurveyRecord(
            matchID: id, evaluatorID: participant.playerID, state: .pending, dueAtUnixMs: due))
      }
      let completion = MatchCompletion(match: try Self.fetchMatch(db, id: id)!, surveys: surveys)
      try Self.append(db, notify(completion), atUnixMs: now)
      return completion
    }
  }

  public func survey(matchID: Int64, evaluatorID: Int64) async throws -> SurveyRecord? {
    try await writer.read { db in
      try Self.fetchSurvey(db, matchID: matchID, evaluatorID: evaluatorID)
    }
  }

  public func pendingSurveys(
    evaluatorID: Int64, now: Int64, after: (dueAtUnixMs: Int64, matchID: Int64)?, limit: Int
  ) async throws -> [SurveyRecord] {
    // The (evaluator, state, due, match) index, read forwards from past the cursor.
    let cursor = after ?? (dueAtUnixMs: now, matchID: Int64.max)
    return try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(
          sql: """
            SELECT * FROM survey WHERE evaluator_id = ? AND state = ? AND due_at_ms > ?
            AND (due_at_ms, game_id) > (?, ?)
            ORDER BY due_at_ms, game_id LIMIT ?
            """),
        arguments: [
          evaluatorID, StoredSurveyState.pending.rawValue, now, cursor.dueAtUnixMs,
          cursor.matchID, max(limit, 0),
        ]
      ).map(Self.survey(from:))
    }
  }

  public func submitSurvey(
    matchID: Int64, evaluatorID: Int64, ratings: [SurveyRating], now: Int64
  ) async throws -> SurveyRecord {
    try await grouped.write { db in
      guard var survey = try Self.fetchSurvey(db, matchID: matchID, evaluatorID: evaluatorID),
        let match = try Self.fetchMatch(db, id: matchID)
      else { throw SurveyErrors.notFound }
      try SurveyRules.checkSubmission(
        status: survey.state.status, dueAtUnixMs: survey.dueAtUnixMs, nowUnixMs: now)
      try SurveyRules.validate(ratings, raterID: evaluatorID, participants: match.playerIDs)
      try db.execute(
        sql: """
          UPDATE survey SET state = ?, submitted_at_ms = ?
          WHERE game_id = ? AND evaluator_id = ? AND state = ?
          """,
        arguments: [
          StoredSurveyState.submitted.rawValue, now, matchID, evaluatorID,
          StoredSurveyState.pending.rawValue,
        ])
      // The state was read in this transaction; a second submission can only get here after
      // this one committed, and then it stops at the check above.
      guard db.changesCount == 1 else { throw SurveyErrors.alreadySubmitted }
      for rating in ratings {
        try db.execute(
          sql: """
            INSERT INTO survey_rating (game_id, evaluator_id, rated_id, skill_level, punctual,
              character) VALUES (?, ?, ?, ?, ?, ?)
            """,
          arguments: [
            matchID, evaluatorID, rating.ratedID, rating.skillLevel,
            rating.punctual == true ? 1 : 0, rating.character,
          ])
        try Self.addRating(db, rating)
      }
      survey.state = .submitted
      survey.submittedAtUnixMs = now
      return survey
    }
  }

  public func expireSurveys(now: Int64) async throws -> Int {
    try await grouped.write { db in
      // The pending surveys by due time, as far as now; `SurveyRules.isExpired` decides.
      let expired = try Row.fetchAll(
        try db.cachedStatement(
          sql:
            "SELECT game_id, evaluator_id, due_at_ms FROM survey WHERE state = ? AND due_at_ms <= ?"
        ),
        arguments: [StoredSurveyState.pending.rawValue, now]
      ).filter { SurveyRules.isExpired(dueAtUnixMs: $0["due_at_ms"], nowUnixMs: now) }
      for row in expired {
        try db.execute(
          sql: "UPDATE survey SET state = ? WHERE game_id = ? AND evaluator_id = ?",
          arguments: [StoredSurveyState.expired.rawValue, row["game_id"], row["evaluator_id"]])
      }
      return expired.count
    }
  }

  public func reputationTotals(playerID: Int64) async throws -> ReputationTotals? {
    try await writer.read { db in
      try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM player WHERE id = ?"), arguments: [playerID]
      )
      .map(Self.totals(from:))
    }
  }

  // MARK: Rows

  /// Adds one rating to the rated player's totals and rewrites their averages from the new
  /// totals, measured against their self-reported level as it is now.
  private static func addRating(_ db: Database, _ rating: SurveyRating) throws {
    guard
      let row = try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM player WHERE id = ?"),
        arguments: [rating.ratedID])
    else { return }
    let totals = totals(from: row).adding(rating, selfLevel: row["self_level"])
    let score = totals.score
    try db.execute(
      sql: """
        UPDATE player SET evaluation_count = ?, peer_rating_sum = ?, peer_rating_count = ?,
          skill_deviation_sum = ?, punctual_count = ?, character_sum = ?,
          skill_accuracy = ?, punctuality_percentage = ?, character_rating = ?
        WHERE id = ?
        """,
      arguments: [
        totals.evaluationCount, totals.skillRatingSum, totals.evaluationCount,
        totals.skillDeviationSum, totals.punctualCount, totals.characterSum,
        score.averageSkillAccuracy, score.punctualityPercentage, score.averageCharacterRating,
        rating.ratedID,
      ])
  }

  private static func totals(from row: Row) -> ReputationTotals {
    ReputationTotals(
      evaluationCount: row["evaluation_count"], skillRatingSum: row["peer_rating_sum"],
      skillDeviationSum: row["skill_deviation_sum"], punctualCount: row["punctual_count"],
      characterSum: row["character_sum"])
  }

  private static func fetchSurvey(_ db: Database, matchID: Int64, evaluatorID: Int64) throws
    -> SurveyRecord?
  {
    try Row.fetchOne(
      try db.cachedStatement(sql: "SELECT * FROM survey WHERE game_id = ? AND evaluator_id = ?"),
      arguments: [matchID, evaluatorID]
    ).map(survey(from:))
  }

  private static func survey(from row: Row) -> SurveyRecord {
    SurveyRecord(
      matchID: row["game_id"], evaluatorID: row["evaluator_id"],
      state: StoredSurveyState(rawValue: row["state"]) ?? .expired, dueAtUnixMs: row["due_at_ms"],
      submittedAtUnixMs: row["submitted_at_ms"])
  }
}
