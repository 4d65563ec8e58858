public import BadmintonDomain
public import BadmintonStore

// Not built yet: each method below throws until it is.
extension PostgresStore: SurveyStore {
  public func completeMatch(
    id: Int64, playerID: Int64, winningTeam: Int, now: Int64,
    notify: @escaping @Sendable (MatchCompletion) -> OutgoingEvents
  ) async throws -> MatchCompletion {
    throw NotBuilt()
  }

  public func survey(matchID: Int64, evaluatorID: Int64) async throws -> SurveyRecord? {
    throw NotBuilt()
  }

  public func pendingSurveys(
    evaluatorID: Int64, now: Int64, after: (dueAtUnixMs: Int64, matchID: Int64)?, limit: Int
  ) async throws -> [SurveyRecord] {
    throw NotBuilt()
  }

  public func submitSurvey(matchID: Int64, evaluatorID: Int64, ratings: [SurveyRating], now: Int64)
    async throws -> SurveyRecord
  {
    throw NotBuilt()
  }

  public func expireSurveys(now: Int64) async throws -> Int {
    throw NotBuilt()
  }

  public func reputationTotals(playerID: Int64) async throws -> ReputationTotals? {
    throw NotBuilt()
  }
}
