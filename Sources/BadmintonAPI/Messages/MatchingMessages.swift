public import BadmintonRPC
public import CBadmintonProto

/// Whether a player wants to play one against one or in pairs (`badminton.v1.MatchMode`).
public struct MatchMode: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `MATCH_MODE_UNSPECIFIED`.
  public static let unspecified = MatchMode(rawValue: 0)
  /// `SINGLES`: one against one.
  public static let singles = MatchMode(rawValue: 1)
  /// `DOUBLES`: two against two.
  public static let doubles = MatchMode(rawValue: 2)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "MATCH_MODE_UNSPECIFIED"
    case 1: "SINGLES"
    case 2: "DOUBLES"
    default: "MATCH_MODE_\(rawValue)"
    }
  }
}

/// Where an availability came from (`badminton.v1.AvailabilitySource`).
public struct AvailabilitySource: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `AVAILABILITY_SOURCE_UNSPECIFIED`.
  public static let unspecified = AvailabilitySource(rawValue: 0)
  /// `POSTED`: posted with `PostAvailability`.
  public static let posted = AvailabilitySource(rawValue: 1)
  /// `RECURRING`: one day of an active recurring slot.
  public static let recurring = AvailabilitySource(rawValue: 2)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "AVAILABILITY_SOURCE_UNSPECIFIED"
    case 1: "POSTED"
    case 2: "RECURRING"
    default: "AVAILABILITY_SOURCE_\(rawValue)"
    }
  }
}

/// One change to a search that found nobody (`badminton.v1.RelaxationKind`).
public struct RelaxationKind: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `RELAXATION_KIND_UNSPECIFIED`.
  public static let unspecified = RelaxationKind(rawValue: 0)
  /// `WIDEN_TIME`: the time range widened on each side.
  public static let widenTime = RelaxationKind(rawValue: 1)
  /// `RAISE_SKILL_TOLERANCE`: the skill tolerance raised.
  public static let raiseSkillTolerance = RelaxationKind(rawValue: 2)
  /// `WIDEN_RADIUS`: the radius raised to 50 miles.
  public static let widenRadius = RelaxationKind(rawValue: 3)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "RELAXATION_KIND_UNSPECIFIED"
    case 1: "WIDEN_TIME"
    case 2: "RAISE_SKILL_TOLERANCE"
    case 3: "WIDEN_RADIUS"
    default: "RELAXATION_KIND_\(rawValue)"
    }
  }
}

/// Where a proposal to play stands (`badminton.v1.ProposalState`).
public struct ProposalState: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `PROPOSAL_STATE_UNSPECIFIED`.
  public static let unspecified = ProposalState(rawValue: 0)
  /// `PROPOSAL_PENDING`: waiting for the invited players' answers.
  public static let pending = ProposalState(rawValue: 1)
  /// `PROPOSAL_ACCEPTED`: everyone accepted, and the match is confirmed.
  public static let accepted = ProposalState(rawValue: 2)
  /// `PROPOSAL_DECLINED`: someone declined.
  public static let declined = ProposalState(rawValue: 3)
  /// `PROPOSAL_LAPSED`: the slot started, 24 hours passed, or a needed availability went away.
  public static let lapsed = ProposalState(rawValue: 4)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "PROPOSAL_STATE_UNSPECIFIED"
    case 1: "PROPOSAL_PENDING"
    case 2: "PROPOSAL_ACCEPTED"
    case 3: "PROPOSAL_DECLINED"
    case 4: "PROPOSAL_LAPSED"
    default: "PROPOSAL_STATE_\(rawValue)"
    }
  }
}

/// How an invited player answered a proposal (`badminton.v1.InviteeAnswer`).
public struct InviteeAnswer: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `INVITEE_ANSWER_UNSPECIFIED`.
  public static let unspecified = InviteeAnswer(rawValue: 0)
  /// `ANSWER_PENDING`: not answered yet.
  public static let pending = InviteeAnswer(rawValue: 1)
  /// `ANSWER_ACCEPTED`.
  public static let accepted = InviteeAnswer(rawValue: 2)
  /// `ANSWER_DECLINED`.
  public static let declined = InviteeAnswer(rawValue: 3)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "INVITEE_ANSWER_UNSPECIFIED"
    case 1: "ANSWER_PENDING"
    case 2: "ANSWER_ACCEPTED"
    case 3: "ANSWER_DECLINED"
    default: "INVITEE_ANSWER_\(rawValue)"
    }
  }
}

/// Whether a match will be played (`badminton.v1.MatchState`).
public struct MatchState: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `MATCH_STATE_UNSPECIFIED`.
  public static let unspecified = MatchState(rawValue: 0)
  /// `CONFIRMED`: every player accepted.
  public static let confirmed = MatchState(rawValue: 1)
  /// `CANCELLED`: a player cancelled it.
  public static let cancelled = MatchState(rawValue: 2)
  /// `COMPLETED`: played; the result is recorded.
  public static let completed = MatchState(rawValue: 3)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "MATCH_STATE_UNSPECIFIED"
    case 1: "CONFIRMED"
    case 2: "CANCELLED"
    case 3: "COMPLETED"
    default: "MATCH_STATE_\(rawValue)"
    }
  }
}

/// A calendar date in an availability's time zone (`badminton.v1.LocalDate`).
public struct LocalDate: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LocalDate`.
  public typealias CMessage = Badminton__V1__LocalDate
  /// protoc-c's descriptor of `badminton.v1.LocalDate`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LocalDate")

  /// The year, e.g. 2026.
  public var year: Int32
  /// 1-12.
  public var month: Int32
  /// 1-31.
  public var day: Int32

  /// The date with every field at zero, as an absent date decodes.
  public init() { self.init(year: 0) }

  /// A date with the given fields.
  public init(year: Int32 = 0, month: Int32 = 0, day: Int32 = 0) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.year = c.year
    self.month = c.month
    self.day = c.day
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__local_date__init(&c)
    c.year = year
    c.month = month
    c.day = day
    return c
  }
}

/// A point on the earth (`badminton.v1.GeoPoint`).
public struct GeoPoint: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GeoPoint`.
  public typealias CMessage = Badminton__V1__GeoPoint
  /// protoc-c's descriptor of `badminton.v1.GeoPoint`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GeoPoint")

  /// Degrees, -90 to 90.
  public var latitude: Double
  /// Degrees, -180 to 180.
  public var longitude: Double

  /// The point with every field at zero, as an absent point decodes.
  public init() { self.init(latitude: 0) }

  /// A point with the given fields.
  public init(latitude: Double = 0, longitude: Double = 0) {
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.latitude = c.latitude
    self.longitude = c.longitude
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__geo_point__init(&c)
    c.latitude = latitude
    c.longitude = longitude
    return c
  }
}

/// An interval of absolute time, start inclusive, end exclusive (`badminton.v1.TimeSlot`).
public struct TimeSlot: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.TimeSlot`.
  public typealias CMessage = Badminton__V1__TimeSlot
  /// protoc-c's descriptor of `badminton.v1.TimeSlot`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.TimeSlot")

  /// The start, in milliseconds since 1970-01-01 UTC.
  public var startUnixMs: Int64
  /// The end, in milliseconds since 1970-01-01 UTC.
  public var endUnixMs: Int64

  /// The slot with every field at zero, as an absent slot decodes.
  public init() { self.init(startUnixMs: 0) }

  /// A slot with the given fields.
  public init(startUnixMs: Int64 = 0, endUnixMs: Int64 = 0) {
    self.startUnixMs = startUnixMs
    self.endUnixMs = endUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.startUnixMs = c.start_unix_ms
    self.endUnixMs = c.end_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__time_slot__init(&c)
    c.start_unix_ms = startUnixMs
    c.end_unix_ms = endUnixMs
    return c
  }
}

/// How far apart two players' levels may be (`badminton.v1.SkillTolerance`).
public struct SkillTolerance: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SkillTolerance`.
  public typealias CMessage = Badminton__V1__SkillTolerance
  /// protoc-c's descriptor of `badminton.v1.SkillTolerance`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SkillTolerance")

  /// 0-8.
  public var levels: Int32

  /// The tolerance with every field at its default: 0 levels.
  public init() { self.init(levels: 0) }

  /// A tolerance of `levels`.
  public init(levels: Int32 = 0) { self.levels = levels }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.levels = c.levels
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__skill_tolerance__init(&c)
    c.levels = levels
    return c
  }
}

/// A stretch of time the caller can play on one day (`badminton.v1.PostAvailabilityRequest`).
public struct PostAvailabilityRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.PostAvailabilityRequest`.
  public typealias CMessage = Badminton__V1__PostAvailabilityRequest
  /// protoc-c's descriptor of `badminton.v1.PostAvailabilityRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.PostAvailabilityRequest")

  /// Singles or doubles.
  public var mode: MatchMode
  /// Today to 13 days ahead, in `timeZone`; always encoded, and all zero when absent on the wire.
  public var date: LocalDate
  /// Minutes after local midnight, 0-1439.
  public var startMinute: Int32
  /// Minutes after local midnight, 1-1440; 1 to 8 hours after the start.
  public var endMinute: Int32
  /// An IANA time zone, e.g. `Asia/Shanghai`.
  public var timeZone: String
  /// Where the caller plays; nil = the caller's last known location.
  public var location: GeoPoint?
  /// Up to 50; 0 = 10.
  public var radiusMiles: Double
  /// How far apart levels may be; nil = 2, and a tolerance of 0 is kept apart from nil.
  public var skillTolerance: SkillTolerance?

  /// The request with every field at its default.
  public init() { self.init(mode: .unspecified) }

  /// A request with the given fields.
  public init(
    mode: MatchMode = .unspecified,
    date: LocalDate = LocalDate(),
    startMinute: Int32 = 0,
    endMinute: Int32 = 0,
    timeZone: String = "",
    location: GeoPoint? = nil,
    radiusMiles: Double = 0,
    skillTolerance: SkillTolerance? = nil
  ) {
    self.mode = mode
    self.date = date
    self.startMinute = startMinute
    self.endMinute = endMinute
    self.timeZone = timeZone
    self.location = location
    self.radiusMiles = radiusMiles
    self.skillTolerance = skillTolerance
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.mode = MatchMode(rawValue: CField.enumValue(c.mode))
    self.date = try CField.message(c.date, as: LocalDate.self) ?? LocalDate()
    self.startMinute = c.start_minute
    self.endMinute = c.end_minute
    self.timeZone = CField.string(c.time_zone)
    self.location = try CField.message(c.location, as: GeoPoint.self)
    self.radiusMiles = c.radius_miles
    self.skillTolerance = try CField.message(c.skill_tolerance, as: SkillTolerance.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__post_availability_request__init(&c)
    c.mode = CField.cEnum(mode.rawValue, as: Badminton__V1__MatchMode.self)
    c.date = arena.pointer(to: date.cMessage(in: arena))
    c.start_minute = startMinute
    c.end_minute = endMinute
    c.time_zone = arena.string(timeZone)
    c.location = location.map { arena.pointer(to: $0.cMessage(in: arena)) }
    c.radius_miles = radiusMiles
    c.skill_tolerance = skillTolerance.map { arena.pointer(to: $0.cMessage(in: arena)) }
    return c
  }
}

/// One stretch of time a player can play (`badminton.v1.Availability`).
public struct Availability: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Availability`.
  public typealias CMessage = Badminton__V1__Availability
  /// protoc-c's descriptor of `badminton.v1.Availability`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Availability")

  /// The availability's ID.
  public var id: Int64
  /// The ID of the player who can play.
  public var userID: Int64
  /// Singles or doubles.
  public var mode: MatchMode
  /// The day, in `timeZone`; always encoded, and all zero when absent on the wire.
  public var date: LocalDate
  /// Minutes after local midnight, 0-1439.
  public var startMinute: Int32
  /// Minutes after local midnight, 1-1440.
  public var endMinute: Int32
  /// An IANA time zone, e.g. `Asia/Shanghai`.
  public var timeZone: String
  /// The same time as absolute instants; always encoded, and all zero when absent on the wire.
  public var slot: TimeSlot
  /// Where the player plays; always encoded, and all zero when absent on the wire.
  public var location: GeoPoint
  /// How far the player will travel, in miles.
  public var radiusMiles: Double
  /// How many levels apart a partner may be.
  public var skillTolerance: Int32
  /// When it was posted, in milliseconds since 1970-01-01 UTC.
  public var postedAtUnixMs: Int64
  /// Posted, or one day of a recurring slot.
  public var source: AvailabilitySource

  /// The availability with every field at its default.
  public init() { self.init(id: 0) }

  /// An availability with the given fields.
  public init(
    id: Int64 = 0,
    userID: Int64 = 0,
    mode: MatchMode = .unspecified,
    date: LocalDate = LocalDate(),
    startMinute: Int32 = 0,
    endMinute: Int32 = 0,
    timeZone: String = "",
    slot: TimeSlot = TimeSlot(),
    location: GeoPoint = GeoPoint(),
    radiusMiles: Double = 0,
    skillTolerance: Int32 = 0,
    postedAtUnixMs: Int64 = 0,
    source: AvailabilitySource = .unspecified
  ) {
    self.id = id
    self.userID = userID
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

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.id = c.id
    self.userID = c.user_id
    self.mode = MatchMode(rawValue: CField.enumValue(c.mode))
    self.date = try CField.message(c.date, as: LocalDate.self) ?? LocalDate()
    self.startMinute = c.start_minute
    self.endMinute = c.end_minute
    self.timeZone = CField.string(c.time_zone)
    self.slot = try CField.message(c.slot, as: TimeSlot.self) ?? TimeSlot()
    self.location = try CField.message(c.location, as: GeoPoint.self) ?? GeoPoint()
    self.radiusMiles = c.radius_miles
    self.skillTolerance = c.skill_tolerance
    self.postedAtUnixMs = c.posted_at_unix_ms
    self.source = AvailabilitySource(rawValue: CField.enumValue(c.source))
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__availability__init(&c)
    c.id = id
    c.user_id = userID
    c.mode = CField.cEnum(mode.rawValue, as: Badminton__V1__MatchMode.self)
    c.date = arena.pointer(to: date.cMessage(in: arena))
    c.start_minute = startMinute
    c.end_minute = endMinute
    c.time_zone = arena.string(timeZone)
    c.slot = arena.pointer(to: slot.cMessage(in: arena))
    c.location = arena.pointer(to: location.cMessage(in: arena))
    c.radius_miles = radiusMiles
    c.skill_tolerance = skillTolerance
    c.posted_at_unix_ms = postedAtUnixMs
    c.source = CField.cEnum(source.rawValue, as: Badminton__V1__AvailabilitySource.self)
    return c
  }
}

/// Withdraws one of the caller's availability (`badminton.v1.CancelAvailabilityRequest`).
public struct CancelAvailabilityRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.CancelAvailabilityRequest`.
  public typealias CMessage = Badminton__V1__CancelAvailabilityRequest
  /// protoc-c's descriptor of `badminton.v1.CancelAvailabilityRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.CancelAvailabilityRequest")

  /// The availability's ID.
  public var availabilityID: Int64

  /// The request with every field at its default.
  public init() { self.init(availabilityID: 0) }

  /// A request to cancel `availabilityID`.
  public init(availabilityID: Int64 = 0) { self.availabilityID = availabilityID }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.availabilityID = c.availability_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__cancel_availability_request__init(&c)
    c.availability_id = availabilityID
    return c
  }
}

/// The availability was withdrawn (`badminton.v1.CancelAvailabilityResponse`).
public struct CancelAvailabilityResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.CancelAvailabilityResponse`.
  public typealias CMessage = Badminton__V1__CancelAvailabilityResponse
  /// protoc-c's descriptor of `badminton.v1.CancelAvailabilityResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.CancelAvailabilityResponse")

  /// The response; it has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {}

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__cancel_availability_response__init(&c)
    return c
  }
}

/// Asks for the caller's active availability (`badminton.v1.ListMyAvailabilityRequest`).
public struct ListMyAvailabilityRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListMyAvailabilityRequest`.
  public typealias CMessage = Badminton__V1__ListMyAvailabilityRequest
  /// protoc-c's descriptor of `badminton.v1.ListMyAvailabilityRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListMyAvailabilityRequest")

  /// The request; it has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {}

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_my_availability_request__init(&c)
    return c
  }
}

/// The caller's active availability (`badminton.v1.ListMyAvailabilityResponse`).
public struct ListMyAvailabilityResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListMyAvailabilityResponse`.
  public typealias CMessage = Badminton__V1__ListMyAvailabilityResponse
  /// protoc-c's descriptor of `badminton.v1.ListMyAvailabilityResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListMyAvailabilityResponse")

  /// The caller's active availability, earliest start first.
  public var availability: [Availability]

  /// The response with every field at its default.
  public init() { self.init(availability: []) }

  /// A response listing `availability`.
  public init(availability: [Availability] = []) { self.availability = availability }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.availability = try CField.messages(
      c.n_availability, c.availability, as: Availability.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_my_availability_response__init(&c)
    (c.n_availability, c.availability) = arena.messages(availability)
    return c
  }
}

/// A weekly slot: every such weekday, as if posted that day (`badminton.v1.RecurringSlot`).
public struct RecurringSlot: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RecurringSlot`.
  public typealias CMessage = Badminton__V1__RecurringSlot
  /// protoc-c's descriptor of `badminton.v1.RecurringSlot`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RecurringSlot")

  /// 1 = Sunday ... 7 = Saturday.
  public var weekday: Int32
  /// Minutes after local midnight, 0-1439.
  public var startMinute: Int32
  /// Minutes after local midnight, 1-1440.
  public var endMinute: Int32
  /// Singles or doubles.
  public var mode: MatchMode
  /// False while the slot is paused.
  public var active: Bool

  /// The slot with every field at its default.
  public init() { self.init(weekday: 0) }

  /// A slot with the given fields.
  public init(
    weekday: Int32 = 0,
    startMinute: Int32 = 0,
    endMinute: Int32 = 0,
    mode: MatchMode = .unspecified,
    active: Bool = false
  ) {
    self.weekday = weekday
    self.startMinute = startMinute
    self.endMinute = endMinute
    self.mode = mode
    self.active = active
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.weekday = c.weekday
    self.startMinute = c.start_minute
    self.endMinute = c.end_minute
    self.mode = MatchMode(rawValue: CField.enumValue(c.mode))
    self.active = c.active != 0
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__recurring_slot__init(&c)
    c.weekday = weekday
    c.start_minute = startMinute
    c.end_minute = endMinute
    c.mode = CField.cEnum(mode.rawValue, as: Badminton__V1__MatchMode.self)
    c.active = active ? 1 : 0
    return c
  }
}

/// Replaces the caller's recurring slots (`badminton.v1.SaveRecurringSlotsRequest`).
public struct SaveRecurringSlotsRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SaveRecurringSlotsRequest`.
  public typealias CMessage = Badminton__V1__SaveRecurringSlotsRequest
  /// protoc-c's descriptor of `badminton.v1.SaveRecurringSlotsRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SaveRecurringSlotsRequest")

  /// At most 5; an empty list removes them all.
  public var slots: [RecurringSlot]
  /// An IANA time zone, e.g. `Asia/Shanghai`.
  public var timeZone: String
  /// Where the caller plays; nil = the caller's last known location.
  public var location: GeoPoint?
  /// Up to 50; 0 = 10.
  public var radiusMiles: Double
  /// How far apart levels may be; nil = 2, and a tolerance of 0 is kept apart from nil.
  public var skillTolerance: SkillTolerance?

  /// The request with every field at its default: it removes every slot.
  public init() { self.init(slots: []) }

  /// A request with the given fields.
  public init(
    slots: [RecurringSlot] = [],
    timeZone: String = "",
    location: GeoPoint? = nil,
    radiusMiles: Double = 0,
    skillTolerance: SkillTolerance? = nil
  ) {
    self.slots = slots
    self.timeZone = timeZone
    self.location = location
    self.radiusMiles = radiusMiles
    self.skillTolerance = skillTolerance
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.slots = try CField.messages(c.n_slots, c.slots, as: RecurringSlot.self)
    self.timeZone = CField.string(c.time_zone)
    self.location = try CField.message(c.location, as: GeoPoint.self)
    self.radiusMiles = c.radius_miles
    self.skillTolerance = try CField.message(c.skill_tolerance, as: SkillTolerance.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__save_recurring_slots_request__init(&c)
    (c.n_slots, c.slots) = arena.messages(slots)
    c.time_zone = arena.string(timeZone)
    c.location = location.map { arena.pointer(to: $0.cMessage(in: arena)) }
    c.radius_miles = radiusMiles
    c.skill_tolerance = skillTolerance.map { arena.pointer(to: $0.cMessage(in: arena)) }
    return c
  }
}

/// Asks for the caller's recurring slots (`badminton.v1.GetRecurringSlotsRequest`).
public struct GetRecurringSlotsRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetRecurringSlotsRequest`.
  public typealias CMessage = Badminton__V1__GetRecurringSlotsRequest
  /// protoc-c's descriptor of `badminton.v1.GetRecurringSlotsRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetRecurringSlotsRequest")

  /// The request; it has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {}

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_recurring_slots_request__init(&c)
    return c
  }
}

/// The caller's recurring slots and where they apply (`badminton.v1.RecurringSlots`).
public struct RecurringSlots: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RecurringSlots`.
  public typealias CMessage = Badminton__V1__RecurringSlots
  /// protoc-c's descriptor of `badminton.v1.RecurringSlots`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RecurringSlots")

  /// The slots.
  public var slots: [RecurringSlot]
  /// An IANA time zone, e.g. `Asia/Shanghai`.
  public var timeZone: String
  /// Where the slots apply; nil when the wire carries none.
  public var location: GeoPoint?
  /// How far the player will travel, in miles.
  public var radiusMiles: Double
  /// How many levels apart a partner may be.
  public var skillTolerance: Int32

  /// The message with every field at its default.
  public init() { self.init(slots: []) }

  /// Recurring slots with the given fields.
  public init(
    slots: [RecurringSlot] = [],
    timeZone: String = "",
    location: GeoPoint? = nil,
    radiusMiles: Double = 0,
    skillTolerance: Int32 = 0
  ) {
    self.slots = slots
    self.timeZone = timeZone
    self.location = location
    self.radiusMiles = radiusMiles
    self.skillTolerance = skillTolerance
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.slots = try CField.messages(c.n_slots, c.slots, as: RecurringSlot.self)
    self.timeZone = CField.string(c.time_zone)
    self.location = try CField.message(c.location, as: GeoPoint.self)
    self.radiusMiles = c.radius_miles
    self.skillTolerance = c.skill_tolerance
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__recurring_slots__init(&c)
    (c.n_slots, c.slots) = arena.messages(slots)
    c.time_zone = arena.string(timeZone)
    c.location = location.map { arena.pointer(to: $0.cMessage(in: arena)) }
    c.radius_miles = radiusMiles
    c.skill_tolerance = skillTolerance
    return c
  }
}

/// Asks for one page of partners for an availability (`badminton.v1.FindMatchesRequest`).
public struct FindMatchesRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.FindMatchesRequest`.
  public typealias CMessage = Badminton__V1__FindMatchesRequest
  /// protoc-c's descriptor of `badminton.v1.FindMatchesRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.FindMatchesRequest")

  /// One of the caller's active availability.
  public var availabilityID: Int64
  /// Candidates per page, 1-100; 0 = 20.
  public var pageSize: Int32
  /// The previous page's `nextPageToken`; empty for the first page.
  public var pageToken: String

  /// The request with every field at its default.
  public init() { self.init(availabilityID: 0) }

  /// A request with the given fields.
  public init(availabilityID: Int64 = 0, pageSize: Int32 = 0, pageToken: String = "") {
    self.availabilityID = availabilityID
    self.pageSize = pageSize
    self.pageToken = pageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.availabilityID = c.availability_id
    self.pageSize = c.page_size
    self.pageToken = CField.string(c.page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__find_matches_request__init(&c)
    c.availability_id = availabilityID
    c.page_size = pageSize
    c.page_token = arena.string(pageToken)
    return c
  }
}

/// A player whose availability fits the caller's (`badminton.v1.MatchCandidate`).
public struct MatchCandidate: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.MatchCandidate`.
  public typealias CMessage = Badminton__V1__MatchCandidate
  /// protoc-c's descriptor of `badminton.v1.MatchCandidate`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.MatchCandidate")

  /// The ID of the candidate's availability.
  public var availabilityID: Int64
  /// The candidate's ID.
  public var userID: Int64
  /// The candidate's nickname.
  public var nickname: String
  /// The level shown for the candidate.
  public var displayLevel: Int32
  /// True with fewer than 5 peer evaluations.
  public var newPlayer: Bool
  /// How peers rated the candidate; always encoded, and all zero when absent on the wire.
  public var reputation: ReputationSummary
  /// Distance from the caller in miles.
  public var distanceMiles: Double
  /// How many levels apart the two players are.
  public var skillDifference: Int32
  /// The time both can play; always encoded, and all zero when absent on the wire.
  public var overlap: TimeSlot

  /// The candidate with every field at its default.
  public init() { self.init(availabilityID: 0) }

  /// A candidate with the given fields.
  public init(
    availabilityID: Int64 = 0,
    userID: Int64 = 0,
    nickname: String = "",
    displayLevel: Int32 = 0,
    newPlayer: Bool = false,
    reputation: ReputationSummary = ReputationSummary(),
    distanceMiles: Double = 0,
    skillDifference: Int32 = 0,
    overlap: TimeSlot = TimeSlot()
  ) {
    self.availabilityID = availabilityID
    self.userID = userID
    self.nickname = nickname
    self.displayLevel = displayLevel
    self.newPlayer = newPlayer
    self.reputation = reputation
    self.distanceMiles = distanceMiles
    self.skillDifference = skillDifference
    self.overlap = overlap
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.availabilityID = c.availability_id
    self.userID = c.user_id
    self.nickname = CField.string(c.nickname)
    self.displayLevel = c.display_level
    self.newPlayer = c.new_player != 0
    self.reputation =
      try CField.message(c.reputation, as: ReputationSummary.self) ?? ReputationSummary()
    self.distanceMiles = c.distance_miles
    self.skillDifference = c.skill_difference
    self.overlap = try CField.message(c.overlap, as: TimeSlot.self) ?? TimeSlot()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__match_candidate__init(&c)
    c.availability_id = availabilityID
    c.user_id = userID
    c.nickname = arena.string(nickname)
    c.display_level = displayLevel
    c.new_player = newPlayer ? 1 : 0
    c.reputation = arena.pointer(to: reputation.cMessage(in: arena))
    c.distance_miles = distanceMiles
    c.skill_difference = skillDifference
    c.overlap = arena.pointer(to: overlap.cMessage(in: arena))
    return c
  }
}

/// What one change to the search would find (`badminton.v1.MatchRelaxation`).
public struct MatchRelaxation: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.MatchRelaxation`.
  public typealias CMessage = Badminton__V1__MatchRelaxation
  /// protoc-c's descriptor of `badminton.v1.MatchRelaxation`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.MatchRelaxation")

  /// Which change.
  public var kind: RelaxationKind
  /// The slot the count was made with; always encoded, and all zero when absent on the wire.
  public var slot: TimeSlot
  /// The skill tolerance the count was made with.
  public var skillTolerance: Int32
  /// The radius the count was made with, in miles.
  public var radiusMiles: Double
  /// How many partners the changed search finds.
  public var candidateCount: Int32

  /// The relaxation with every field at its default.
  public init() { self.init(kind: .unspecified) }

  /// A relaxation with the given fields.
  public init(
    kind: RelaxationKind = .unspecified,
    slot: TimeSlot = TimeSlot(),
    skillTolerance: Int32 = 0,
    radiusMiles: Double = 0,
    candidateCount: Int32 = 0
  ) {
    self.kind = kind
    self.slot = slot
    self.skillTolerance = skillTolerance
    self.radiusMiles = radiusMiles
    self.candidateCount = candidateCount
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.kind = RelaxationKind(rawValue: CField.enumValue(c.kind))
    self.slot = try CField.message(c.slot, as: TimeSlot.self) ?? TimeSlot()
    self.skillTolerance = c.skill_tolerance
    self.radiusMiles = c.radius_miles
    self.candidateCount = c.candidate_count
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__match_relaxation__init(&c)
    c.kind = CField.cEnum(kind.rawValue, as: Badminton__V1__RelaxationKind.self)
    c.slot = arena.pointer(to: slot.cMessage(in: arena))
    c.skill_tolerance = skillTolerance
    c.radius_miles = radiusMiles
    c.candidate_count = candidateCount
    return c
  }
}

/// One page of partners, or suggestions when none fit (`badminton.v1.FindMatchesResponse`).
public struct FindMatchesResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.FindMatchesResponse`.
  public typealias CMessage = Badminton__V1__FindMatchesResponse
  /// protoc-c's descriptor of `badminton.v1.FindMatchesResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.FindMatchesResponse")

  /// Smallest skill difference first, then nearest, then earliest posted.
  public var candidates: [MatchCandidate]
  /// The token of the next page; empty on the last page.
  public var nextPageToken: String
  /// Only when nothing fits at all: how many partners each relaxation would find.
  public var suggestions: [MatchRelaxation]

  /// The response with every field at its default.
  public init() { self.init(candidates: []) }

  /// A response with the given fields.
  public init(
    candidates: [MatchCandidate] = [],
    nextPageToken: String = "",
    suggestions: [MatchRelaxation] = []
  ) {
    self.candidates = candidates
    self.nextPageToken = nextPageToken
    self.suggestions = suggestions
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.candidates = try CField.messages(c.n_candidates, c.candidates, as: MatchCandidate.self)
    self.nextPageToken = CField.string(c.next_page_token)
    self.suggestions = try CField.messages(
      c.n_suggestions, c.suggestions, as: MatchRelaxation.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__find_matches_response__init(&c)
    (c.n_candidates, c.candidates) = arena.messages(candidates)
    c.next_page_token = arena.string(nextPageToken)
    (c.n_suggestions, c.suggestions) = arena.messages(suggestions)
    return c
  }
}

/// `badminton.v1.PartnerAvailable`: someone's new availability fits one of the player's own.
public struct PartnerAvailable: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.PartnerAvailable`.
  public typealias CMessage = Badminton__V1__PartnerAvailable
  /// protoc-c's descriptor of `badminton.v1.PartnerAvailable`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.PartnerAvailable")

  /// The player's availability it fits.
  public var availabilityID: Int64
  /// The partner; always encoded, and all default when absent on the wire.
  public var candidate: MatchCandidate

  /// The message with every field at its default.
  public init() { self.init(availabilityID: 0) }

  /// A message with the given fields.
  public init(availabilityID: Int64 = 0, candidate: MatchCandidate = MatchCandidate()) {
    self.availabilityID = availabilityID
    self.candidate = candidate
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.availabilityID = c.availability_id
    self.candidate = try CField.message(c.candidate, as: MatchCandidate.self) ?? MatchCandidate()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__partner_available__init(&c)
    c.availability_id = availabilityID
    c.candidate = arena.pointer(to: candidate.cMessage(in: arena))
    return c
  }
}

/// One player invited by a proposal, and their answer (`badminton.v1.ProposalInvitee`).
public struct ProposalInvitee: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ProposalInvitee`.
  public typealias CMessage = Badminton__V1__ProposalInvitee
  /// protoc-c's descriptor of `badminton.v1.ProposalInvitee`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ProposalInvitee")

  /// The invited player's ID.
  public var userID: Int64
  /// The invited player's availability the proposal would use.
  public var availabilityID: Int64
  /// Pending, accepted or declined.
  public var answer: InviteeAnswer

  /// The invitee with every field at its default.
  public init() { self.init(userID: 0) }

  /// An invitee with the given fields.
  public init(userID: Int64 = 0, availabilityID: Int64 = 0, answer: InviteeAnswer = .unspecified) {
    self.userID = userID
    self.availabilityID = availabilityID
    self.answer = answer
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
    self.availabilityID = c.availability_id
    self.answer = InviteeAnswer(rawValue: CField.enumValue(c.answer))
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__proposal_invitee__init(&c)
    c.user_id = userID
    c.availability_id = availabilityID
    c.answer = CField.cEnum(answer.rawValue, as: Badminton__V1__InviteeAnswer.self)
    return c
  }
}

/// An invitation to play, from one player to the partners they chose (`badminton.v1.Proposal`).
public struct Proposal: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Proposal`.
  public typealias CMessage = Badminton__V1__Proposal
  /// protoc-c's descriptor of `badminton.v1.Proposal`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Proposal")

  /// The proposal's ID.
  public var id: Int64
  /// The ID of the player who proposed.
  public var proposerID: Int64
  /// The proposer's availability the proposal would use.
  public var proposerAvailabilityID: Int64
  /// Singles or doubles.
  public var mode: MatchMode
  /// The time all of them can play; always encoded, and all zero when absent on the wire.
  public var slot: TimeSlot
  /// The invited players and their answers.
  public var invitees: [ProposalInvitee]
  /// Pending, accepted, declined or lapsed.
  public var state: ProposalState
  /// When it was proposed, in milliseconds since 1970-01-01 UTC.
  public var createdAtUnixMs: Int64
  /// The earlier of the slot's start and 24 hours after creation, in milliseconds since 1970.
  public var expiresAtUnixMs: Int64
  /// The match it became; set once the proposal is accepted.
  public var matchID: Int64

  /// The proposal with every field at its default.
  public init() { self.init(id: 0) }

  /// A proposal with the given fields.
  public init(
    id: Int64 = 0,
    proposerID: Int64 = 0,
    proposerAvailabilityID: Int64 = 0,
    mode: MatchMode = .unspecified,
    slot: TimeSlot = TimeSlot(),
    invitees: [ProposalInvitee] = [],
    state: ProposalState = .unspecified,
    createdAtUnixMs: Int64 = 0,
    expiresAtUnixMs: Int64 = 0,
    matchID: Int64 = 0
  ) {
    self.id = id
    self.proposerID = proposerID
    self.proposerAvailabilityID = proposerAvailabilityID
    self.mode = mode
    self.slot = slot
    self.invitees = invitees
    self.state = state
    self.createdAtUnixMs = createdAtUnixMs
    self.expiresAtUnixMs = expiresAtUnixMs
    self.matchID = matchID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.id = c.id
    self.proposerID = c.proposer_id
    self.proposerAvailabilityID = c.proposer_availability_id
    self.mode = MatchMode(rawValue: CField.enumValue(c.mode))
    self.slot = try CField.message(c.slot, as: TimeSlot.self) ?? TimeSlot()
    self.invitees = try CField.messages(c.n_invitees, c.invitees, as: ProposalInvitee.self)
    self.state = ProposalState(rawValue: CField.enumValue(c.state))
    self.createdAtUnixMs = c.created_at_unix_ms
    self.expiresAtUnixMs = c.expires_at_unix_ms
    self.matchID = c.match_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__proposal__init(&c)
    c.id = id
    c.proposer_id = proposerID
    c.proposer_availability_id = proposerAvailabilityID
    c.mode = CField.cEnum(mode.rawValue, as: Badminton__V1__MatchMode.self)
    c.slot = arena.pointer(to: slot.cMessage(in: arena))
    (c.n_invitees, c.invitees) = arena.messages(invitees)
    c.state = CField.cEnum(state.rawValue, as: Badminton__V1__ProposalState.self)
    c.created_at_unix_ms = createdAtUnixMs
    c.expires_at_unix_ms = expiresAtUnixMs
    c.match_id = matchID
    return c
  }
}

/// Invites the partners the caller chose to play (`badminton.v1.ProposeMatchRequest`).
public struct ProposeMatchRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ProposeMatchRequest`.
  public typealias CMessage = Badminton__V1__ProposeMatchRequest
  /// protoc-c's descriptor of `badminton.v1.ProposeMatchRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ProposeMatchRequest")

  /// One of the caller's active availability.
  public var availabilityID: Int64
  /// Availability from FindMatches: 1 for singles, 3 for doubles.
  public var candidateAvailabilityIDs: [Int64]

  /// The request with every field at its default.
  public init() { self.init(availabilityID: 0) }

  /// A request with the given fields.
  public init(availabilityID: Int64 = 0, candidateAvailabilityIDs: [Int64] = []) {
    self.availabilityID = availabilityID
    self.candidateAvailabilityIDs = candidateAvailabilityIDs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.availabilityID = c.availability_id
    if let ids = c.candidate_availability_ids {
      self.candidateAvailabilityIDs = Array(
        UnsafeBufferPointer(start: ids, count: c.n_candidate_availability_ids))
    } else {
      self.candidateAvailabilityIDs = []
    }
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__propose_match_request__init(&c)
    c.availability_id = availabilityID
    (c.n_candidate_availability_ids, c.candidate_availability_ids) = arena.scalars(
      candidateAvailabilityIDs)
    return c
  }
}

/// Accepts or declines a proposal (`badminton.v1.RespondToProposalRequest`).
public struct RespondToProposalRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RespondToProposalRequest`.
  public typealias CMessage = Badminton__V1__RespondToProposalRequest
  /// protoc-c's descriptor of `badminton.v1.RespondToProposalRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RespondToProposalRequest")

  /// The proposal's ID.
  public var proposalID: Int64
  /// True accepts, false declines.
  public var accept: Bool

  /// The request with every field at its default.
  public init() { self.init(proposalID: 0) }

  /// A request with the given fields.
  public init(proposalID: Int64 = 0, accept: Bool = false) {
    self.proposalID = proposalID
    self.accept = accept
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.proposalID = c.proposal_id
    self.accept = c.accept != 0
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__respond_to_proposal_request__init(&c)
    c.proposal_id = proposalID
    c.accept = accept ? 1 : 0
    return c
  }
}

/// Asks for one proposal the caller is part of (`badminton.v1.GetProposalRequest`).
public struct GetProposalRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetProposalRequest`.
  public typealias CMessage = Badminton__V1__GetProposalRequest
  /// protoc-c's descriptor of `badminton.v1.GetProposalRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetProposalRequest")

  /// The proposal's ID.
  public var proposalID: Int64

  /// The request with every field at its default.
  public init() { self.init(proposalID: 0) }

  /// A request for `proposalID`.
  public init(proposalID: Int64 = 0) { self.proposalID = proposalID }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.proposalID = c.proposal_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_proposal_request__init(&c)
    c.proposal_id = proposalID
    return c
  }
}

/// One player of a match (`badminton.v1.MatchParticipant`).
public struct MatchParticipant: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.MatchParticipant`.
  public typealias CMessage = Badminton__V1__MatchParticipant
  /// protoc-c's descriptor of `badminton.v1.MatchParticipant`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.MatchParticipant")

  /// The player's ID.
  public var userID: Int64
  /// The player's nickname.
  public var nickname: String
  /// The level shown for the player.
  public var displayLevel: Int32
  /// 1 or 2; in singles each player is a team.
  public var team: Int32
  /// The player's availability the match uses.
  public var availabilityID: Int64

  /// The participant with every field at its default.
  public init() { self.init(userID: 0) }

  /// A participant with the given fields.
  public init(
    userID: Int64 = 0,
    nickname: String = "",
    displayLevel: Int32 = 0,
    team: Int32 = 0,
    availabilityID: Int64 = 0
  ) {
    self.userID = userID
    self.nickname = nickname
    self.displayLevel = displayLevel
    self.team = team
    self.availabilityID = availabilityID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
    self.nickname = CField.string(c.nickname)
    self.displayLevel = c.display_level
    self.team = c.team
    self.availabilityID = c.availability_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__match_participant__init(&c)
    c.user_id = userID
    c.nickname = arena.string(nickname)
    c.display_level = displayLevel
    c.team = team
    c.availability_id = availabilityID
    return c
  }
}

/// A confirmed game (`badminton.v1.Match`).
public struct Match: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Match`.
  public typealias CMessage = Badminton__V1__Match
  /// protoc-c's descriptor of `badminton.v1.Match`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Match")

  /// The match's ID.
  public var id: Int64
  /// Singles or doubles.
  public var mode: MatchMode
  /// When it is played; always encoded, and all zero when absent on the wire.
  public var slot: TimeSlot
  /// The players and their teams.
  public var participants: [MatchParticipant]
  /// Confirmed or cancelled.
  public var state: MatchState
  /// The proposal it came from.
  public var proposalID: Int64
  /// When it was confirmed, in milliseconds since 1970-01-01 UTC.
  public var confirmedAtUnixMs: Int64
  /// The ID of the player who cancelled it; set when cancelled.
  public var cancelledBy: Int64
  /// When it was cancelled, in milliseconds since 1970-01-01 UTC; set when cancelled.
  public var cancelledAtUnixMs: Int64
  /// The winning team, 1 or 2; set when completed.
  public var winningTeam: Int32
  /// When its result was recorded, in milliseconds since 1970-01-01 UTC; set when completed.
  public var completedAtUnixMs: Int64
  /// The ID of the participant who recorded the result; set when completed.
  public var completedBy: Int64

  /// The match with every field at its default.
  public init() { self.init(id: 0) }

  /// A match with the given fields.
  public init(
    id: Int64 = 0,
    mode: MatchMode = .unspecified,
    slot: TimeSlot = TimeSlot(),
    participants: [MatchParticipant] = [],
    state: MatchState = .unspecified,
    proposalID: Int64 = 0,
    confirmedAtUnixMs: Int64 = 0,
    cancelledBy: Int64 = 0,
    cancelledAtUnixMs: Int64 = 0,
    winningTeam: Int32 = 0,
    completedAtUnixMs: Int64 = 0,
    completedBy: Int64 = 0
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
    self.winningTeam = winningTeam
    self.completedAtUnixMs = completedAtUnixMs
    self.completedBy = completedBy
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.id = c.id
    self.mode = MatchMode(rawValue: CField.enumValue(c.mode))
    self.slot = try CField.message(c.slot, as: TimeSlot.self) ?? TimeSlot()
    self.participants = try CField.messages(
      c.n_participants, c.participants, as: MatchParticipant.self)
    self.state = MatchState(rawValue: CField.enumValue(c.state))
    self.proposalID = c.proposal_id
    self.confirmedAtUnixMs = c.confirmed_at_unix_ms
    self.cancelledBy = c.cancelled_by
    self.cancelledAtUnixMs = c.cancelled_at_unix_ms
    self.winningTeam = c.winning_team
    self.completedAtUnixMs = c.completed_at_unix_ms
    self.completedBy = c.completed_by
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__match__init(&c)
    c.id = id
    c.mode = CField.cEnum(mode.rawValue, as: Badminton__V1__MatchMode.self)
    c.slot = arena.pointer(to: slot.cMessage(in: arena))
    (c.n_participants, c.participants) = arena.messages(participants)
    c.state = CField.cEnum(state.rawValue, as: Badminton__V1__MatchState.self)
    c.proposal_id = proposalID
    c.confirmed_at_unix_ms = confirmedAtUnixMs
    c.cancelled_by = cancelledBy
    c.cancelled_at_unix_ms = cancelledAtUnixMs
    c.winning_team = winningTeam
    c.completed_at_unix_ms = completedAtUnixMs
    c.completed_by = completedBy
    return c
  }
}

/// Asks for one match the caller is part of (`badminton.v1.GetMatchRequest`).
public struct GetMatchRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetMatchRequest`.
  public typealias CMessage = Badminton__V1__GetMatchRequest
  /// protoc-c's descriptor of `badminton.v1.GetMatchRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetMatchRequest")

  /// The match's ID.
  public var matchID: Int64

  /// The request with every field at its default.
  public init() { self.init(matchID: 0) }

  /// A request for `matchID`.
  public init(matchID: Int64 = 0) { self.matchID = matchID }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.matchID = c.match_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_match_request__init(&c)
    c.match_id = matchID
    return c
  }
}

/// Asks for the caller's upcoming or past matches (`badminton.v1.ListMyMatchesRequest`).
public struct ListMyMatchesRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListMyMatchesRequest`.
  public typealias CMessage = Badminton__V1__ListMyMatchesRequest
  /// protoc-c's descriptor of `badminton.v1.ListMyMatchesRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListMyMatchesRequest")

  /// False: confirmed matches not yet ended, soonest first. True: the others, latest first.
  public var past: Bool
  /// 1-100; 0 = 20.
  public var pageSize: Int32
  /// The previous page's `nextPageToken`, with the same `past`; empty for the first page.
  public var pageToken: String

  /// The request with every field at its default: the upcoming matches.
  public init() { self.init(past: false) }

  /// A request for a page of the past matches when `past` is true, else of the upcoming ones.
  public init(past: Bool = false, pageSize: Int32 = 0, pageToken: String = "") {
    self.past = past
    self.pageSize = pageSize
    self.pageToken = pageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.past = c.past != 0
    self.pageSize = c.page_size
    self.pageToken = CField.string(c.page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_my_matches_request__init(&c)
    c.past = past ? 1 : 0
    c.page_size = pageSize
    c.page_token = arena.string(pageToken)
    return c
  }
}

/// The caller's upcoming or past matches (`badminton.v1.ListMyMatchesResponse`).
public struct ListMyMatchesResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListMyMatchesResponse`.
  public typealias CMessage = Badminton__V1__ListMyMatchesResponse
  /// protoc-c's descriptor of `badminton.v1.ListMyMatchesResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListMyMatchesResponse")

  /// The matches, in the order the request asked for.
  public var matches: [Match]
  /// The `pageToken` of the next page; empty when this page is the last.
  public var nextPageToken: String

  /// The response with every field at its default.
  public init() { self.init(matches: []) }

  /// A response listing `matches`, with the token of the next page.
  public init(matches: [Match] = [], nextPageToken: String = "") {
    self.matches = matches
    self.nextPageToken = nextPageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.matches = try CField.messages(c.n_matches, c.matches, as: Match.self)
    self.nextPageToken = CField.string(c.next_page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_my_matches_response__init(&c)
    (c.n_matches, c.matches) = arena.messages(matches)
    c.next_page_token = arena.string(nextPageToken)
    return c
  }
}

/// Cancels a match the caller is part of (`badminton.v1.CancelMatchRequest`).
public struct CancelMatchRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.CancelMatchRequest`.
  public typealias CMessage = Badminton__V1__CancelMatchRequest
  /// protoc-c's descriptor of `badminton.v1.CancelMatchRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.CancelMatchRequest")

  /// The match's ID.
  public var matchID: Int64

  /// The request with every field at its default.
  public init() { self.init(matchID: 0) }

  /// A request to cancel `matchID`.
  public init(matchID: Int64 = 0) { self.matchID = matchID }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.matchID = c.match_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__cancel_match_request__init(&c)
    c.match_id = matchID
    return c
  }
}

/// `badminton.v1.ProposalReceived`: a player invites the player to play.
public struct ProposalReceived: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ProposalReceived`.
  public typealias CMessage = Badminton__V1__ProposalReceived
  /// protoc-c's descriptor of `badminton.v1.ProposalReceived`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ProposalReceived")

  /// The proposal; always encoded, and all default when absent on the wire.
  public var proposal: Proposal
  /// The proposer's nickname.
  public var proposerNickname: String
  /// The level shown for the proposer.
  public var proposerDisplayLevel: Int32
  /// How peers rated the proposer; always encoded, and all zero when absent on the wire.
  public var proposerReputation: ReputationSummary

  /// The message with every field at its default.
  public init() { self.init(proposal: Proposal()) }

  /// A message with the given fields.
  public init(
    proposal: Proposal = Proposal(),
    proposerNickname: String = "",
    proposerDisplayLevel: Int32 = 0,
    proposerReputation: ReputationSummary = ReputationSummary()
  ) {
    self.proposal = proposal
    self.proposerNickname = proposerNickname
    self.proposerDisplayLevel = proposerDisplayLevel
    self.proposerReputation = proposerReputation
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.proposal = try CField.message(c.proposal, as: Proposal.self) ?? Proposal()
    self.proposerNickname = CField.string(c.proposer_nickname)
    self.proposerDisplayLevel = c.proposer_display_level
    self.proposerReputation =
      try CField.message(c.proposer_reputation, as: ReputationSummary.self) ?? ReputationSummary()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__proposal_received__init(&c)
    c.proposal = arena.pointer(to: proposal.cMessage(in: arena))
    c.proposer_nickname = arena.string(proposerNickname)
    c.proposer_display_level = proposerDisplayLevel
    c.proposer_reputation = arena.pointer(to: proposerReputation.cMessage(in: arena))
    return c
  }
}

/// `badminton.v1.ProposalEnded`: a proposal the player is part of was declined or lapsed.
public struct ProposalEnded: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ProposalEnded`.
  public typealias CMessage = Badminton__V1__ProposalEnded
  /// protoc-c's descriptor of `badminton.v1.ProposalEnded`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ProposalEnded")

  /// The proposal; always encoded, and all default when absent on the wire.
  public var proposal: Proposal

  /// The message with every field at its default.
  public init() { self.init(proposal: Proposal()) }

  /// A message about `proposal`.
  public init(proposal: Proposal = Proposal()) { self.proposal = proposal }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.proposal = try CField.message(c.proposal, as: Proposal.self) ?? Proposal()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__proposal_ended__init(&c)
    c.proposal = arena.pointer(to: proposal.cMessage(in: arena))
    return c
  }
}

/// `badminton.v1.MatchChanged`: a match the player is part of was confirmed, or cancelled.
public struct MatchChanged: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.MatchChanged`.
  public typealias CMessage = Badminton__V1__MatchChanged
  /// protoc-c's descriptor of `badminton.v1.MatchChanged`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.MatchChanged")

  /// The match; always encoded, and all default when absent on the wire.
  public var match: Match

  /// The message with every field at its default.
  public init() { self.init(match: Match()) }

  /// A message about `match`.
  public init(match: Match = Match()) { self.match = match }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.match = try CField.message(c.match, as: Match.self) ?? Match()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__match_changed__init(&c)
    c.match = arena.pointer(to: match.cMessage(in: arena))
    return c
  }
}
