import BadmintonAPI
import PropertyBased

/// Random values of the surveys messages.
extension APIMessageGen {
  static func completeMatchRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> CompleteMatchRequest
  {
    CompleteMatchRequest(matchID: int64(&rng), winningTeam: int32(&rng))
  }

  static func playerRating(_ rng: inout any SeededRandomNumberGenerator) -> PlayerRating {
    PlayerRating(
      userID: int64(&rng), skillLevel: int32(&rng),
      punctuality: Punctuality(rawValue: enumNumber(&rng, defined: 0...2)), character: int32(&rng))
  }

  static func survey(_ rng: inout any SeededRandomNumberGenerator) -> Survey {
    Survey(
      match: match(&rng), playersToRate: (0..<count(&rng)).map { _ in matchParticipant(&rng) },
      dueAtUnixMs: int64(&rng), state: SurveyState(rawValue: enumNumber(&rng, defined: 0...3)),
      submittedAtUnixMs: int64(&rng))
  }

  static func listPendingSurveysRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> ListPendingSurveysRequest
  {
    ListPendingSurveysRequest(pageSize: int32(&rng), pageToken: string(&rng))
  }

  static func listPendingSurveysResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> ListPendingSurveysResponse
  {
    ListPendingSurveysResponse(
      surveys: (0..<count(&rng)).map { _ in survey(&rng) }, nextPageToken: string(&rng))
  }

  static func submitSurveyRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> SubmitSurveyRequest
  {
    SubmitSurveyRequest(
      matchID: int64(&rng), ratings: (0..<count(&rng)).map { _ in playerRating(&rng) })
  }

  static func getReputationRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> GetReputationRequest
  {
    GetReputationRequest(userID: int64(&rng))
  }

  static func reputation(_ rng: inout any SeededRandomNumberGenerator) -> Reputation {
    Reputation(
      userID: int64(&rng), nickname: string(&rng), displayLevel: int32(&rng), newPlayer: bool(&rng),
      reputation: reputationSummary(&rng), totalGames: int32(&rng), wins: int32(&rng))
  }

  static func surveyRequested(_ rng: inout any SeededRandomNumberGenerator) -> SurveyRequested {
    SurveyRequested(survey: survey(&rng))
  }

  static let completeMatchRequestValues = Generator { rng in completeMatchRequest(&rng) }
  static let playerRatingValues = Generator { rng in playerRating(&rng) }
  static let surveyValues = Generator { rng in survey(&rng) }
  static let listPendingSurveysRequestValues = Generator { rng in listPendingSurveysRequest(&rng) }
  static let listPendingSurveysResponseValues = Generator { rng in listPendingSurveysResponse(&rng)
  }
  static let submitSurveyRequestValues = Generator { rng in submitSurveyRequest(&rng) }
  static let getReputationRequestValues = Generator { rng in getReputationRequest(&rng) }
  static let reputationValues = Generator { rng in reputation(&rng) }
  static let surveyRequestedValues = Generator { rng in surveyRequested(&rng) }
}
