/// The errors that both the store and the services give about availability, proposals and
/// matches.
public enum MatchingErrors {
  /// The availability is not one of the caller's active availability.
  public static let availabilityNotFound = DomainError(
    .notFound, "AVAILABILITY_NOT_FOUND", en: "You have no such active availability.",
    zhCN: "没有该可约时间。")

  /// A chosen partner's availability is gone or no longer fits.
  public static let candidateUnavailable = DomainError(
    .failedPrecondition, "CANDIDATE_UNAVAILABLE",
    en: "A chosen availability is gone or no longer fits yours; search again.",
    zhCN: "所选球友的时间已不可用或不再匹配，请重新搜索。")

  /// The proposal does not exist or the caller is not part of it.
  public static let proposalNotFound = DomainError(
    .notFound, "PROPOSAL_NOT_FOUND", en: "There is no such proposal for you.",
    zhCN: "没有该约球邀请。")

  /// The match does not exist or the caller is not part of it.
  public static let matchNotFound = DomainError(
    .notFound, "MATCH_NOT_FOUND", en: "There is no such match for you.", zhCN: "没有该比赛。")
}

extension MatchingErrors {
  /// The proposal was declined, accepted, or has lapsed (also by expiring).
  public static let proposalNotPending = DomainError(
    .failedPrecondition, "PROPOSAL_NOT_PENDING",
    en: "This proposal is no longer waiting for answers.", zhCN: "该约球邀请已结束。")

  /// The caller already answered the proposal.
  public static let proposalAlreadyAnswered = DomainError(
    .failedPrecondition, "PROPOSAL_ALREADY_ANSWERED", en: "You already answered this proposal.",
    zhCN: "您已回复该约球邀请。")

  /// The match was cancelled, or completed.
  public static let matchNotConfirmed = DomainError(
    .failedPrecondition, "MATCH_NOT_CONFIRMED", en: "This match is not confirmed.",
    zhCN: "该比赛未确认。")

  /// The match's start has passed: it can no longer be cancelled.
  public static let matchAlreadyStarted = DomainError(
    .failedPrecondition, "MATCH_ALREADY_STARTED",
    en: "The match has started and can no longer be cancelled.", zhCN: "比赛已开始，无法取消。")

  /// The player already has `limit` active availability posts.
  public static func availabilityLimit(_ limit: Int) -> DomainError {
    DomainError(
      .failedPrecondition, "AVAILABILITY_LIMIT",
      en: "You already have \(limit) active availability posts; cancel one first.",
      zhCN: "您已有 \(limit) 个有效的可约时间，请先取消一个。")
  }

  /// A new post when the player has `active` active posts of at most `limit`.
  public static func checkActivePosts(_ active: Int, limit: Int) throws(DomainError) {
    guard active < limit else { throw availabilityLimit(limit) }
  }
}
