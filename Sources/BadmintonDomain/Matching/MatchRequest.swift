/// A player's standing offer to play: when, where, how far they will travel and how close in
/// level the other player must be.
public struct MatchRequest: Hashable, Sendable {
  /// The request.
  public var id: Int64
  /// The player who posted it.
  public var playerID: Int64
  /// The kind of game.
  public var mode: MatchMode
  /// When the player is free.
  public var slot: TimeSlot
  /// Where the player searches from.
  public var location: Coordinate
  /// How far the other player may be, in miles: more than 0, at most 50.
  public var radiusMiles: Double
  /// How many levels the other player's level may differ from the player's: 0 to 8.
  public var skillTolerance: Int
  /// The player's displayed level (1 to 9).
  public var displayLevel: Int
  /// When the request was posted, in unix milliseconds.
  public var postedAtUnixMs: Int64

  /// A request with the given fields; by default 50 miles and 2 levels.
  public init(
    id: Int64, playerID: Int64, mode: MatchMode, slot: TimeSlot, location: Coordinate,
    radiusMiles: Double = Geo.maximumRadiusMiles,
    skillTolerance: Int = MatchRules.defaultSkillTolerance, displayLevel: Int,
    postedAtUnixMs: Int64
  ) {
    self.id = id
    self.playerID = playerID
    self.mode = mode
    self.slot = slot
    self.location = location
    self.radiusMiles = radiusMiles
    self.skillTolerance = skillTolerance
    self.displayLevel = displayLevel
    self.postedAtUnixMs = postedAtUnixMs
  }
}

/// The rules that decide whether two requests fit each other.
public enum MatchRules {
  /// The skill tolerance when the player sets none.
  public static let defaultSkillTolerance = 2
  /// The skill tolerances a player may choose.
  public static let skillTolerances = 0...8

  /// The radius if it is finite, more than 0 and at most 50 miles.
  public static func validateRadius(_ miles: Double) throws(DomainError) -> Double {
    guard miles.isFinite, miles > 0, miles <= Geo.maximumRadiusMiles else {
      throw .invalidField(
        "radius_miles", "RADIUS_OUT_OF_RANGE",
        en: "The radius must be more than 0 and at most 50 miles.",
        zhCN: "搜索半径须大于 0 且不超过 50 英里。")
    }
    return miles
  }

  /// The skill tolerance if it is from 0 to 8 levels.
  public static func validateSkillTolerance(_ levels: Int) throws(DomainError) -> Int {
    guard skillTolerances.contains(levels) else {
      throw .invalidField(
        "skill_tolerance", "SKILL_TOLERANCE_INVALID",
        en: "The skill tolerance must be from 0 to 8 levels.",
        zhCN: "水平差距须在 0 到 8 级之间。")
    }
    return levels
  }

  /// `other` as a candidate for `request` if the two fit: different players, the same mode, at
  /// least 30 minutes in common, a shown distance (`LocationPrivacy.shownDistanceMiles`) within
  /// both radii (and 50 miles), each rounded up to whole bands, and levels
  /// within both tolerances. The rule is symmetric; blocks and confirmed matches are the index's
  /// to check.
  public static func candidate(_ other: MatchRequest, for request: MatchRequest)
    -> MatchCandidate?
  {
    candidate(
      other, shownAt: LocationPrivacy.shownPosition(of: other.location), for: request,
      shownAt: LocationPrivacy.shownPosition(of: request.location))
  }

  /// `candidate(_:for:)` with both requests' shown positions (`LocationPrivacy.shownPosition`)
  /// given, for a search that keeps them instead of computing them for every pair.
  static func candidate(
    _ other: MatchRequest, shownAt otherShown: Coordinate, for request: MatchRequest,
    shownAt requestShown: Coordinate
  ) -> MatchCandidate? {
    guard other.playerID != request.playerID, other.mode == request.mode,
      let overlap = request.slot.overlap(with: other.slot)
    else { return nil }
    let skillDifference = abs(other.displayLevel - request.displayLevel)
    guard skillDifference <= min(request.skillTolerance, other.skillTolerance) else { return nil }
    // Only the distance players are shown decides, so that whether a request fits tells
    // nothing finer about where it is than its cell (see `LocationPrivacy`).
    let distance = LocationPrivacy.distanceMiles(betweenShown: requestShown, otherShown)
    let radius = min(request.radiusMiles, other.radiusMiles, Geo.maximumRadiusMiles)
    guard distance <= LocationPrivacy.banded(radius) else { return nil }
    return MatchCandidate(
      requestID: other.id, playerID: other.playerID, distanceMiles: distance,
      skillDifference: skillDifference, overlap: overlap, postedAtUnixMs: other.postedAtUnixMs)
  }
}
