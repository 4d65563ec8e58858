/// What the console asks of the product: sign-in, the players, the verification requests, the
/// live figures and the audit log. The server implements it over its services; the console knows
/// nothing else of the product.
public protocol ConsoleBackend: Sendable {
  /// The administrator whose phone and password these are, or nil when they are not an
  /// administrator's (unknown phone, wrong password, a player who is not an administrator, or
  /// an administrator who may not administer now, see `mayAdminister`: the console must not
  /// tell these apart). Throws `DomainError` (from BadmintonDomain) when the attempt is
  /// throttled (reason TOO_MANY_LOGIN_ATTEMPTS, with retryAfterMs); `address` is the client's IP
  /// address for the throttle.
  func signIn(phone: String, password: String, address: String) async throws
    -> ConsoleAdministrator?
  /// Whether the signed-in administrator with this id may still use the console: false once
  /// their account is suspended (on any instance) or they are no longer an administrator. The
  /// console asks at every request of a session and ends the session when not; cheap, as it is
  /// asked that often.
  func mayAdminister(_ administratorID: Int64) async -> Bool
  /// Players whose id, phone or nickname matches `query` (id: exact; phone: exact; nickname:
  /// prefix, case-insensitive), at most `limit`.
  func findPlayers(matching query: String, limit: Int) async throws -> [ConsolePlayer]
  /// The player with this id and what the console shows of them, or nil when there is none.
  func player(id: Int64) async throws -> ConsolePlayerDetail?
  /// Ends every session of the player; returns how many. Recorded in the audit log. Throws
  /// `DomainError` ADMINISTRATOR_ACTS_ON_SELF (permissionDenied) for the administrator's own, as
  /// the other actions on a player do when the player is the administrator.
  func endSessions(of playerID: Int64, by administrator: ConsoleAdministrator) async throws -> Int
  /// Suspends the player until `untilUnixMs` with `reason`; throws `DomainError`
  /// (INVALID_ARGUMENT with violations on fields `reason` / `until`, NOT_FOUND,
  /// ADMINISTRATOR_ACTS_ON_SELF), whose `en` message the console shows on the page. Recorded in
  /// the audit log.
  func suspend(
    _ playerID: Int64, untilUnixMs: Int64, reason: String, by administrator: ConsoleAdministrator
  ) async throws
  /// Lifts the player's suspension; `note` is kept in the audit log. Throws `DomainError`
  /// ADMINISTRATOR_ACTS_ON_SELF for the administrator's own.
  func liftSuspension(of playerID: Int64, note: String, by administrator: ConsoleAdministrator)
    async throws
  /// The audit log, newest first: entries with an id below `beforeID` (all when nil), at most
  /// `limit`.
  func auditLog(beforeID: Int64?, limit: Int) async throws -> [ConsoleAuditEntry]
  /// Pending verification requests, oldest first, at most `limit`.
  func pendingVerifications(limit: Int) async throws -> [ConsoleVerification]
  /// One request, whatever its state; nil when there is none.
  func verification(id: Int64) async throws -> ConsoleVerification?
  /// The request's whole document (at most 5 MiB) and its content type (`image/png`,
  /// `image/jpeg` or `application/pdf`, as the product detected it from the bytes); nil when
  /// there is none.
  func verificationDocument(id: Int64) async throws -> ConsoleDocument?
  /// Approves or rejects a pending request with `note` (at most 500 characters). Throws
  /// `DomainError`: VERIFICATION_NOT_FOUND (notFound), VERIFICATION_ALREADY_REVIEWED
  /// (failedPrecondition), VERIFICATION_OWN_REQUEST (permissionDenied), REVIEW_NOTE_TOO_LONG
  /// (invalidArgument). The player's level changes at once and they get the event their app
  /// handles; recorded in the audit log.
  func reviewVerification(
    id: Int64, approve: Bool, note: String, by administrator: ConsoleAdministrator
  ) async throws
  /// The figures of the live page, now.
  func liveFigures() async -> ConsoleLiveFigures
  /// Now, in Unix milliseconds (the server's clock; the console uses it for session idle expiry
  /// and the times it shows).
  func nowUnixMs() -> Int64
}

/// A signed-in administrator: a player named an administrator by the server's options.
public struct ConsoleAdministrator: Sendable, Hashable {
  /// The administrator's player id.
  public var id: Int64
  /// The administrator's nickname.
  public var nickname: String

  /// An administrator with this id and nickname.
  public init(id: Int64, nickname: String) {
    self.id = id
    self.nickname = nickname
  }
}

/// A player as a search result lists them.
public struct ConsolePlayer: Sendable, Hashable {
  /// The player's id.
  public var id: Int64
  /// The player's nickname.
  public var nickname: String
  /// The player's phone number.
  public var phone: String
  /// The level the player gives themself.
  public var selfLevel: Int
  /// When the player's suspension ends; nil when they are not suspended.
  public var suspendedUntilUnixMs: Int64?

  /// A player with these fields.
  public init(
    id: Int64, nickname: String, phone: String, selfLevel: Int, suspendedUntilUnixMs: Int64?
  ) {
    self.id = id
    self.nickname = nickname
    self.phone = phone
    self.selfLevel = selfLevel
    self.suspendedUntilUnixMs = suspendedUntilUnixMs
  }
}

/// A player's suspension: until when, why, and who suspended them when.
public struct ConsoleSuspension: Sendable, Hashable {
  /// When the suspension ends.
  public var untilUnixMs: Int64
  /// Why the player is suspended.
  public var reason: String
  /// The administrator who suspended the player.
  public var administratorID: Int64
  /// When the player was suspended.
  public var atUnixMs: Int64

  /// A suspension with these fields.
  public init(untilUnixMs: Int64, reason: String, administratorID: Int64, atUnixMs: Int64) {
    self.untilUnixMs = untilUnixMs
    self.reason = reason
    self.administratorID = administratorID
    self.atUnixMs = atUnixMs
  }
}

/// One of a player's recent matches.
public struct ConsoleMatchSummary: Sendable, Hashable {
  /// The match's id.
  public var id: Int64
  /// When the match starts.
  public var startUnixMs: Int64
  /// The match's mode, e.g. singles or doubles.
  public var mode: String
  /// The match's state, e.g. open or finished.
  public var state: String

  /// A match summary with these fields.
  public init(id: Int64, startUnixMs: Int64, mode: String, state: String) {
    self.id = id
    self.startUnixMs = startUnixMs
    self.mode = mode
    self.state = state
  }
}

/// Everything the player page shows of a player.
public struct ConsolePlayerDetail: Sendable, Hashable {
  /// The player as search results list them.
  public var player: ConsolePlayer
  /// When the player joined.
  public var joinedAtUnixMs: Int64
  /// The player's locale, e.g. `en` or `zh-CN`.
  public var locale: String
  /// The level the player gives themself.
  public var selfLevel: Int
  /// The level calculated from the player's games; nil until there are enough.
  public var calculatedLevel: Double?
  /// The highest level verification allows the player.
  public var verifiedMaxLevel: Int
  /// How many games the player has played.
  public var gamesPlayed: Int
  /// How many of them the player won.
  public var wins: Int
  /// How often the player came on time, in percent.
  public var punctualityPercentage: Double
  /// The players' rating of the player's character.
  public var characterRating: Double
  /// How well the player's self level matches what others saw.
  public var skillAccuracy: Double
  /// How many evaluations the reputation is built from.
  public var evaluationCount: Int
  /// The player's recent matches, newest first.
  public var recentMatches: [ConsoleMatchSummary]
  /// How many players this player blocks.
  public var blocking: Int
  /// How many players block this player.
  public var blockedBy: Int
  /// How many sessions the player has open.
  public var openSessions: Int
  /// The player's suspension; nil when they are not suspended.
  public var suspension: ConsoleSuspension?

  /// A player detail with these fields.
  public init(
    player: ConsolePlayer, joinedAtUnixMs: Int64, locale: String, selfLevel: Int,
    calculatedLevel: Double?, verifiedMaxLevel: Int, gamesPlayed: Int, wins: Int,
    punctualityPercentage: Double, characterRating: Double, skillAccuracy: Double,
    evaluationCount: Int, recentMatches: [ConsoleMatchSummary], blocking: Int, blockedBy: Int,
    openSessions: Int, suspension: ConsoleSuspension?
  ) {
    self.player = player
    self.joinedAtUnixMs = joinedAtUnixMs
    self.locale = locale
    self.selfLevel = selfLevel
    self.calculatedLevel = calculatedLevel
    self.verifiedMaxLevel = verifiedMaxLevel
    self.gamesPlayed = gamesPlayed
    self.wins = wins
    self.punctualityPercentage = punctualityPercentage
    self.characterRating = characterRating
    self.skillAccuracy = skillAccuracy
    self.evaluationCount = evaluationCount
    self.recentMatches = recentMatches
    self.blocking = blocking
    self.blockedBy = blockedBy
    self.openSessions = openSessions
    self.suspension = suspension
  }
}

/// One entry of the audit log: what an administrator did, to whom, when.
public struct ConsoleAuditEntry: Sendable, Hashable {
  /// The entry's id; higher ids are newer.
  public var id: Int64
  /// When the action was taken.
  public var atUnixMs: Int64
  /// The administrator who took it.
  public var administratorID: Int64
  /// What was done, e.g. `suspend`.
  public var action: String
  /// The player it was done to, if any.
  public var playerID: Int64?
  /// The administrator's note or reason.
  public var note: String

  /// An audit entry with these fields.
  public init(
    id: Int64, atUnixMs: Int64, administratorID: Int64, action: String, playerID: Int64?,
    note: String
  ) {
    self.id = id
    self.atUnixMs = atUnixMs
    self.administratorID = administratorID
    self.action = action
    self.playerID = playerID
    self.note = note
  }
}

/// A player's request to have a championship verified, which allows a level above 7.
public struct ConsoleVerification: Sendable, Hashable {
  /// The request's id.
  public var id: Int64
  /// The player who asks.
  public var playerID: Int64
  /// The player's nickname.
  public var nickname: String
  /// The level the request allows once approved: 8 for a regional, 9 for a national
  /// championship.
  public var levelAsked: Int
  /// The championship, `regional championship` or `national championship`.
  public var kind: String
  /// Where the request stands: `pending`, `approved` or `rejected`.
  public var state: String
  /// When the player sent the request.
  public var submittedAtUnixMs: Int64
  /// The type of the certificate the player attached, e.g. `application/pdf`.
  public var contentType: String
  /// The certificate's size in bytes.
  public var documentSize: Int
  /// The reviewer's note; empty before the review.
  public var reviewNote: String
  /// The administrator who reviewed the request; nil while it is pending.
  public var reviewerID: Int64?
  /// When the request was reviewed; nil while it is pending.
  public var reviewedAtUnixMs: Int64?

  /// A verification request with these fields.
  public init(
    id: Int64, playerID: Int64, nickname: String, levelAsked: Int, kind: String, state: String,
    submittedAtUnixMs: Int64, contentType: String, documentSize: Int, reviewNote: String,
    reviewerID: Int64?, reviewedAtUnixMs: Int64?
  ) {
    self.id = id
    self.playerID = playerID
    self.nickname = nickname
    self.levelAsked = levelAsked
    self.kind = kind
    self.state = state
    self.submittedAtUnixMs = submittedAtUnixMs
    self.contentType = contentType
    self.documentSize = documentSize
    self.reviewNote = reviewNote
    self.reviewerID = reviewerID
    self.reviewedAtUnixMs = reviewedAtUnixMs
  }
}

/// The certificate of a verification request: its bytes and their type.
public struct ConsoleDocument: Sendable, Hashable {
  /// The type the product detected from the bytes: `image/png`, `image/jpeg` or
  /// `application/pdf`.
  public var contentType: String
  /// The whole document.
  public var bytes: [UInt8]

  /// A document of this type with these bytes.
  public init(contentType: String, bytes: [UInt8]) {
    self.contentType = contentType
    self.bytes = bytes
  }
}

/// What the live page shows: the server's traffic over the last few minutes and its sizes now.
public struct ConsoleLiveFigures: Sendable, Hashable {
  /// The width of one point of every series, in seconds, e.g. 5.
  public var intervalSeconds: Int
  /// The end of the newest point.
  public var endUnixMs: Int64
  /// The methods called in the window, busiest first; methods with no call are left out.
  public var methods: [ConsoleMethodSeries]
  /// Connections open now.
  public var openConnections: Int
  /// Streams open now.
  public var openStreams: Int
  /// Match requests on the match board now.
  public var matchBoardRequests: Int
  /// Players in the nearby index now.
  public var nearbyIndexPlayers: Int
  /// The store's commit latency over the window; nil when the store does not time its commits.
  public var commitLatency: ConsoleLatency?

  /// Live figures with these fields.
  public init(
    intervalSeconds: Int, endUnixMs: Int64, methods: [ConsoleMethodSeries], openConnections: Int,
    openStreams: Int, matchBoardRequests: Int, nearbyIndexPlayers: Int,
    commitLatency: ConsoleLatency?
  ) {
    self.intervalSeconds = intervalSeconds
    self.endUnixMs = endUnixMs
    self.methods = methods
    self.openConnections = openConnections
    self.openStreams = openStreams
    self.matchBoardRequests = matchBoardRequests
    self.nearbyIndexPlayers = nearbyIndexPlayers
    self.commitLatency = commitLatency
  }
}

/// One method's calls over the live window.
public struct ConsoleMethodSeries: Sendable, Hashable {
  /// The method's path, e.g. `/badminton.v1.Players/GetMyProfile`.
  public var method: String
  /// How many calls the window holds.
  public var calls: Int
  /// One point per interval, oldest first; every method has as many.
  public var points: [ConsoleMethodPoint]

  /// A series with these fields.
  public init(method: String, calls: Int, points: [ConsoleMethodPoint]) {
    self.method = method
    self.calls = calls
    self.points = points
  }
}

/// One interval of a method's series.
public struct ConsoleMethodPoint: Sendable, Hashable {
  /// Calls per second in the interval.
  public var callsPerSecond: Double
  /// The median latency of the interval's timed calls, in microseconds; nil when none was timed
  /// (streams are not timed).
  public var p50Micros: Double?
  /// The 99th percentile latency of the interval's timed calls, in microseconds; nil when none
  /// was timed.
  public var p99Micros: Double?

  /// A point with these fields.
  public init(callsPerSecond: Double, p50Micros: Double?, p99Micros: Double?) {
    self.callsPerSecond = callsPerSecond
    self.p50Micros = p50Micros
    self.p99Micros = p99Micros
  }
}

/// A latency summary: how many were timed, their median and 99th percentile.
public struct ConsoleLatency: Sendable, Hashable {
  /// How many were timed.
  public var count: Int
  /// The median, in microseconds.
  public var p50Micros: Double
  /// The 99th percentile, in microseconds.
  public var p99Micros: Double

  /// A latency summary with these fields.
  public init(count: Int, p50Micros: Double, p99Micros: Double) {
    self.count = count
    self.p50Micros = p50Micros
    self.p99Micros = p99Micros
  }
}
