import BadmintonAPI

// The API's matching messages share their names with the domain's types; the services name the
// API's by these aliases (the module `BadmintonAPI` also holds an enum of that name, so
// `BadmintonAPI.MatchMode` cannot be written).

/// `badminton.v1.MatchMode`.
typealias APIMatchMode = MatchMode
/// `badminton.v1.TimeSlot`.
typealias APITimeSlot = TimeSlot
/// `badminton.v1.LocalDate`.
typealias APILocalDate = LocalDate
/// `badminton.v1.RecurringSlot`.
typealias APIRecurringSlot = RecurringSlot
/// `badminton.v1.MatchCandidate`.
typealias APIMatchCandidate = MatchCandidate
/// `badminton.v1.MatchRelaxation`.
typealias APIMatchRelaxation = MatchRelaxation
