public import BadmintonRPC
public import CBadmintonProto

/// `badminton.v1.DayStatus`. (`badminton.v1.DayStatus`).
public struct DayStatus: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `DAY_STATUS_UNKNOWN`: Never set.
  public static let unknown = DayStatus(rawValue: 0)
  /// `DAY_FREE`.
  public static let free = DayStatus(rawValue: 1)
  /// `DAY_BUSY`.
  public static let busy = DayStatus(rawValue: 2)
  /// `DAY_EVENING_ONLY`.
  public static let eveningOnly = DayStatus(rawValue: 3)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "DAY_STATUS_UNKNOWN"
    case 1: "DAY_FREE"
    case 2: "DAY_BUSY"
    case 3: "DAY_EVENING_ONLY"
    default: "DAY_STATUS_\(rawValue)"
    }
  }
}

/// `badminton.v1.DaySchedule`.
public struct DaySchedule: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.DaySchedule`.
  public typealias CMessage = Badminton__V1__DaySchedule
  /// protoc-c's descriptor of `badminton.v1.DaySchedule`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.DaySchedule")

  /// Date. Always encoded; all defaults when absent on the wire.
  public var date: LocalDate
  /// Status.
  public var status: DayStatus
  /// Up to 200 characters.
  public var note: String
  /// 0 for a day never set.
  public var updatedAtUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(date: LocalDate()) }

  /// A message with the given fields.
  public init(
    date: LocalDate = LocalDate(),
    status: DayStatus = .unknown,
    note: String = "",
    updatedAtUnixMs: Int64 = 0
  ) {
    self.date = date
    self.status = status
    self.note = note
    self.updatedAtUnixMs = updatedAtUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.date = try CField.message(c.date, as: LocalDate.self) ?? LocalDate()
    self.status = DayStatus(rawValue: CField.enumValue(c.status))
    self.note = CField.string(c.note)
    self.updatedAtUnixMs = c.updated_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__day_schedule__init(&c)
    c.date = arena.pointer(to: date.cMessage(in: arena))
    c.status = CField.cEnum(status.rawValue, as: Badminton__V1__DayStatus.self)
    c.note = arena.string(note)
    c.updated_at_unix_ms = updatedAtUnixMs
    return c
  }
}

/// `badminton.v1.GetMyScheduleRequest`.
public struct GetMyScheduleRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetMyScheduleRequest`.
  public typealias CMessage = Badminton__V1__GetMyScheduleRequest
  /// protoc-c's descriptor of `badminton.v1.GetMyScheduleRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetMyScheduleRequest")

  /// An IANA time zone, e.g. `Asia/Shanghai`: today is taken there.
  public var timeZone: String

  /// The message with every field at its default.
  public init() { self.init(timeZone: "") }

  /// A message with the given fields.
  public init(
    timeZone: String = ""
  ) {
    self.timeZone = timeZone
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.timeZone = CField.string(c.time_zone)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_my_schedule_request__init(&c)
    c.time_zone = arena.string(timeZone)
    return c
  }
}

/// `badminton.v1.WeekSchedule`.
public struct WeekSchedule: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.WeekSchedule`.
  public typealias CMessage = Badminton__V1__WeekSchedule
  /// protoc-c's descriptor of `badminton.v1.WeekSchedule`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.WeekSchedule")

  /// User id.
  public var userID: Int64
  /// Today and the 6 days after it.
  public var days: [DaySchedule]

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0,
    days: [DaySchedule] = []
  ) {
    self.userID = userID
    self.days = days
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.userID = c.user_id
    self.days = try CField.messages(c.n_days, c.days, as: DaySchedule.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__week_schedule__init(&c)
    c.user_id = userID
    (c.n_days, c.days) = arena.messages(days)
    return c
  }
}

/// `badminton.v1.UpdateDayStatusRequest`.
public struct UpdateDayStatusRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.UpdateDayStatusRequest`.
  public typealias CMessage = Badminton__V1__UpdateDayStatusRequest
  /// protoc-c's descriptor of `badminton.v1.UpdateDayStatusRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.UpdateDayStatusRequest")

  /// Date. Always encoded; all defaults when absent on the wire.
  public var date: LocalDate
  /// Status.
  public var status: DayStatus
  /// Note.
  public var note: String
  /// The time zone the date is a calendar day of.
  public var timeZone: String

  /// The message with every field at its default.
  public init() { self.init(date: LocalDate()) }

  /// A message with the given fields.
  public init(
    date: LocalDate = LocalDate(),
    status: DayStatus = .unknown,
    note: String = "",
    timeZone: String = ""
  ) {
    self.date = date
    self.status = status
    self.note = note
    self.timeZone = timeZone
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.date = try CField.message(c.date, as: LocalDate.self) ?? LocalDate()
    self.status = DayStatus(rawValue: CField.enumValue(c.status))
    self.note = CField.string(c.note)
    self.timeZone = CField.string(c.time_zone)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__update_day_status_request__init(&c)
    c.date = arena.pointer(to: date.cMessage(in: arena))
    c.status = CField.cEnum(status.rawValue, as: Badminton__V1__DayStatus.self)
    c.note = arena.string(note)
    c.time_zone = arena.string(timeZone)
    return c
  }
}

/// `badminton.v1.GetFriendsSchedulesRequest`.
public struct GetFriendsSchedulesRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetFriendsSchedulesRequest`.
  public typealias CMessage = Badminton__V1__GetFriendsSchedulesRequest
  /// protoc-c's descriptor of `badminton.v1.GetFriendsSchedulesRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetFriendsSchedulesRequest")

  /// Time zone.
  public var timeZone: String
  /// 1-100; 0 = 20.
  public var pageSize: Int32
  /// The previous page's `nextPageToken`; empty for the first page.
  public var pageToken: String

  /// The message with every field at its default.
  public init() { self.init(timeZone: "") }

  /// A message with the given fields.
  public init(
    timeZone: String = "", pageSize: Int32 = 0, pageToken: String = ""
  ) {
    self.timeZone = timeZone
    self.pageSize = pageSize
    self.pageToken = pageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.timeZone = CField.string(c.time_zone)
    self.pageSize = c.page_size
    self.pageToken = CField.string(c.page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_friends_schedules_request__init(&c)
    c.time_zone = arena.string(timeZone)
    c.page_size = pageSize
    c.page_token = arena.string(pageToken)
    return c
  }
}

/// `badminton.v1.FriendSchedule`.
public struct FriendSchedule: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.FriendSchedule`.
  public typealias CMessage = Badminton__V1__FriendSchedule
  /// protoc-c's descriptor of `badminton.v1.FriendSchedule`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.FriendSchedule")

  /// Player. Always encoded; all defaults when absent on the wire.
  public var player: PlayerCard
  /// Days.
  public var days: [DaySchedule]

  /// The message with every field at its default.
  public init() { self.init(player: PlayerCard()) }

  /// A message with the given fields.
  public init(
    player: PlayerCard = PlayerCard(),
    days: [DaySchedule] = []
  ) {
    self.player = player
    self.days = days
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.player = try CField.message(c.player, as: PlayerCard.self) ?? PlayerCard()
    self.days = try CField.messages(c.n_days, c.days, as: DaySchedule.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__friend_schedule__init(&c)
    c.player = arena.pointer(to: player.cMessage(in: arena))
    (c.n_days, c.days) = arena.messages(days)
    return c
  }
}

/// `badminton.v1.GetFriendsSchedulesResponse`.
public struct GetFriendsSchedulesResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetFriendsSchedulesResponse`.
  public typealias CMessage = Badminton__V1__GetFriendsSchedulesResponse
  /// protoc-c's descriptor of `badminton.v1.GetFriendsSchedulesResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetFriendsSchedulesResponse")

  /// By user id.
  public var friends: [FriendSchedule]
  /// The `pageToken` of the next page; empty when this page is the last.
  public var nextPageToken: String

  /// The message with every field at its default.
  public init() { self.init(friends: []) }

  /// A message with the given fields.
  public init(
    friends: [FriendSchedule] = [], nextPageToken: String = ""
  ) {
    self.friends = friends
    self.nextPageToken = nextPageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.friends = try CField.messages(c.n_friends, c.friends, as: FriendSchedule.self)
    self.nextPageToken = CField.string(c.next_page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_friends_schedules_response__init(&c)
    (c.n_friends, c.friends) = arena.messages(friends)
    c.next_page_token = arena.string(nextPageToken)
    return c
  }
}
