public import BadmintonRPC
public import CBadmintonProto

/// The championship a verification request proves (`badminton.v1.VerificationKind`).
public struct VerificationKind: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `VERIFICATION_KIND_UNSPECIFIED`.
  public static let unspecified = VerificationKind(rawValue: 0)
  /// `REGIONAL_CHAMPIONSHIP`: allows level 8.
  public static let regionalChampionship = VerificationKind(rawValue: 1)
  /// `NATIONAL_CHAMPIONSHIP`: allows level 9.
  public static let nationalChampionship = VerificationKind(rawValue: 2)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "VERIFICATION_KIND_UNSPECIFIED"
    case 1: "REGIONAL_CHAMPIONSHIP"
    case 2: "NATIONAL_CHAMPIONSHIP"
    default: "VERIFICATION_KIND_\(rawValue)"
    }
  }
}

/// Where a verification request stands (`badminton.v1.VerificationState`).
public struct VerificationState: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire; numbers this build does not know are kept.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// `VERIFICATION_STATE_UNSPECIFIED`.
  public static let unspecified = VerificationState(rawValue: 0)
  /// `PENDING`: waiting for an administrator.
  public static let pending = VerificationState(rawValue: 1)
  /// `APPROVED`.
  public static let approved = VerificationState(rawValue: 2)
  /// `REJECTED`.
  public static let rejected = VerificationState(rawValue: 3)

  /// The name the `.proto` gives the number.
  public var description: String {
    switch rawValue {
    case 0: "VERIFICATION_STATE_UNSPECIFIED"
    case 1: "PENDING"
    case 2: "APPROVED"
    case 3: "REJECTED"
    default: "VERIFICATION_STATE_\(rawValue)"
    }
  }
}

/// A player as others see them (`badminton.v1.Profile`).
public struct Profile: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Profile`.
  public typealias CMessage = Badminton__V1__Profile
  /// protoc-c's descriptor of `badminton.v1.Profile`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Profile")

  /// The player's ID.
  public var userID: Int64
  /// The player's nickname.
  public var nickname: String
  /// The level the player reported.
  public var selfLevel: Int32
  /// round(0.3 x self + 0.7 x average peer rating); 0 until the first peer evaluation.
  public var calculatedLevel: Int32
  /// The level shown: the calculated one from the 5th evaluation on, else the self level.
  public var displayLevel: Int32
  /// True with fewer than 5 peer evaluations.
  public var newPlayer: Bool
  /// The highest level a verified championship allows: 7 (none), 8 or 9.
  public var verifiedMaxLevel: Int32
  /// Number of games played.
  public var totalGames: Int32
  /// Number of games won.
  public var wins: Int32
  /// wins / total games x 100; 0 with no games.
  public var winRate: Double
  /// When the player registered, in milliseconds since 1970-01-01 UTC.
  public var joinedAtUnixMs: Int64
  /// When the player last sent a location, in milliseconds since 1970-01-01 UTC; 0 = never.
  public var locationUpdatedAtUnixMs: Int64
  /// How peers rated the player; always encoded, and all zero when absent on the wire.
  public var reputation: ReputationSummary
  /// The phone number; filled only for the player themselves.
  public var phone: String
  /// The player's locale, `en` or `zh-CN`.
  public var locale: String

  /// The profile with every field at its default.
  public init() { self.init(userID: 0) }

  /// A profile with the given fields.
  public init(
    userID: Int64 = 0,
    nickname: String = "",
    selfLevel: Int32 = 0,
    calculatedLevel: Int32 = 0,
    displayLevel: Int32 = 0,
    newPlayer: Bool = false,
    verifiedMaxLevel: Int32 = 0,
    totalGames: Int32 = 0,
    wins: Int32 = 0,
    winRate: Double = 0,
    joinedAtUnixMs: Int64 = 0,
    locationUpdatedAtUnixMs: Int64 = 0,
    reputation: ReputationSummary = ReputationSummary(),
    phone: String = "",
    locale: String = ""
  ) {
    self.userID = userID
    self.nickname = nickname
    self.selfLevel = selfLevel
    self.calculatedLevel = calculatedLevel
    self.displayLevel = displayLevel
    self.newPlayer = newPlayer
    self.verifiedMaxLevel = verifiedMaxLevel
    self.totalGames = totalGames
    self.wins = wins
    self.winRate = winRate
    self.joinedAtUnixMs = joinedAtUnixMs
    self.locationUpdatedAtUnixMs = locationUpdatedAtUnixMs
    self.reputation = reputation
    self.phone = phone
    self.locale = locale
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.userID = c.user_id
    self.nickname = CField.string(c.nickname)
    self.selfLevel = c.self_level
    self.calculatedLevel = c.calculated_level
    self.displayLevel = c.display_level
    self.newPlayer = c.new_player != 0
    self.verifiedMaxLevel = c.verified_max_level
    self.totalGames = c.total_games
    self.wins = c.wins
    self.winRate = c.win_rate
    self.joinedAtUnixMs = c.joined_at_unix_ms
    self.locationUpdatedAtUnixMs = c.location_updated_at_unix_ms
    self.reputation =
      try CField.message(c.reputation, as: ReputationSummary.self) ?? ReputationSummary()
    self.phone = CField.string(c.phone)
    self.locale = CField.string(c.locale)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__profile__init(&c)
    c.user_id = userID
    c.nickname = arena.string(nickname)
    c.self_level = selfLevel
    c.calculated_level = calculatedLevel
    c.display_level = displayLevel
    c.new_player = newPlayer ? 1 : 0
    c.verified_max_level = verifiedMaxLevel
    c.total_games = totalGames
    c.wins = wins
    c.win_rate = winRate
    c.joined_at_unix_ms = joinedAtUnixMs
    c.location_updated_at_unix_ms = locationUpdatedAtUnixMs
    c.reputation = arena.pointer(to: reputation.cMessage(in: arena))
    c.phone = arena.string(phone)
    c.locale = arena.string(locale)
    return c
  }
}

/// Asks for one player's profile (`badminton.v1.GetProfileRequest`).
public struct GetProfileRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetProfileRequest`.
  public typealias CMessage = Badminton__V1__GetProfileRequest
  /// protoc-c's descriptor of `badminton.v1.GetProfileRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetProfileRequest")

  /// The player's ID.
  public var userID: Int64

  /// The request with every field at its default.
  public init() { self.init(userID: 0) }

  /// A request for the player `userID`.
  public init(userID: Int64 = 0) { self.userID = userID }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_profile_request__init(&c)
    c.user_id = userID
    return c
  }
}

/// Asks for the caller's own profile (`badminton.v1.GetMyProfileRequest`).
public struct GetMyProfileRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetMyProfileRequest`.
  public typealias CMessage = Badminton__V1__GetMyProfileRequest
  /// protoc-c's descriptor of `badminton.v1.GetMyProfileRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.GetMyProfileRequest")

  /// The request; it has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {}

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_my_profile_request__init(&c)
    return c
  }
}

/// Changes the non-default fields of the caller's profile (`badminton.v1.UpdateProfileRequest`).
public struct UpdateProfileRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.UpdateProfileRequest`.
  public typealias CMessage = Badminton__V1__UpdateProfileRequest
  /// protoc-c's descriptor of `badminton.v1.UpdateProfileRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.UpdateProfileRequest")

  /// 1-30 characters after trimming; empty = unchanged.
  public var nickname: String
  /// 1-7, or 8-9 once verified; 0 = unchanged.
  public var selfLevel: Int32
  /// `en` or `zh-CN`; empty = unchanged.
  public var locale: String

  /// The request with every field at its default: it changes nothing.
  public init() { self.init(nickname: "") }

  /// A request with the given fields.
  public init(nickname: String = "", selfLevel: Int32 = 0, locale: String = "") {
    self.nickname = nickname
    self.selfLevel = selfLevel
    self.locale = locale
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.nickname = CField.string(c.nickname)
    self.selfLevel = c.self_level
    self.locale = CField.string(c.locale)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__update_profile_request__init(&c)
    c.nickname = arena.string(nickname)
    c.self_level = selfLevel
    c.locale = arena.string(locale)
    return c
  }
}

/// The caller's current location (`badminton.v1.UpdateLocationRequest`).
public struct UpdateLocationRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.UpdateLocationRequest`.
  public typealias CMessage = Badminton__V1__UpdateLocationRequest
  /// protoc-c's descriptor of `badminton.v1.UpdateLocationRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.UpdateLocationRequest")

  /// Degrees, -90 to 90.
  public var latitude: Double
  /// Degrees, -180 to 180.
  public var longitude: Double

  /// The request with every field at its default.
  public init() { self.init(latitude: 0) }

  /// A request with the given fields.
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
    badminton__v1__update_location_request__init(&c)
    c.latitude = latitude
    c.longitude = longitude
    return c
  }
}

/// When the location was stored (`badminton.v1.UpdateLocationResponse`).
public struct UpdateLocationResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.UpdateLocationResponse`.
  public typealias CMessage = Badminton__V1__UpdateLocationResponse
  /// protoc-c's descriptor of `badminton.v1.UpdateLocationResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.UpdateLocationResponse")

  /// When the location was stored, in milliseconds since 1970-01-01 UTC.
  public var updatedAtUnixMs: Int64

  /// The response with every field at its default.
  public init() { self.init(updatedAtUnixMs: 0) }

  /// A response with the given fields.
  public init(updatedAtUnixMs: Int64 = 0) { self.updatedAtUnixMs = updatedAtUnixMs }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.updatedAtUnixMs = c.updated_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__update_location_response__init(&c)
    c.updated_at_unix_ms = updatedAtUnixMs
    return c
  }
}

/// Asks for one page of players near the caller (`badminton.v1.NearbyPlayersRequest`).
public struct NearbyPlayersRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.NearbyPlayersRequest`.
  public typealias CMessage = Badminton__V1__NearbyPlayersRequest
  /// protoc-c's descriptor of `badminton.v1.NearbyPlayersRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.NearbyPlayersRequest")

  /// Search radius in miles, up to 50; 0 = 50.
  public var radiusMiles: Double
  /// Players per page, 1-100; 0 = 20.
  public var pageSize: Int32
  /// The previous page's `nextPageToken`; empty for the first page.
  public var pageToken: String

  /// The request with every field at its default: the first page, default radius and size.
  public init() { self.init(radiusMiles: 0) }

  /// A request with the given fields.
  public init(radiusMiles: Double = 0, pageSize: Int32 = 0, pageToken: String = "") {
    self.radiusMiles = radiusMiles
    self.pageSize = pageSize
    self.pageToken = pageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.radiusMiles = c.radius_miles
    self.pageSize = c.page_size
    self.pageToken = CField.string(c.page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__nearby_players_request__init(&c)
    c.radius_miles = radiusMiles
    c.page_size = pageSize
    c.page_token = arena.string(pageToken)
    return c
  }
}

/// One player near the caller, as the map popup shows them (`badminton.v1.NearbyPlayer`).
public struct NearbyPlayer: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.NearbyPlayer`.
  public typealias CMessage = Badminton__V1__NearbyPlayer
  /// protoc-c's descriptor of `badminton.v1.NearbyPlayer`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.NearbyPlayer")

  /// The player's ID.
  public var userID: Int64
  /// The player's nickname.
  public var nickname: String
  /// The level shown for the player.
  public var displayLevel: Int32
  /// True with fewer than 5 peer evaluations.
  public var newPlayer: Bool
  /// How peers rated the player; always encoded, and all zero when absent on the wire.
  public var reputation: ReputationSummary
  /// Distance from the caller in miles.
  public var distanceMiles: Double
  /// Seconds since the player's location was last updated.
  public var locationAgeSeconds: Int64

  /// The player with every field at its default.
  public init() { self.init(userID: 0) }

  /// A player with the given fields.
  public init(
    userID: Int64 = 0,
    nickname: String = "",
    displayLevel: Int32 = 0,
    newPlayer: Bool = false,
    reputation: ReputationSummary = ReputationSummary(),
    distanceMiles: Double = 0,
    locationAgeSeconds: Int64 = 0
  ) {
    self.userID = userID
    self.nickname = nickname
    self.displayLevel = displayLevel
    self.newPlayer = newPlayer
    self.reputation = reputation
    self.distanceMiles = distanceMiles
    self.locationAgeSeconds = locationAgeSeconds
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.userID = c.user_id
    self.nickname = CField.string(c.nickname)
    self.displayLevel = c.display_level
    self.newPlayer = c.new_player != 0
    self.reputation =
      try CField.message(c.reputation, as: ReputationSummary.self) ?? ReputationSummary()
    self.distanceMiles = c.distance_miles
    self.locationAgeSeconds = c.location_age_seconds
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__nearby_player__init(&c)
    c.user_id = userID
    c.nickname = arena.string(nickname)
    c.display_level = displayLevel
    c.new_player = newPlayer ? 1 : 0
    c.reputation = arena.pointer(to: reputation.cMessage(in: arena))
    c.distance_miles = distanceMiles
    c.location_age_seconds = locationAgeSeconds
    return c
  }
}

/// One page of players near the caller (`badminton.v1.NearbyPlayersResponse`).
public struct NearbyPlayersResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.NearbyPlayersResponse`.
  public typealias CMessage = Badminton__V1__NearbyPlayersResponse
  /// protoc-c's descriptor of `badminton.v1.NearbyPlayersResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.NearbyPlayersResponse")

  /// The players, nearest first.
  public var players: [NearbyPlayer]
  /// The token of the next page; empty on the last page.
  public var nextPageToken: String

  /// The response with every field at its default.
  public init() { self.init(players: []) }

  /// A response with the given fields.
  public init(players: [NearbyPlayer] = [], nextPageToken: String = "") {
    self.players = players
    self.nextPageToken = nextPageToken
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.players = try CField.messages(c.n_players, c.players, as: NearbyPlayer.self)
    self.nextPageToken = CField.string(c.next_page_token)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__nearby_players_response__init(&c)
    (c.n_players, c.players) = arena.messages(players)
    c.next_page_token = arena.string(nextPageToken)
    return c
  }
}

/// A championship document to verify (`badminton.v1.SubmitVerificationRequest`).
public struct SubmitVerificationRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SubmitVerificationRequest`.
  public typealias CMessage = Badminton__V1__SubmitVerificationRequest
  /// protoc-c's descriptor of `badminton.v1.SubmitVerificationRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SubmitVerificationRequest")

  /// The championship the document proves.
  public var kind: VerificationKind
  /// The document sent whole: a PNG, JPEG or PDF of at most 60,000 bytes; empty with `uploadID`.
  public var document: [UInt8]
  /// A finished upload (`UploadDocumentPiece`) of a document of up to 5 MiB; 0 for none.
  public var uploadID: Int64

  /// The request with every field at its default.
  public init() { self.init(kind: .unspecified) }

  /// A request with the given fields.
  public init(kind: VerificationKind = .unspecified, document: [UInt8] = [], uploadID: Int64 = 0) {
    self.kind = kind
    self.document = document
    self.uploadID = uploadID
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.kind = VerificationKind(rawValue: CField.enumValue(c.kind))
    self.document = CField.bytes(c.document)
    self.uploadID = c.upload_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__submit_verification_request__init(&c)
    c.kind = CField.cEnum(kind.rawValue, as: Badminton__V1__VerificationKind.self)
    c.document = arena.bytes(document)
    c.upload_id = uploadID
    return c
  }
}

/// One piece of a verification document sent in pieces (`badminton.v1.UploadDocumentPieceRequest`).
public struct UploadDocumentPieceRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.UploadDocumentPieceRequest`.
  public typealias CMessage = Badminton__V1__UploadDocumentPieceRequest
  /// protoc-c's descriptor of `badminton.v1.UploadDocumentPieceRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.UploadDocumentPieceRequest")

  /// 0 to start a new upload with this piece; then the id the first answer gave.
  public var uploadID: Int64
  /// The whole document's size in bytes: needed with the first piece, 0 or the same later.
  public var totalSize: Int64
  /// Where the piece starts in the document: the bytes received so far.
  public var offset: Int64
  /// The piece: 1 to 60,000 bytes.
  public var data: [UInt8]

  /// The request with every field at its default.
  public init() { self.init(uploadID: 0) }

  /// A piece with the given fields.
  public init(uploadID: Int64 = 0, totalSize: Int64 = 0, offset: Int64 = 0, data: [UInt8] = []) {
    self.uploadID = uploadID
    self.totalSize = totalSize
    self.offset = offset
    self.data = data
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.uploadID = c.upload_id
    self.totalSize = c.total_size
    self.offset = c.offset
    self.data = CField.bytes(c.data)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__upload_document_piece_request__init(&c)
    c.upload_id = uploadID
    c.total_size = totalSize
    c.offset = offset
    c.data = arena.bytes(data)
    return c
  }
}

/// An upload in progress (`badminton.v1.DocumentUpload`).
public struct DocumentUpload: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.DocumentUpload`.
  public typealias CMessage = Badminton__V1__DocumentUpload
  /// protoc-c's descriptor of `badminton.v1.DocumentUpload`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.DocumentUpload")

  /// The upload's id, for its next pieces and for `SubmitVerification`.
  public var uploadID: Int64
  /// The whole document's size in bytes.
  public var totalSize: Int64
  /// Bytes stored so far; the next piece starts here.
  public var receivedBytes: Int64
  /// `image/png`, `image/jpeg` or `application/pdf`.
  public var contentType: String
  /// When an upload not submitted by then is removed.
  public var expiresAtUnixMs: Int64

  /// The message with every field at its default.
  public init() { self.init(uploadID: 0) }

  /// An upload with the given fields.
  public init(
    uploadID: Int64 = 0, totalSize: Int64 = 0, receivedBytes: Int64 = 0, contentType: String = "",
    expiresAtUnixMs: Int64 = 0
  ) {
    self.uploadID = uploadID
    self.totalSize = totalSize
    self.receivedBytes = receivedBytes
    self.contentType = contentType
    self.expiresAtUnixMs = expiresAtUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.uploadID = c.upload_id
    self.totalSize = c.total_size
    self.receivedBytes = c.received_bytes
    self.contentType = CField.string(c.content_type)
    self.expiresAtUnixMs = c.expires_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__document_upload__init(&c)
    c.upload_id = uploadID
    c.total_size = totalSize
    c.received_bytes = receivedBytes
    c.content_type = arena.string(contentType)
    c.expires_at_unix_ms = expiresAtUnixMs
    return c
  }
}

/// A request to verify a championship (`badminton.v1.Verification`).
public struct Verification: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Verification`.
  public typealias CMessage = Badminton__V1__Verification
  /// protoc-c's descriptor of `badminton.v1.Verification`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Verification")

  /// The verification's ID.
  public var id: Int64
  /// The ID of the player who submitted it.
  public var userID: Int64
  /// The championship it proves.
  public var kind: VerificationKind
  /// Where it stands.
  public var state: VerificationState
  /// `image/png`, `image/jpeg` or `application/pdf`.
  public var contentType: String
  /// The document's size in bytes.
  public var documentSize: Int64
  /// When it was submitted, in milliseconds since 1970-01-01 UTC.
  public var submittedAtUnixMs: Int64
  /// When it was reviewed, in milliseconds since 1970-01-01 UTC; 0 while pending.
  public var reviewedAtUnixMs: Int64
  /// The reviewer's note.
  public var reviewNote: String

  /// The verification with every field at its default.
  public init() { self.init(id: 0) }

  /// A verification with the given fields.
  public init(
    id: Int64 = 0,
    userID: Int64 = 0,
    kind: VerificationKind = .unspecified,
    state: VerificationState = .unspecified,
    contentType: String = "",
    documentSize: Int64 = 0,
    submittedAtUnixMs: Int64 = 0,
    reviewedAtUnixMs: Int64 = 0,
    reviewNote: String = ""
  ) {
    self.id = id
    self.userID = userID
    self.kind = kind
    self.state = state
    self.contentType = contentType
    self.documentSize = documentSize
    self.submittedAtUnixMs = submittedAtUnixMs
    self.reviewedAtUnixMs = reviewedAtUnixMs
    self.reviewNote = reviewNote
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.id = c.id
    self.userID = c.user_id
    self.kind = VerificationKind(rawValue: CField.enumValue(c.kind))
    self.state = VerificationState(rawValue: CField.enumValue(c.state))
    self.contentType = CField.string(c.content_type)
    self.documentSize = c.document_size
    self.submittedAtUnixMs = c.submitted_at_unix_ms
    self.reviewedAtUnixMs = c.reviewed_at_unix_ms
    self.reviewNote = CField.string(c.review_note)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__verification__init(&c)
    c.id = id
    c.user_id = userID
    c.kind = CField.cEnum(kind.rawValue, as: Badminton__V1__VerificationKind.self)
    c.state = CField.cEnum(state.rawValue, as: Badminton__V1__VerificationState.self)
    c.content_type = arena.string(contentType)
    c.document_size = documentSize
    c.submitted_at_unix_ms = submittedAtUnixMs
    c.reviewed_at_unix_ms = reviewedAtUnixMs
    c.review_note = arena.string(reviewNote)
    return c
  }
}

/// Asks for the caller's verification requests (`badminton.v1.ListMyVerificationsRequest`).
public struct ListMyVerificationsRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListMyVerificationsRequest`.
  public typealias CMessage = Badminton__V1__ListMyVerificationsRequest
  /// protoc-c's descriptor of `badminton.v1.ListMyVerificationsRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListMyVerificationsRequest")

  /// The request; it has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {}

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_my_verifications_request__init(&c)
    return c
  }
}

/// Asks for every pending verification request (`badminton.v1.ListPendingVerificationsRequest`).
public struct ListPendingVerificationsRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListPendingVerificationsRequest`.
  public typealias CMessage = Badminton__V1__ListPendingVerificationsRequest
  /// protoc-c's descriptor of `badminton.v1.ListPendingVerificationsRequest`.
  public static let cDescriptor = CDescriptors.message(
    "badminton.v1.ListPendingVerificationsRequest")

  /// The request; it has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {}

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_pending_verifications_request__init(&c)
    return c
  }
}

/// A list of verification requests (`badminton.v1.ListVerificationsResponse`).
public struct ListVerificationsResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ListVerificationsResponse`.
  public typealias CMessage = Badminton__V1__ListVerificationsResponse
  /// protoc-c's descriptor of `badminton.v1.ListVerificationsResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ListVerificationsResponse")

  /// The verification requests, newest first.
  public var verifications: [Verification]

  /// The response with every field at its default.
  public init() { self.init(verifications: []) }

  /// A response listing `verifications`.
  public init(verifications: [Verification] = []) { self.verifications = verifications }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.verifications = try CField.messages(
      c.n_verifications, c.verifications, as: Verification.self)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__list_verifications_response__init(&c)
    (c.n_verifications, c.verifications) = arena.messages(verifications)
    return c
  }
}

/// A decision on a verification request (`badminton.v1.ReviewVerificationRequest`).
public struct ReviewVerificationRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ReviewVerificationRequest`.
  public typealias CMessage = Badminton__V1__ReviewVerificationRequest
  /// protoc-c's descriptor of `badminton.v1.ReviewVerificationRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ReviewVerificationRequest")

  /// The verification's ID.
  public var verificationID: Int64
  /// True to approve, false to reject.
  public var approve: Bool
  /// The reviewer's note.
  public var note: String

  /// The request with every field at its default.
  public init() { self.init(verificationID: 0) }

  /// A request with the given fields.
  public init(verificationID: Int64 = 0, approve: Bool = false, note: String = "") {
    self.verificationID = verificationID
    self.approve = approve
    self.note = note
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.verificationID = c.verification_id
    self.approve = c.approve != 0
    self.note = CField.string(c.note)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__review_verification_request__init(&c)
    c.verification_id = verificationID
    c.approve = approve ? 1 : 0
    c.note = arena.string(note)
    return c
  }
}

/// Raises the caller's self level to a verified one (`badminton.v1.SetVerifiedLevelRequest`).
public struct SetVerifiedLevelRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SetVerifiedLevelRequest`.
  public typealias CMessage = Badminton__V1__SetVerifiedLevelRequest
  /// protoc-c's descriptor of `badminton.v1.SetVerifiedLevelRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SetVerifiedLevelRequest")

  /// 8 or 9; needs an approved verification that allows it.
  public var level: Int32

  /// The request with every field at its default.
  public init() { self.init(level: 0) }

  /// A request for `level`.
  public init(level: Int32 = 0) { self.level = level }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.level = c.level
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__set_verified_level_request__init(&c)
    c.level = level
    return c
  }
}

/// `badminton.v1.GetVerificationDocumentRequest`: which request's document to read.
public struct GetVerificationDocumentRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.GetVerificationDocumentRequest`.
  public typealias CMessage = Badminton__V1__GetVerificationDocumentRequest
  /// protoc-c's descriptor of `badminton.v1.GetVerificationDocumentRequest`.
  public static let cDescriptor = CDescriptors.message(
    "badminton.v1.GetVerificationDocumentRequest")

  /// The verification request.
  public var verificationID: Int64
  /// The first byte wanted, from 0.
  public var offset: Int64

  /// The request with every field at its default.
  public init() { self.init(verificationID: 0) }

  /// A request for the part of the document of `verificationID` from `offset`.
  public init(verificationID: Int64 = 0, offset: Int64 = 0) {
    self.verificationID = verificationID
    self.offset = offset
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.verificationID = c.verification_id
    self.offset = c.offset
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__get_verification_document_request__init(&c)
    c.verification_id = verificationID
    c.offset = offset
    return c
  }
}

/// `badminton.v1.VerificationDocument`: a part of the evidence document of a verification
/// request, at most 60,000 bytes from `offset`.
public struct VerificationDocument: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.VerificationDocument`.
  public typealias CMessage = Badminton__V1__VerificationDocument
  /// protoc-c's descriptor of `badminton.v1.VerificationDocument`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.VerificationDocument")

  /// The verification request.
  public var verificationID: Int64
  /// `image/png`, `image/jpeg` or `application/pdf`.
  public var contentType: String
  /// The document's bytes from `offset`.
  public var document: [UInt8]
  /// Where `document` starts in the whole document.
  public var offset: Int64
  /// The whole document's size in bytes.
  public var totalSize: Int64

  /// The message with every field at its default.
  public init() { self.init(verificationID: 0) }

  /// A part with the given fields.
  public init(
    verificationID: Int64 = 0, contentType: String = "", document: [UInt8] = [],
    offset: Int64 = 0, totalSize: Int64 = 0
  ) {
    self.verificationID = verificationID
    self.contentType = contentType
    self.document = document
    self.offset = offset
    self.totalSize = totalSize
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.verificationID = c.verification_id
    self.contentType = CField.string(c.content_type)
    self.document = CField.bytes(c.document)
    self.offset = c.offset
    self.totalSize = c.total_size
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__verification_document__init(&c)
    c.verification_id = verificationID
    c.content_type = arena.string(contentType)
    c.document = arena.bytes(document)
    c.offset = offset
    c.total_size = totalSize
    return c
  }
}
