public import BadmintonRPC
public import CBadmintonProto

/// `badminton.v1.CompleteMatchRequest`.
public struct CompleteMatchRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.CompleteMatchRequest`.
  public typealias CMessage = Badminton__V1__CompleteMatchRequest
  /// protoc-c's descriptor of `badminton.v1.CompleteMatchRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.CompleteMatchRequest")

  /// Match id.
  public var matchID: Int64
  /// The winning team, 1 or 2; in singles each player is a team.
  public var winningTeam: Int32

  /// The message with every field at its default.
  public init() { self.init(matchID: 0) }

  /// A message with the given fields.
  public init(
    matchID: Int64 = 0,
    winningTeam: Int32 = 0
  ) {
    self.matchID = matchID
    self.winningTeam = winningTeam
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.matchID = c.match_id
    self.winningTeam = c.winning_team
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in _: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__complete_match_request__init(&c)
    c.match_id = matchID
    c.winning_team = winningTeam
    return c
  }
}

/// Whether a rated player was on time; an enum so that an unset answer can be told from "late". (`badminton.v1.Punctuality`).
public struct Punctuality: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `PUNCTUALITY_UNSPECIFIED`.
  public static let unspecified = Punctuality(rawValue: 0)
  /// `ON_TIME`.
  public static let onTime = Punctuality(rawValue: 1)
  /// `LATE`.
  public static let late = Punctuality(rawValue: 2)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "PUNCTUALITY_UNSPECIFIED"
    case 1: "ON_TIME"
    case 2: "LATE"
    default: "PUNCTUALITY_\(rawValue)"
    }
  }
}

/// One participant's rating of another. (`badminton.v1.PlayerRating`).
public struct PlayerRating: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.PlayerRating`.
  public typealias CMessage = Badminton__V1__PlayerRating
  /// protoc-c's descriptor of `badminton.v1.PlayerRating`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.PlayerRating")

  /// Another participant of the match.
  public var userID: Int64
  /// The level the rated player played at, 1-9.
  public var skillLevel: Int32
  /// Required.
  public var punctuality: Punctuality
  /// 1-5.
  public var character: Int32

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0,
    skillLevel: Int32 = 0,
    punctuality: Punctuality = .unspecified,
    character: Int32 = 0
  ) {
    self.userID = userID
    self.skillLevel = skillLevel
    self.punctuality = punctuality
    self.character = character
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
    self.skillLevel = c.skill_level
    self.punctuality = Punctuality(rawValue: CField.enumValue(c.punctuality))
    self.character = c.character
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in _: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__player_rating__init(&c)
    c.user_id = userID
    c.skill_level = skillLevel
    c.punctuality = CField.cEnum(punctuality.rawValue, as: Badminton__V1__Punctuality.self)
    c.character = character
    return c
  }
}

/// `badminton.v1.SurveyState`. (`badminton.v1.SurveyState`).
public struct SurveyState: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `SURVEY_STATE_UNSPECIFIED`.
  public static let unspecified = SurveyState(rawValue: 0)
  /// `SURVEY_PENDING`: Waiting for the participant's ratings until its deadline.
  public static let pending = SurveyState(rawValue: 1)
  /// `SURVEY_SUBMITTED`: Submitted; its ratings count.
  public static let submitted = SurveyState(rawValue: 2)
  /// `SURVEY_EXPIRED`: The deadline passed before it was submitted; it never counts.
  public static let expired = SurveyState(rawValue: 3)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "SURVEY_STATE_UNSPECIFIED"
    case 1: "SURVEY_PENDING"
    case 2: "SURVEY_SUBMITTED"
    case 3: "SURVEY_EXPIRED"
    default: "SURVEY_STATE_\(rawValue)"
    }
  }
}

/// One participant's survey of a completed match. (`badminton.v1.Survey`).
public struct Survey: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Survey`.
  public typealias CMessage = Badminton__V1__Survey
  /// protoc-c's descriptor of `badminton.v1.Survey`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Survey")

  /// The completed match, with its result. Always encoded; all defaults when absent on the wire.
  public var match: Match
  /// Every other participant: the players to rate.
  public var playersToRate: [MatchParticipant]
  /// 48 hours after completion; the survey can be submitted until just before this instant.
  public var dueAtUnixMs: Int64
  /// State.
  public var state: SurveyState
  /// Set once submitted.
  public var submittedAtUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(match: Match()) }

  /// A message with the given fields.
  public init(
    match: Match = Match(),
    playersToRate: [MatchParticipant] = [],
    dueAtUnixMs: Int64 = 0,
    state: SurveyState = .unspecified,
    submittedAtUnixMs: Int64 = 0
  ) {
    self.match = match
    self.playersToRate = playersToRate
    self.dueAtUnixMs = dueAtUnixMs
    self.state = state
    self.submittedAtUnixMs = submittedAtUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.match = try CField.message(c.match, as: Match.self) ?? Match()
    self.playersToRate = try CField.messages(
      c.n_players_to_rate, c.players_to_rate, as: MatchParticipant.self)
    self.dueAtUnixMs = c.due_at_unix_ms
    self.state = SurveyState(rawValue: CField.enumValue(c.state))
    self.submittedAtUnixMs = c.submitted_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__survey__init(&c)
    c.match = arena.pointer(to: match.cMessage(in: arena))
    (c.n_players_to_rate, c.players_to_rate) = arena.messages(playersToRate)
    c.due_at_unix_ms = dueAtUnixMs
    c.state = CField.cEnum(state.rawValue, as: Badminton__V1__SurveyState.self)
    c.submitted_at_unix_ms = submittedAtUnixMs
    return c
  }
}

/// `badminton.v1.ListPendingSurveysRequest`.
public struct ListPendingSurveysRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListPendingSurveysRequest`.
  public typealias CMessage = Badminton__V1__ListPendingSurveysRequest
  /// protoc-c's descriptor of `badminton.v1.ListPendingSurveysRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListPendingSurveysRequest")

  /// 1-100; 0 = 20.
  public var pageSize: Int32
  /// The previous page's `nextPageToken`; empty for the first page.
  public var pageToken: String

  /// The message with every field at its default.
  public init() { self.init(pageSize: 0) }

  /// A message with the given fields.
  public init(pageSize: Int32 = 0, pageToken: String = "") {
    self.pageSize = pageSize
    self.pageToken = pageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.pageSize = c.page_size
    self.pageToken = CField.string(c.page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_pending_surveys_request__init(&c)
    c.page_size = pageSize
    c.page_token = arena.string(pageToken)
    return c
  }
}

/// `badminton.v1.ListPendingSurveysResponse`.
public struct ListPendingSurveysResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListPendingSurveysResponse`.
  public typealias CMessage = Badminton__V1__ListPendingSurveysResponse
  /// protoc-c's descriptor of `badminton.v1.ListPendingSurveysResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListPendingSurveysResponse")

  /// The caller's surveys still open, earliest deadline first (then by match id).
  public var surveys: [Survey]
  /// The `pageToken` of the next page; empty when this page is the last.
  public var nextPageToken: String

  /// The message with every field at its default.
  public init() { self.init(surveys: []) }

  /// A message with the given fields.
  public init(
    surveys: [Survey] = [],
    nextPageToken: String = ""
  ) {
    self.surveys = surveys
    self.nextPageToken = nextPageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.surveys = try CField.messages(c.n_surveys, c.surveys, as: Survey.self)
    self.nextPageToken = CField.string(c.next_page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_pending_surveys_response__init(&c)
    (c.n_surveys, c.surveys) = arena.messages(surveys)
    c.next_page_token = arena.string(nextPageToken)
    return c
  }
}

/// `badminton.v1.SubmitSurveyRequest`.
public struct SubmitSurveyRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SubmitSurveyRequest`.
  public typealias CMessage = Badminton__V1__SubmitSurveyRequest
  /// protoc-c's descriptor of `badminton.v1.SubmitSurveyRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SubmitSurveyRequest")

  /// Match id.
  public var matchID: Int64
  /// Exactly one rating per other participant.
  public var ratings: [PlayerRating]

  /// The message with every field at its default.
  public init() { self.init(matchID: 0) }

  /// A message with the given fields.
  public init(
    matchID: Int64 = 0,
    ratings: [PlayerRating] = []
  ) {
    self.matchID = matchID
    self.ratings = ratings
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.matchID = c.match_id
    self.ratings = try CField.messages(c.n_ratings, c.ratings, as: PlayerRating.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__submit_survey_request__init(&c)
    c.match_id = matchID
    (c.n_ratings, c.ratings) = arena.messages(ratings)
    return c
  }
}

/// `badminton.v1.GetReputationRequest`.
public struct GetReputationRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetReputationRequest`.
  public typealias CMessage = Badminton__V1__GetReputationRequest
  /// protoc-c's descriptor of `badminton.v1.GetReputationRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetReputationRequest")

  /// User id.
  public var userID: Int64

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0
  ) {
    self.userID = userID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in _: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_reputation_request__init(&c)
    c.user_id = userID
    return c
  }
}

/// What peers' ratings add up to for one player: aggregates only, never who rated what. (`badminton.v1.Reputation`).
public struct Reputation: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Reputation`.
  public typealias CMessage = Badminton__V1__Reputation
  /// protoc-c's descriptor of `badminton.v1.Reputation`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Reputation")

  /// User id.
  public var userID: Int64
  /// Nickname.
  public var nickname: String
  /// The self-reported level below 5 evaluations, the calculated level from then on.
  public var displayLevel: Int32
  /// New player.
  public var newPlayer: Bool
  /// Reputation. Always encoded; all defaults when absent on the wire.
  public var reputation: ReputationSummary
  /// Total games.
  public var totalGames: Int32
  /// Wins.
  public var wins: Int32

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0,
    nickname: String = "",
    displayLevel: Int32 = 0,
    newPlayer: Bool = false,
    reputation: ReputationSummary = ReputationSummary(),
    totalGames: Int32 = 0,
    wins: Int32 = 0
  ) {
    self.userID = userID
    self.nickname = nickname
    self.displayLevel = displayLevel
    self.newPlayer = newPlayer
    self.reputation = reputation
    self.totalGames = totalGames
    self.wins = wins
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.userID = c.user_id
    self.nickname = CField.string(c.nickname)
    self.displayLevel = c.display_level
    self.newPlayer = c.new_player != 0
    self.reputation =
      try CField.message(c.reputation, as: ReputationSummary.self) ?? ReputationSummary()
    self.totalGames = c.total_games
    self.wins = c.wins
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__reputation__init(&c)
    c.user_id = userID
    c.nickname = arena.string(nickname)
    c.display_level = displayLevel
    c.new_player = newPlayer ? 1 : 0
    c.reputation = arena.pointer(to: reputation.cMessage(in: arena))
    c.total_games = totalGames
    c.wins = wins
    return c
  }
}

/// Event body: a participant asks this player to rate the others of a completed match. (`badminton.v1.SurveyRequested`).
public struct SurveyRequested: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SurveyRequested`.
  public typealias CMessage = Badminton__V1__SurveyRequested
  /// protoc-c's descriptor of `badminton.v1.SurveyRequested`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SurveyRequested")

  /// Survey. Always encoded; all defaults when absent on the wire.
  public var survey: Survey

  /// The message with every field at its default.
  public init() { self.init(survey: Survey()) }

  /// A message with the given fields.
  public init(
    survey: Survey = Survey()
  ) {
    self.survey = survey
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.survey = try CField.message(c.survey, as: Survey.self) ?? Survey()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__survey_requested__init(&c)
    c.survey = arena.pointer(to: survey.cMessage(in: arena))
    return c
  }
}
