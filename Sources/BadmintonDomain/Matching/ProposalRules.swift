/// One seat of a proposal at its last acceptance, as the store reads it in that transaction:
/// whether the player's availability is still active, and the player's matches.
public struct ProposalSeat: Hashable, Sendable {
  /// Whether the availability the seat was proposed on is still active (not cancelled, not
  /// used by another match).
  public var availabilityActive: Bool
  /// The player's matches that may touch the proposal's time.
  public var matches: [BookedMatch]

  /// A seat with the given fields.
  public init(availabilityActive: Bool, matches: [BookedMatch]) {
    self.availabilityActive = availabilityActive
    self.matches = matches
  }
}

/// The rules of proposals: how long one waits for answers, who may still answer, and whether
/// the last acceptance confirms the match or lets the proposal lapse.
public enum ProposalRules {
  /// How long a proposal waits for answers at most: 24 hours.
  public static let lifetimeMs: Int64 = 24 * 3_600_000

  /// When a proposal made at `nowUnixMs` for a slot starting at `slotStartUnixMs` expires: when
  /// its time starts, or 24 hours on, whichever comes first.
  public static func expiresAt(slotStartUnixMs: Int64, nowUnixMs: Int64) -> Int64 {
    min(slotStartUnixMs, nowUnixMs + lifetimeMs)
  }

  /// Whether a proposal that expires at `expiresAtUnixMs` has expired at `nowUnixMs`: from the
  /// expiry instant on.
  public static func isExpired(expiresAtUnixMs: Int64, nowUnixMs: Int64) -> Bool {
    nowUnixMs >= expiresAtUnixMs
  }

  /// Checks that an invited player may answer at `nowUnixMs`: the proposal is pending and not
  /// expired (`PROPOSAL_NOT_PENDING`), and the player has not answered it
  /// (`PROPOSAL_ALREADY_ANSWERED`).
  public static func checkAnswer(
    isPending: Bool, expiresAtUnixMs: Int64, alreadyAnswered: Bool, nowUnixMs: Int64
  ) throws(DomainError) {
    guard isPending, !isExpired(expiresAtUnixMs: expiresAtUnixMs, nowUnixMs: nowUnixMs) else {
      throw MatchingErrors.proposalNotPending
    }
    guard !alreadyAnswered else { throw MatchingErrors.proposalAlreadyAnswered }
  }

  /// Whether the last acceptance of a proposal for `slot` confirms its match: every seat's
  /// availability is still active and no player is booked during the slot
  /// (`BookingRules.isBooked`). When it does not, the proposal lapses.
  public static func confirms(slot: TimeSlot, seats: [ProposalSeat]) -> Bool {
    seats.allSatisfy {
      $0.availabilityActive && !BookingRules.isBooked($0.matches, during: slot)
    }
  }
}

/// What a participant may do to a match, and when: cancel it before its start, record its result
/// from its start on.
public enum MatchLifecycle {
  /// What recording a result does.
  public enum Completion: Hashable, Sendable {
    /// The result is recorded now.
    case record
    /// The match was completed before: it is returned as it is (a retry whose first call
    /// committed).
    case alreadyCompleted
  }

  /// Checks that a match at `status` starting at `slotStartUnixMs` may be cancelled at
  /// `nowUnixMs`: it is confirmed (`MATCH_NOT_CONFIRMED`) and has not started
  /// (`MATCH_ALREADY_STARTED`).
  public static func checkCancel(status: MatchStatus, slotStartUnixMs: Int64, nowUnixMs: Int64)
    throws(DomainError)
  {
    guard status == .confirmed else { throw MatchingErrors.matchNotConfirmed }
    guard slotStartUnixMs > nowUnixMs else { throw MatchingErrors.matchAlreadyStarted }
  }

  /// What recording a result of a match at `status` starting at `slotStartUnixMs` does at
  /// `nowUnixMs`: nothing new for a completed match; else the match must be confirmed
  /// (`MATCH_NOT_CONFIRMED`) and started (`MATCH_NOT_STARTED`).
  public static func completion(status: MatchStatus, slotStartUnixMs: Int64, nowUnixMs: Int64)
    throws(DomainError) -> Completion
  {
    switch status {
    case .completed: return .alreadyCompleted
    case .cancelled: throw MatchingErrors.matchNotConfirmed
    case .confirmed:
      guard slotStartUnixMs <= nowUnixMs else { throw SurveyErrors.matchNotStarted }
      return .record
    }
  }
}
