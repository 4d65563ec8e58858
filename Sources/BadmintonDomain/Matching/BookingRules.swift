/// Where a match stands: confirmed, cancelled by a participant, or completed with a result.
public enum MatchStatus: Hashable, Sendable {
  /// Every player agreed (or the room's owner started it); it is to be played.
  case confirmed
  /// A participant cancelled it before its start.
  case cancelled
  /// A participant recorded its result.
  case completed
}

/// One match of a player, as the booking rule reads it: its time and where it stands.
public struct BookedMatch: Hashable, Sendable {
  /// The match's time.
  public var slot: TimeSlot
  /// Where the match stands.
  public var status: MatchStatus

  /// A match over `slot` standing at `status`; confirmed unless told otherwise.
  public init(slot: TimeSlot, status: MatchStatus = .confirmed) {
    self.slot = slot
    self.status = status
  }
}

/// When a player is already booked: the one rule behind searches leaving out busy players,
/// proposals lapsing at their last acceptance and rooms refusing to start.
public enum BookingRules {
  /// Whether two slots share any time at all: each starts before the other ends. Ends are
  /// excluded, so a slot that starts when the other ends does not overlap it.
  public static func overlaps(_ a: TimeSlot, _ b: TimeSlot) -> Bool {
    a.startUnixMs < b.endUnixMs && b.startUnixMs < a.endUnixMs
  }

  /// Whether a match at `status` holds its players' time: every match not cancelled does. A
  /// match completed early still holds its whole slot.
  public static func holdsTime(_ status: MatchStatus) -> Bool {
    status != .cancelled
  }

  /// Whether a player whose matches are `matches` is booked during `slot`: one of them holds
  /// its players' time and overlaps `slot` by any time.
  public static func isBooked(_ matches: some Sequence<BookedMatch>, during slot: TimeSlot)
    -> Bool
  {
    matches.contains { holdsTime($0.status) && overlaps($0.slot, slot) }
  }
}
