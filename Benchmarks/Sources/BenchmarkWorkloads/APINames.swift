import BadmintonAPI

// The API's matching messages share their names with the domain's types; the benchmarks name
// the API's by these aliases, as the services do.

/// `badminton.v1.MatchCandidate`.
typealias APIMatchCandidate = MatchCandidate
/// `badminton.v1.TimeSlot`.
typealias APITimeSlot = TimeSlot
