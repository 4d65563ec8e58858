/// A way to widen a search that found nothing, with how many requests it would find.
public struct MatchRelaxation: Hashable, Sendable {
  /// What is relaxed.
  public enum Kind: Hashable, Sendable {
    /// The slot starts up to `hours` earlier and ends as much later, staying within 8 hours.
    case widenTime(hours: Int)
    /// The skill tolerance is `levels` higher, at most 8.
    case raiseTolerance(levels: Int)
    /// The radius is `miles`.
    case widenRadius(miles: Double)
  }

  /// What is relaxed.
  public var kind: Kind
  /// The search's slot with the relaxation.
  public var slot: TimeSlot
  /// The search's skill tolerance with the relaxation.
  public var skillTolerance: Int
  /// The search's radius with the relaxation, in miles.
  public var radiusMiles: Double
  /// How many requests the relaxed search finds. The other players' own radii and tolerances
  /// still apply.
  public var candidateCount: Int

  /// A relaxation with the given fields.
  public init(
    kind: Kind, slot: TimeSlot, skillTolerance: Int, radiusMiles: Double, candidateCount: Int
  ) {
    self.kind = kind
    self.slot = slot
    self.skillTolerance = skillTolerance
    self.radiusMiles = radiusMiles
    self.candidateCount = candidateCount
  }

  /// The relaxed searches, each changing one thing, in this order: the slot widened by 1 and by
  /// 2 hours on each side (by less where 8 hours would be passed), the tolerance raised by 1 and
  /// by 2 levels (at most 8), and the radius at 50 miles. A relaxation that changes nothing, or
  /// gives the same search as one before it, is left out.
  static func options(for query: MatchRequest) -> [(Kind, MatchRequest)] {
    var result: [(Kind, MatchRequest)] = []
    func add(_ kind: Kind, _ relaxed: MatchRequest) {
      guard relaxed != query, !result.contains(where: { $0.1 == relaxed }) else { return }
      result.append((kind, relaxed))
    }
    let spareMs = max(0, TimeSlotRules.maximumDurationSeconds * 1000 - query.slot.durationMs)
    for hours in 1...2 {
      let widening = min(Int64(hours) * 3_600_000, spareMs / 2)
      var relaxed = query
      relaxed.slot.startUnixMs -= widening
      relaxed.slot.endUnixMs += widening
      add(.widenTime(hours: hours), relaxed)
    }
    for levels in 1...2 {
      var relaxed = query
      relaxed.skillTolerance = min(
        query.skillTolerance + levels, MatchRules.skillTolerances.upperBound)
      add(.raiseTolerance(levels: levels), relaxed)
    }
    var relaxed = query
    relaxed.radiusMiles = max(query.radiusMiles, Geo.maximumRadiusMiles)
    add(.widenRadius(miles: Geo.maximumRadiusMiles), relaxed)
    return result
  }
}
