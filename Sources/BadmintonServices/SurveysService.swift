public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Surveys`: after a match a participant records the result, every participant
/// rates the others within 48 hours, and the ratings become the rated players' reputation and
/// peer-weighted level at once. Others only ever see the aggregates. See docs/surveys.md.
public struct SurveysService: Surveys.ServiceProtocol {
  let store: any ServerStore
  let clock: any WallClock
  let events: EventPublisher
  let budget: ResponseBudget

  /// The kind of ListPendingSurveys' page tokens.
  static let pendingSurveysKind = "surveys"

  /// The service over `store`. Every page fits `budget`.
  public init(
    store: any ServerStore, clock: any WallClock, events: EventPublisher,
    budget: ResponseBudget = ResponseBudget(maximumBodySize: WireConfiguration().maximumBodySize)
  ) {
    self.store = store
    self.clock = clock
    self.events = events
    self.budget = budget
  }

  public func completeMatch(_ request: CompleteMatchRequest, context: ServerContext) async throws
    -> Match
  {
    let caller = try context.requirePrincipal().userID
    try SurveyRules.validateWinningTeam(Int(request.winningTeam))
    guard let existing = try await store.match(id: request.matchID),
      existing.playerIDs.contains(caller)
    else { throw MatchingErrors.matchNotFound }
    let players = try await store.players(ids: existing.playerIDs)
    let now = clock.nowUnixMs()
    let completion = try await withKeyedAnswer({
      MatchingService.message($0.match, players: players)
    }) {
      try await store.completeMatch(
        id: request.matchID, playerID: caller, winningTeam: Int(request.winningTeam), now: now
      ) { completion in
        let match = MatchingService.message(completion.match, players: players)
        let completed = Event(body: .matchCompleted(MatchChanged(match: match))).serializedBytes()
        return completion.surveys.flatMap { survey in
          let requested = SurveyRequested(
            survey: Self.message(survey, match: completion.match, players: players, now: now))
          return [
            (survey.evaluatorID, completed),
            (survey.evaluatorID, Event(body: .surveyRequested(requested)).serializedBytes()),
          ]
        }
      }
    }
    return MatchingService.message(completion.match, players: players)
  }

  public func listPendingSurveys(_ request: ListPendingSurveysRequest, context: ServerContext)
    async throws -> ListPendingSurveysResponse
  {
    let caller = try context.requirePrincipal().userID
    let pageSize = try PageRules.size(Int(request.pageSize))
    let after =
      try request.pageToken.isEmpty
      ? nil : PageToken.parse(request.pageToken, kind: Self.pendingSurveysKind, count: 2)
    let now = clock.nowUnixMs()
    // One more than the page tells whether another page follows.
    let page = try await store.pendingSurveys(
      evaluatorID: caller, now: now, after: after.map { (dueAtUnixMs: $0[0], matchID: $0[1]) },
      limit: pageSize + 1)
    let listed = page.prefix(pageSize)
    var matches: [Int64: MatchRecord] = [:]
    for survey in listed {
      matches[survey.matchID] = try await store.match(id: survey.matchID)
    }
    let players = try await store.players(
      ids: Array(Set(matches.values.flatMap(\.playerIDs))))
    // A survey's match is never deleted while the survey exists; one that is missing is passed.
    let surveys = listed.compactMap { survey in
      matches[survey.matchID].map {
        (record: survey, message: Self.message(survey, match: $0, players: players, now: now))
      }
    }
    let fitting = budget.fitting(surveys.map(\.message))
    let shown = surveys.prefix(fitting)
    // The next page starts after the last survey shown when the budget ended the page, else
    // after the last one read.
    let last = fitting < surveys.count ? shown.last?.record : listed.last
    let next =
      fitting < surveys.count || page.count > listed.count
      ? last.map {
        PageToken(kind: Self.pendingSurveysKind, values: [$0.dueAtUnixMs, $0.matchID]).text
      } ?? "" : ""
    return ListPendingSurveysResponse(surveys: shown.map(\.message), nextPageToken: next)
  }

  public func submitSurvey(_ request: SubmitSurveyRequest, context: ServerContext) async throws
    -> Survey
  {
    let caller = try context.requirePrincipal().userID
    // A match has at most 3 other players: anything longer is refused before any work.
    guard request.ratings.count <= SurveyRules.maximumRatings else {
      throw DomainError.invalidField(
        "ratings", "SURVEY_INVALID", en: "A survey rates at most 3 players.",
        zhCN: "问卷最多评价3位球友。")
    }
    let ratings = request.ratings.map { rating in
      SurveyRating(
        ratedID: rating.userID, skillLevel: Int(rating.skillLevel),
        punctual: rating.punctuality == .onTime
          ? true : rating.punctuality == .late ? false : nil,
        character: Int(rating.character))
    }
    let now = clock.nowUnixMs()
    // The match and its players as the answer shows them, read first: the answer is made in
    // the survey's transaction, and a survey changes neither.
    let match = try await store.match(id: request.matchID)
    let players = try await store.players(ids: match?.playerIDs ?? [])
    let survey = try await withKeyedAnswer({ survey in
      match.map { Self.message(survey, match: $0, players: players, now: now) } ?? Survey()
    }) {
      try await store.submitSurvey(
        matchID: request.matchID, evaluatorID: caller, ratings: ratings, now: now)
    }
    // The store found the match, so it was there when read above.
    guard let match else { throw SurveyErrors.notFound }
    return Self.message(survey, match: match, players: players, now: now)
  }

  public func getReputation(_ request: GetReputationRequest, context: ServerContext) async throws
    -> Reputation
  {
    let caller = try context.requirePrincipal().userID
    let id = request.userID == 0 ? caller : request.userID
    guard let player = try await store.player(id: id) else { throw DomainError.playerNotFound }
    let display = player.displayLevel
    return Reputation(
      userID: player.id, nickname: player.nickname, displayLevel: Int32(display.level),
      newPlayer: display.isNewPlayer, reputation: PlayersService.summary(player.reputation),
      totalGames: Int32(player.totalGames), wins: Int32(player.wins))
  }

  /// Marks the surveys past their deadline as expired; returns how many.
  @discardableResult
  public func sweep() async throws -> Int {
    try await store.expireSurveys(now: clock.nowUnixMs())
  }

  // MARK: Messages

  /// The survey as its evaluator sees it; a pending survey due by `now` shows as expired,
  /// whether or not the sweep has marked it.
  static func message(
    _ survey: SurveyRecord, match: MatchRecord, players: [Int64: PlayerRecord], now: Int64
  ) -> Survey {
    let full = MatchingService.message(match, players: players)
    var state: SurveyState =
      switch survey.state {
      case .pending: .pending
      case .submitted: .submitted
      case .expired: .expired
      }
    if survey.state == .pending
      && SurveyRules.isExpired(dueAtUnixMs: survey.dueAtUnixMs, nowUnixMs: now)
    {
      state = .expired
    }
    return Survey(
      match: full, playersToRate: full.participants.filter { $0.userID != survey.evaluatorID },
      dueAtUnixMs: survey.dueAtUnixMs, state: state,
      submittedAtUnixMs: survey.submittedAtUnixMs ?? 0)
  }
}
