public import CBadmintonProto

/// The serving status of the server or one of its services (`badminton.rpc.v1.ServingStatus`).
public struct ServingStatus: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let unspecified = ServingStatus(rawValue: 0)
  public static let serving = ServingStatus(rawValue: 1)
  public static let notServing = ServingStatus(rawValue: 2)
  public static let serviceUnknown = ServingStatus(rawValue: 3)

  public var description: String {
    switch rawValue {
    case 0: "SERVING_STATUS_UNSPECIFIED"
    case 1: "SERVING"
    case 2: "NOT_SERVING"
    case 3: "SERVICE_UNKNOWN"
    default: "SERVING_STATUS_\(rawValue)"
    }
  }
}

/// `badminton.rpc.v1.HealthCheckRequest`.
public struct HealthCheckRequest: ProtobufMessage, Hashable {
  public typealias CMessage = Badminton__Rpc__V1__HealthCheckRequest
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.HealthCheckRequest")

  /// A service's full name, or empty for the whole server.
  public var service: String

  public init() { self.init(service: "") }

  /// A request about `service` ("" = the whole server).
  public init(service: String) { self.service = service }

  public init(cMessage c: borrowing CMessage) {
    self.service = CField.string(c.service)
  }

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__health_check_request__init(&c)
    c.service = arena.string(service)
    return c
  }
}

/// `badminton.rpc.v1.HealthCheckResponse`.
public struct HealthCheckResponse: ProtobufMessage, Hashable {
  public typealias CMessage = Badminton__Rpc__V1__HealthCheckResponse
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.HealthCheckResponse")

  /// The serving status.
  public var status: ServingStatus

  public init() { self.init(status: .unspecified) }

  /// A response with `status`.
  public init(status: ServingStatus) { self.status = status }

  public init(cMessage c: borrowing CMessage) {
    self.status = ServingStatus(rawValue: CField.enumValue(c.status))
  }

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__health_check_response__init(&c)
    c.status = CField.cEnum(status.rawValue, as: Badminton__Rpc__V1__ServingStatus.self)
    return c
  }
}

/// `badminton.rpc.v1.ListMethodsRequest`.
public struct ListMethodsRequest: ProtobufMessage, Hashable {
  public typealias CMessage = Badminton__Rpc__V1__ListMethodsRequest
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.ListMethodsRequest")

  public init() {}

  public init(cMessage c: borrowing CMessage) {}

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__list_methods_request__init(&c)
    return c
  }
}

/// One method the server serves (`badminton.rpc.v1.MethodInfo`).
public struct MethodInfo: ProtobufMessage, Hashable {
  public typealias CMessage = Badminton__Rpc__V1__MethodInfo
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.MethodInfo")

  /// The method path.
  public var path: String
  /// Full name of the request message.
  public var requestType: String
  /// Full name of the response message.
  public var responseType: String
  /// True when the method answers with a stream.
  public var serverStreaming: Bool
  /// True when clients may retry the method.
  public var idempotent: Bool
  /// True when the method needs a session token.
  public var requiresAuthentication: Bool

  public init() {
    self.init(
      path: "", requestType: "", responseType: "", serverStreaming: false, idempotent: false,
      requiresAuthentication: false)
  }

  /// A method with the given fields.
  public init(
    path: String, requestType: String, responseType: String, serverStreaming: Bool,
    idempotent: Bool, requiresAuthentication: Bool
  ) {
    self.path = path
    self.requestType = requestType
    self.responseType = responseType
    self.serverStreaming = serverStreaming
    self.idempotent = idempotent
    self.requiresAuthentication = requiresAuthentication
  }

  public init(cMessage c: borrowing CMessage) {
    self.path = CField.string(c.path)
    self.requestType = CField.string(c.request_type)
    self.responseType = CField.string(c.response_type)
    self.serverStreaming = c.server_streaming != 0
    self.idempotent = c.idempotent != 0
    self.requiresAuthentication = c.requires_authentication != 0
  }

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__method_info__init(&c)
    c.path = arena.string(path)
    c.request_type = arena.string(requestType)
    c.response_type = arena.string(responseType)
    c.server_streaming = serverStreaming ? 1 : 0
    c.idempotent = idempotent ? 1 : 0
    c.requires_authentication = requiresAuthentication ? 1 : 0
    return c
  }
}

/// `badminton.rpc.v1.ListMethodsResponse`.
public struct ListMethodsResponse: ProtobufMessage, Hashable {
  public typealias CMessage = Badminton__Rpc__V1__ListMethodsResponse
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.ListMethodsResponse")

  /// Every method, sorted by path.
  public var methods: [MethodInfo]

  public init() { self.init(methods: []) }

  /// A response listing `methods`.
  public init(methods: [MethodInfo]) { self.methods = methods }

  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.methods = try CField.messages(c.n_methods, c.methods, as: MethodInfo.self)
  }

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__list_methods_response__init(&c)
    (c.n_methods, c.methods) = arena.messages(methods)
    return c
  }
}
