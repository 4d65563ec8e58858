/// Another player's request that fits a search, with what the results show about it.
public struct MatchCandidate: Hashable, Sendable {
  /// The fitting request.
  public var requestID: Int64
  /// The player who posted it.
  public var playerID: Int64
  /// The distance between the two requests' locations as players are shown it, in miles: whole
  /// bands between their cells' centres (see `LocationPrivacy.shownDistanceMiles`).
  public var distanceMiles: Double
  /// How many levels the two players' displayed levels differ by.
  public var skillDifference: Int
  /// The time both requests cover.
  public var overlap: TimeSlot
  /// When the fitting request was posted, in unix milliseconds.
  public var postedAtUnixMs: Int64

  /// A candidate with the given fields.
  public init(
    requestID: Int64, playerID: Int64, distanceMiles: Double, skillDifference: Int,
    overlap: TimeSlot, postedAtUnixMs: Int64
  ) {
    self.requestID = requestID
    self.playerID = playerID
    self.distanceMiles = distanceMiles
    self.skillDifference = skillDifference
    self.overlap = overlap
    self.postedAtUnixMs = postedAtUnixMs
  }

  /// The candidate's place in the result order.
  public var cursor: MatchCursor {
    MatchCursor(
      skillDifference: skillDifference, distanceMiles: distanceMiles,
      postedAtUnixMs: postedAtUnixMs, requestID: requestID)
  }

  /// The result order: closest level first, then nearest, then posted earliest, then request id.
  public static func precedes(_ a: MatchCandidate, _ b: MatchCandidate) -> Bool {
    a.cursor < b.cursor
  }
}

/// A position in the result order, where the next page of a search starts; the services hand
/// it to clients as an opaque `token`.
public struct MatchCursor: Hashable, Comparable, Sendable {
  /// The skill difference of the last candidate returned.
  public var skillDifference: Int
  /// Its shown distance in miles, a whole number of `LocationPrivacy.bandMiles`.
  public var distanceMiles: Double
  /// When its request was posted, in unix milliseconds.
  public var postedAtUnixMs: Int64
  /// Its request id.
  public var requestID: Int64

  /// A cursor with the given fields.
  public init(skillDifference: Int, distanceMiles: Double, postedAtUnixMs: Int64, requestID: Int64)
  {
    self.skillDifference = skillDifference
    self.distanceMiles = distanceMiles
    self.postedAtUnixMs = postedAtUnixMs
    self.requestID = requestID
  }

  /// The result order of `MatchCandidate.precedes`.
  public static func < (a: MatchCursor, b: MatchCursor) -> Bool {
    (a.skillDifference, a.distanceMiles, a.postedAtUnixMs, a.requestID)
      < (b.skillDifference, b.distanceMiles, b.postedAtUnixMs, b.requestID)
  }

  /// The listing name of FindMatches' page tokens.
  public static let tokenKind = "matches"

  /// The cursor as a page token ([`PageToken`]): `matches.SKILL.BANDS.POSTED.ID`, the skill
  /// difference, the shown distance in whole bands, the posting time and the request id.
  public var token: String {
    let bands = Int64((distanceMiles / LocationPrivacy.bandMiles).rounded())
    return PageToken(
      kind: Self.tokenKind,
      values: [Int64(skillDifference), bands, max(0, postedAtUnixMs), requestID]
    ).text
  }

  /// The cursor a `token` names, or `PAGE_TOKEN_INVALID` when it is not a token `token` could
  /// give for a cursor a search can return: a level gap a tolerance allows, a shown distance
  /// within the largest radius and a positive request id.
  public init(token: String) throws(DomainError) {
    let values = try PageToken.parse(token, kind: Self.tokenKind, count: 4)
    let maximumBands = Int64(
      (LocationPrivacy.banded(Geo.maximumRadiusMiles) / LocationPrivacy.bandMiles).rounded())
    guard let skill = Int(exactly: values[0]), MatchRules.skillTolerances.contains(skill),
      (1...maximumBands).contains(values[1]), values[3] > 0
    else { throw PageToken.invalid() }
    self.init(
      skillDifference: skill, distanceMiles: Double(values[1]) * LocationPrivacy.bandMiles,
      postedAtUnixMs: values[2], requestID: values[3])
  }
}

/// One page of a search: candidates in result order and where the next page starts.
public struct MatchPage: Hashable, Sendable {
  /// The candidates, in result order.
  public var candidates: [MatchCandidate]
  /// Where the next page starts; nil when no candidate follows.
  public var nextCursor: MatchCursor?

  /// A page with the given fields.
  public init(candidates: [MatchCandidate], nextCursor: MatchCursor?) {
    self.candidates = candidates
    self.nextCursor = nextCursor
  }
}
