public import BadmintonDomain

/// What became of a survey.
public enum StoredSurveyState: Int, Hashable, Sendable {
  /// Waiting for the participant's ratings until it is due.
  case pending = 1
  /// Submitted; its ratings count.
  case submitted = 2
  /// Marked by the sweep after its due time; it never counts.
  case expired = 3
}

/// One participant's survey of a completed match, as stored. Who rated whom how is never part
/// of it: ratings only reach the rated players' totals.
public struct SurveyRecord: Hashable, Sendable {
  public var matchID: Int64
  /// The participant who fills it in.
  public var evaluatorID: Int64
  public var state: StoredSurveyState
  /// 48 hours after completion.
  public var dueAtUnixMs: Int64
  public var submittedAtUnixMs: Int64?

  /// A survey with the given fields.
  public init(
    matchID: Int64, evaluatorID: Int64, state: StoredSurveyState, dueAtUnixMs: Int64,
    submittedAtUnixMs: Int64? = nil
  ) {
    self.matchID = matchID
    self.evaluatorID = evaluatorID
    self.state = state
    self.dueAtUnixMs = dueAtUnixMs
    self.submittedAtUnixMs = submittedAtUnixMs
  }
}

/// What completing a match did.
public struct MatchCompletion: Hashable, Sendable {
  /// The match with its recorded result.
  public var match: MatchRecord
  /// The surveys this call opened, one per participant; empty when the match was already
  /// completed and nothing changed.
  public var surveys: [SurveyRecord]

  /// A completion with the given parts.
  public init(match: MatchRecord, surveys: [SurveyRecord]) {
    self.match = match
    self.surveys = surveys
  }
}

/// Match results, surveys and the reputation they add up to, behind an interface of our own.
/// Every method that writes returns only after the write is committed.
public protocol SurveyStore: Sendable {
  /// Records the result of match `id` at `now`: the match becomes completed, every
  /// participant's total games grows by one and the winners' wins by one, and one pending
  /// survey per participant is opened, due `SurveyRules.dueAt(completedAtUnixMs: now)`, with the
  /// events `notify` makes, all in one transaction. Not a participant: `MATCH_NOT_FOUND`;
  /// already completed: the recorded match and no surveys, nothing changed (whatever
  /// `winningTeam`); cancelled: `MATCH_NOT_CONFIRMED`; before the start: `MATCH_NOT_STARTED`.
  func completeMatch(
    id: Int64, playerID: Int64, winningTeam: Int, now: Int64,
    notify: @escaping @Sendable (MatchCompletion) -> OutgoingEvents
  ) async throws -> MatchCompletion
  /// The survey of match `matchID` that `evaluatorID` fills in.
  func survey(matchID: Int64, evaluatorID: Int64) async throws -> SurveyRecord?
  /// Up to `limit` of the evaluator's pending surveys not yet due at `now`, earliest due first
  /// and then by match id, only those after `after` (a due time and a match id) when it is
  /// given: one range of an index.
  func pendingSurveys(
    evaluatorID: Int64, now: Int64, after: (dueAtUnixMs: Int64, matchID: Int64)?, limit: Int
  ) async throws -> [SurveyRecord]
  /// Submits `evaluatorID`'s survey of match `matchID` at `now`, in one transaction: no such
  /// survey gives `SURVEY_NOT_FOUND`; submitted before, `SURVEY_ALREADY_SUBMITTED`; expired or
  /// due by `now`, `SURVEY_EXPIRED`; ratings that are not a valid survey of the match
  /// (`SurveyRules.validate`), `SURVEY_INVALID`. Otherwise the survey becomes submitted and each
  /// rated player's reputation totals and averages are updated (`ReputationTotals`).
  func submitSurvey(matchID: Int64, evaluatorID: Int64, ratings: [SurveyRating], now: Int64)
    async throws -> SurveyRecord
  /// Marks the pending surveys due by `now` as expired; returns how many.
  func expireSurveys(now: Int64) async throws -> Int
  /// The exact sums behind a player's reputation.
  func reputationTotals(playerID: Int64) async throws -> ReputationTotals?
}

extension StoredSurveyState {
  /// The survey status the domain's rules read.
  public var status: SurveyStatus {
    switch self {
    case .pending: .pending
    case .submitted: .submitted
    case .expired: .expired
    }
  }
}
