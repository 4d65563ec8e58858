public import BadmintonRPC
public import CBadmintonProto

/// A new account's details (`badminton.v1.RegisterRequest`).
public struct RegisterRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RegisterRequest`.
  public typealias CMessage = Badminton__V1__RegisterRequest
  /// protoc-c's descriptor of `badminton.v1.RegisterRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RegisterRequest")

  /// E.164 phone number, for example `+8613800138000`.
  public var phone: String
  /// 1-30 characters after trimming.
  public var nickname: String
  /// At least 8 characters.
  public var password: String
  /// 1-7; 8 and 9 need a verified championship.
  public var selfLevel: Int32
  /// `en` or `zh-CN`; empty = `en`.
  public var locale: String

  /// The request with every field at its default.
  public init() { self.init(phone: "") }

  /// A request with the given fields.
  public init(
    phone: String = "",
    nickname: String = "",
    password: String = "",
    selfLevel: Int32 = 0,
    locale: String = ""
  ) {
    self.phone = phone
    self.nickname = nickname
    self.password = password
    self.selfLevel = selfLevel
    self.locale = locale
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.phone = CField.string(c.phone)
    self.nickname = CField.string(c.nickname)
    self.password = CField.string(c.password)
    self.selfLevel = c.self_level
    self.locale = CField.string(c.locale)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__register_request__init(&c)
    c.phone = arena.string(phone)
    c.nickname = arena.string(nickname)
    c.password = arena.string(password)
    c.self_level = selfLevel
    c.locale = arena.string(locale)
    return c
  }
}

/// The account `Register` created (`badminton.v1.RegisterResponse`).
public struct RegisterResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.RegisterResponse`.
  public typealias CMessage = Badminton__V1__RegisterResponse
  /// protoc-c's descriptor of `badminton.v1.RegisterResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.RegisterResponse")

  /// The new player's ID.
  public var userID: Int64

  /// The response with every field at its default.
  public init() { self.init(userID: 0) }

  /// A response with the given fields.
  public init(userID: Int64 = 0) { self.userID = userID }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.userID = c.user_id
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__register_response__init(&c)
    c.user_id = userID
    return c
  }
}

/// A phone number and password to start a session with (`badminton.v1.LoginRequest`).
public struct LoginRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LoginRequest`.
  public typealias CMessage = Badminton__V1__LoginRequest
  /// protoc-c's descriptor of `badminton.v1.LoginRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LoginRequest")

  /// The account's phone number.
  public var phone: String
  /// The account's password.
  public var password: String

  /// The request with every field at its default.
  public init() { self.init(phone: "") }

  /// A request with the given fields.
  public init(phone: String = "", password: String = "") {
    self.phone = phone
    self.password = password
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.phone = CField.string(c.phone)
    self.password = CField.string(c.password)
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__login_request__init(&c)
    c.phone = arena.string(phone)
    c.password = arena.string(password)
    return c
  }
}

/// A new session (`badminton.v1.LoginResponse`).
public struct LoginResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LoginResponse`.
  public typealias CMessage = Badminton__V1__LoginResponse
  /// protoc-c's descriptor of `badminton.v1.LoginResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LoginResponse")

  /// The session token, sent as `authorization: Bearer <token>`.
  public var token: String
  /// The player's ID.
  public var userID: Int64
  /// When the session ends, in milliseconds since 1970-01-01 UTC.
  public var expiresAtUnixMs: Int64

  /// The response with every field at its default.
  public init() { self.init(token: "") }

  /// A response with the given fields.
  public init(token: String = "", userID: Int64 = 0, expiresAtUnixMs: Int64 = 0) {
    self.token = token
    self.userID = userID
    self.expiresAtUnixMs = expiresAtUnixMs
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.token = CField.string(c.token)
    self.userID = c.user_id
    self.expiresAtUnixMs = c.expires_at_unix_ms
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__login_response__init(&c)
    c.token = arena.string(token)
    c.user_id = userID
    c.expires_at_unix_ms = expiresAtUnixMs
    return c
  }
}

/// Ends the session the call carries (`badminton.v1.LogoutRequest`).
public struct LogoutRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LogoutRequest`.
  public typealias CMessage = Badminton__V1__LogoutRequest
  /// protoc-c's descriptor of `badminton.v1.LogoutRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LogoutRequest")

  /// The request; it has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {}

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__logout_request__init(&c)
    return c
  }
}

/// The answer to `Logout` (`badminton.v1.LogoutResponse`).
public struct LogoutResponse: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.LogoutResponse`.
  public typealias CMessage = Badminton__V1__LogoutResponse
  /// protoc-c's descriptor of `badminton.v1.LogoutResponse`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.LogoutResponse")

  /// The response; it has no fields.
  public init() {}

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {}

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__logout_response__init(&c)
    return c
  }
}
