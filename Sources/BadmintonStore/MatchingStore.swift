public import BadmintonDomain

/// Where an availability came from.
public enum AvailabilitySource: Int, Hashable, Sendable {
  /// Posted by the player.
  case posted = 1
  /// One day of an active recurring slot.
  case recurring = 2
}

/// What became of an availability.
public enum AvailabilityState: Int, Hashable, Sendable {
  /// Matchable until its end passes.
  case active = 1
  /// Cancelled by its player.
  case cancelled = 2
  /// Used up by a confirmed match.
  case matched = 3
}

/// What posting availability stores.
public struct NewAvailability: Hashable, Sendable {
  public var playerID: Int64
  public var mode: MatchMode
  public var date: LocalDate
  public var startMinute: Int
  public var endMinute: Int
  public var timeZone: String
  /// The same time as absolute instants.
  public var slot: TimeSlot
  public var location: Coordinate
  public var radiusMiles: Double
  public var skillTolerance: Int
  public var postedAtUnixMs: Int64
  public var source: AvailabilitySource

  /// An availability with the given fields.
  public init(
    playerID: Int64, mode: MatchMode, date: LocalDate, startMinute: Int, endMinute: Int,
    timeZone: String, slot: TimeSlot, location: Coordinate, radiusMiles: Double,
    skillTolerance: Int, postedAtUnixMs: Int64, source: AvailabilitySource
  ) {
    self.playerID = playerID
    self.mode = mode
    self.date = date
    self.startMinute = startMinute
    self.endMinute = endMinute
    self.timeZone = timeZone
    self.slot = slot
    self.location = location
    self.radiusMiles = radiusMiles
    self.skillTolerance = skillTolerance
    self.postedAtUnixMs = postedAtUnixMs
    self.source = source
  }

  /// For a recurring occurrence: the key that keeps one day of one slot from being added twice.
  package var recurringKey: String? {
    guard source == .recurring else { return nil }
    return "\(date) \(startMinute)-\(endMinute) \(mode == .singles ? "S" : "D")"
  }
}

/// An availability as stored.
public struct AvailabilityRecord: Hashable, Sendable {
  public var id: Int64
  public var details: NewAvailability
  public var state: AvailabilityState

  /// A record with the given parts.
  public init(id: Int64, details: NewAvailability, state: AvailabilityState) {
    self.id = id
    self.details = details
    self.state = state
  }

  /// The player it belongs to.
  public var playerID: Int64 { details.playerID }
}

/// A player's recurring slots and the search settings their days are posted with.
public struct RecurringSettings: Hashable, Sendable {
  public var playerID: Int64
  public var slots: [RecurringSlot]
  public var timeZone: String
  public var location: Coordinate
  public var radiusMiles: Double
  public var skillTolerance: Int

  /// Settings with the given fields.
  public init(
    playerID: Int64, slots: [RecurringSlot], timeZone: String, location: Coordinate,
    radiusMiles: Double, skillTolerance: Int
  ) {
    self.playerID = playerID
    self.slots = slots
    self.timeZone = timeZone
    self.location = location
    self.radiusMiles = radiusMiles
    self.skillTolerance = skillTolerance
  }
}

/// What replacing a player's recurring slots changed in their availability.
public struct RecurringChange: Hashable, Sendable {
  /// The recurring days removed.
  public var removed: [Int64]
  /// The recurring days added.
  public var added: [AvailabilityRecord]

  /// A change with the given parts.
  public init(removed: [Int64], added: [AvailabilityRecord]) {
    self.removed = removed
    self.added = added
  }
}

/// Events a write puts in players' inboxes in its own transaction: each player and the encoded
/// event.
public typealias OutgoingEvents = [(playerID: Int64, payload: [UInt8])]

/// Availability and recurring slots, behind an interface of our own. Every method that writes
/// returns only after the write is committed.
public protocol MatchingStore: Sendable {
  /// Stores posted availability. A player who already has `activeLimit` active posted
  /// availability ending after `now` gets `AVAILABILITY_LIMIT`, checked in the same transaction.
  /// The events `notify` makes of the stored availability are written in the same transaction.
  func createAvailability(
    _ new: NewAvailability, activeLimit: Int, now: Int64,
    notify: @escaping @Sendable (AvailabilityRecord) -> OutgoingEvents
  ) async throws -> AvailabilityRecord
  /// The availability with `id`, in any state.
  func availability(id: Int64) async throws -> AvailabilityRecord?
  /// The player's active availability ending after `now`, earliest start first.
  func activeAvailability(playerID: Int64, now: Int64) async throws -> [AvailabilityRecord]
  /// Every active availability ending after `now`, to rebuild the match index.
  func allActiveAvailability(now: Int64) async throws -> [AvailabilityRecord]
  /// Every committed transaction's changes, in commit order, from now on.
  var feed: ChangeFeed { get }
  /// Calls `apply` with every active availability ending after `nowUnixMs`, as the change feed
  /// would give it, in id order: what builds the match board at start.
  func replayActiveAvailability(
    nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void) async throws
  /// Calls `apply` with every match not cancelled that ends after `unixMs` (a match completed
  /// early still holds its players for its slot), as the change feed would give it, in id order.
  func replayConfirmedMatches(
    endingAfter unixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void) async throws
  /// Calls `apply` with every player's id and display level (`PlayerRecord.displayLevel`), in
  /// id order: what the match board takes from the players at start. Only the columns the level
  /// is worked out from are read.
  func replayPlayerLevels(_ apply: @escaping @Sendable (_ playerID: Int64, _ level: Int) -> Void)
    async throws
  /// Cancels the player's active availability `id`; returns it. Another player's, or one that is
  /// not active, gives `AVAILABILITY_NOT_FOUND`.
  func cancelAvailability(id: Int64, playerID: Int64) async throws -> AvailabilityRecord

  /// Replaces the player's recurring settings, removes their recurring days not used by a match
  /// and adds `occurrences`, with the events `notify` makes of the days added, all in one
  /// transaction.
  func saveRecurring(
    _ settings: RecurringSettings, occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> RecurringChange
  /// The player's recurring settings, if they saved any.
  func recurringSettings(playerID: Int64) async throws -> RecurringSettings?
  /// Every player's recurring settings.
  func allRecurringSettings() async throws -> [RecurringSettings]
  /// Adds the recurring days not stored before (cancelled ones included), with the events
  /// `notify` makes of them, in one transaction; returns those added.
  func addRecurringOccurrences(
    _ occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> [AvailabilityRecord]
  /// Removes availability that ended before `unixMs`; returns how many.
  func deleteAvailability(endedBefore unixMs: Int64) async throws -> Int
}

/// What became of a proposal.
public enum StoredProposalState: Int, Hashable, Sendable {
  /// Waiting for answers.
  case pending = 1
  /// Everyone accepted; the match is confirmed.
  case accepted = 2
  /// Someone declined.
  case declined = 3
  /// It expired, or an availability it needed was used or cancelled.
  case lapsed = 4
}

/// An invited player's answer.
public enum StoredInviteeAnswer: Int, Hashable, Sendable {
  /// Not answered yet.
  case pending = 1
  /// Accepted.
  case accepted = 2
  /// Declined.
  case declined = 3
}

/// One invited player of a proposal.
public struct ProposalInviteeRecord: Hashable, Sendable {
  public var playerID: Int64
  public var availabilityID: Int64
  public var answer: StoredInviteeAnswer

  /// An invitee with the given fields.
  public init(playerID: Int64, availabilityID: Int64, answer: StoredInviteeAnswer = .pending) {
    self.playerID = playerID
    self.availabilityID = availabilityID
    self.answer = answer
  }
}

/// What proposing a match stores.
public struct NewProposal: Hashable, Sendable {
  public var proposerID: Int64
  public var proposerAvailabilityID: Int64
  public var mode: MatchMode
  public var slot: TimeSlot
  public var invitees: [ProposalInviteeRecord]
  public var createdAtUnixMs: Int64
  public var expiresAtUnixMs: Int64

  /// A proposal with the given fields.
  public init(
    proposerID: Int64, proposerAvailabilityID: Int64, mode: MatchMode, slot: TimeSlot,
    invitees: [ProposalInviteeRecord], createdAtUnixMs: Int64, expiresAtUnixMs: Int64
  ) {
    self.proposerID = proposerID
    self.proposerAvailabilityID = proposerAvailabilityID
    self.mode = mode
    self.slot = slot
    self.invitees = invitees
    self.createdAtUnixMs = createdAtUnixMs
    self.expiresAtUnixMs = expiresAtUnixMs
  }
}

/// A proposal as stored.
public struct ProposalRecord: Hashable, Sendable {
  public var id: Int64
  public var details: NewProposal
  public var state: StoredProposalState
  public var matchID: Int64?

  /// A record with the given parts.
  public init(id: Int64, details: NewProposal, state: StoredProposalState, matchID: Int64?) {
    self.id = id
    self.details = details
    self.state = state
    self.matchID = matchID
  }

  /// The proposer and every invitee.
  public var playerIDs: [Int64] { [details.proposerID] + details.invitees.map(\.playerID) }
}

/// What became of a match.
public enum StoredMatchState: Int, Hashable, Sendable {
  /// Confirmed by everyone.
  case confirmed = 1
  /// Cancelled by a participant.
  case cancelled = 2
  /// Played: a participant recorded the result.
  case completed = 3
}

/// The recorded result of a completed match.
public struct MatchResult: Hashable, Sendable {
  /// 1 or 2.
  public var winningTeam: Int
  public var completedAtUnixMs: Int64
  /// The participant who recorded it.
  public var completedBy: Int64

  /// A result with the given fields.
  public init(winningTeam: Int, completedAtUnixMs: Int64, completedBy: Int64) {
    self.winningTeam = winningTeam
    self.completedAtUnixMs = completedAtUnixMs
    self.completedBy = completedBy
  }
}

/// One player of a match.
public struct MatchParticipantRecord: Hashable, Sendable {
  public var playerID: Int64
  public var availabilityID: Int64
  /// 1 or 2.
  public var team: Int

  /// A participant with the given fields.
  public init(playerID: Int64, availabilityID: Int64, team: Int) {
    self.playerID = playerID
    self.availabilityID = availabilityID
    self.team = team
  }
}

/// A match as stored.
public struct MatchRecord: Hashable, Sendable {
  public var id: Int64
  public var mode: MatchMode
  public var slot: TimeSlot
  public var participants: [MatchParticipantRecord]
  public var state: StoredMatchState
  public var proposalID: Int64
  public var confirmedAtUnixMs: Int64
  public var cancelledBy: Int64?
  public var cancelledAtUnixMs: Int64?
  /// Set once completed.
  public var result: MatchResult?

  /// A record with the given fields.
  public init(
    id: Int64, mode: MatchMode, slot: TimeSlot, participants: [MatchParticipantRecord],
    state: StoredMatchState, proposalID: Int64, confirmedAtUnixMs: Int64, cancelledBy: Int64? = nil,
    cancelledAtUnixMs: Int64? = nil, result: MatchResult? = nil
  ) {
    self.id = id
    self.mode = mode
    self.slot = slot
    self.participants = participants
    self.state = state
    self.proposalID = proposalID
    self.confirmedAtUnixMs = confirmedAtUnixMs
    self.cancelledBy = cancelledBy
    self.cancelledAtUnixMs = cancelledAtUnixMs
    self.result = result
  }

  /// The players of the match.
  public var playerIDs: [Int64] { participants.map(\.playerID) }
}

/// What an answer to a proposal did.
public struct ProposalAnswerOutcome: Hashable, Sendable {
  /// The proposal after the answer.
  public var proposal: ProposalRecord
  /// The match, when this answer was the last acceptance.
  public var match: MatchRecord?

  /// An outcome with the given parts.
  public init(proposal: ProposalRecord, match: MatchRecord?) {
    self.proposal = proposal
    self.match = match
  }
}

/// What cancelling a match did.
public struct MatchCancellation: Hashable, Sendable {
  /// The cancelled match.
  public var match: MatchRecord
  /// The other participants' availability, active again.
  public var restored: [AvailabilityRecord]

  /// A cancellation with the given parts.
  public init(match: MatchRecord, restored: [AvailabilityRecord]) {
    self.match = match
    self.restored = restored
  }
}

/// Proposals and matches, behind an interface of our own. Every method that writes returns only
/// after the write is committed.
public protocol ProposalStore: Sendable {
  /// Stores a pending proposal. Every availability it names must still be active, end after
  /// `now` and belong to the player named with it, checked in the same transaction: the
  /// proposer's fails with `AVAILABILITY_NOT_FOUND`, an invitee's with `CANDIDATE_UNAVAILABLE`.
  /// The events `notify` makes of the proposal are written in the same transaction.
  func createProposal(
    _ new: NewProposal, now: Int64, notify: @escaping @Sendable (ProposalRecord) -> OutgoingEvents
  ) async throws -> ProposalRecord
  /// The proposal with `id`.
  func proposal(id: Int64) async throws -> ProposalRecord?
  /// Records `playerID`'s answer. A decline ends the proposal; the last acceptance confirms the
  /// match with `teams` (player id to team), uses up every availability involved and records the
  /// match, unless one of them is no longer active or a player already has a confirmed match at
  /// that time: then the proposal lapses. All in one transaction. A proposal that is not
  /// pending, or has expired by `now`, gives `PROPOSAL_NOT_PENDING`; a player who is not invited
  /// gives `PROPOSAL_NOT_FOUND`.
  /// The events `notify` makes of the outcome are written in the same transaction.
  func answerProposal(
    id: Int64, playerID: Int64, accept: Bool, teams: [Int64: Int], now: Int64,
    notify: @escaping @Sendable (ProposalAnswerOutcome) -> OutgoingEvents
  ) async throws -> ProposalAnswerOutcome
  /// Marks the pending proposals that expired by `now` as lapsed, with the events `notify` makes
  /// of them, in one transaction; returns them.
  func lapseProposals(
    now: Int64, notify: @escaping @Sendable ([ProposalRecord]) -> OutgoingEvents
  ) async throws -> [ProposalRecord]
  /// The match with `id`.
  func match(id: Int64) async throws -> MatchRecord?
  /// Up to `limit` of the player's confirmed matches ending after `now`, soonest first (`past`
  /// false), or of the others, latest first (`past` true); by start, then by match id. When
  /// `after` (a start and a match id) is given, only the matches after it in that order: one
  /// range of the index on (player, start, match).
  func matches(
    playerID: Int64, past: Bool, now: Int64, after: (startUnixMs: Int64, matchID: Int64)?,
    limit: Int
  ) async throws -> [MatchRecord]
  /// Cancels a confirmed match before its start; the other participants' availability becomes
  /// active again when it has not ended. Not a participant: `MATCH_NOT_FOUND`; not confirmed:
  /// `MATCH_NOT_CONFIRMED`; started: `MATCH_ALREADY_STARTED`. One transaction.
  /// The events `notify` makes of the cancellation are written in the same transaction.
  func cancelMatch(
    id: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (MatchCancellation) -> OutgoingEvents
  ) async throws -> MatchCancellation
  /// Every confirmed or completed match ending after `now`, to rebuild who is busy when: a match
  /// completed early still holds its players for its slot.
  func confirmedMatches(endingAfter now: Int64) async throws -> [MatchRecord]
}

/// Everything the server keeps: players, matching, proposals and matches, friends and blocks,
/// rooms, messages, weekly schedules, match results with their surveys, and what administrators
/// did.
public typealias ServerStore = PlayerStore & MatchingStore & ProposalStore & SocialStore
  & RoomStore & MessageStore & ScheduleStore & SurveyStore & AdministrationStore & WriteKeyStore

extension StoredMatchState {
  /// The match status the domain's rules read.
  public var status: MatchStatus {
    switch self {
    case .confirmed: .confirmed
    case .cancelled: .cancelled
    case .completed: .completed
    }
  }
}
