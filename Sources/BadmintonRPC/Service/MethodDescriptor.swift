/// How a method answers.
public enum MethodKind: Sendable, Hashable {
  /// REQUEST -> one RESPONSE.
  case unary
  /// REQUEST -> any number of STREAM_MESSAGE -> one STREAM_END.
  case serverStreaming
}

/// A method of a service, with its message types: what a server registers and a client calls.
///
/// The core encodes and decodes the messages through a `MessageSerializer` and a
/// `MessageDeserializer`; for protobuf messages the registry and the client use
/// `ProtobufSerializer` and `ProtobufDeserializer` unless given others.
public struct MethodDescriptor<Request: Sendable, Response: Sendable>: Sendable, Hashable {
  /// The service's full name, e.g. `badminton.rpc.v1.Health`.
  public let service: String
  /// The method's name, e.g. `Check`.
  public let method: String
  /// Unary or server streaming.
  public let kind: MethodKind
  /// True when calling it twice has the effect of calling it once; clients retry such calls.
  public let idempotent: Bool
  /// True when the method needs `authorization: Bearer <token>`.
  public let requiresAuthentication: Bool
  /// True when the method writes and honours `idempotency-key` metadata: a repeat with the same
  /// key and request gets the first call's answer and writes nothing. The `.proto` marks such a
  /// method with the `(badminton.rpc.v1.idempotency_key)` option.
  public let takesIdempotencyKey: Bool
  /// The largest serialized request the method accepts, in bytes; the server refuses a larger
  /// one with RESOURCE_EXHAUSTED (`REQUEST_TOO_LARGE`) before decoding it or running the
  /// handler. Default `defaultMaximumRequestBytes`.
  public let maximumRequestBytes: Int
  /// The request message's full name, as reflection lists it.
  public let requestType: String
  /// The response message's full name, as reflection lists it.
  public let responseType: String

  /// The request limit of a method that does not name one: 64 KiB, far above any request of
  /// short texts and ids.
  public static var defaultMaximumRequestBytes: Int { 64 * 1024 }

  /// A method of `service` whose messages are named `requestType` and `responseType`.
  public init(
    service: String, method: String, kind: MethodKind, idempotent: Bool,
    requiresAuthentication: Bool = true, takesIdempotencyKey: Bool = false,
    maximumRequestBytes: Int = 64 * 1024, requestType: String, responseType: String
  ) {
    self.service = service
    self.method = method
    self.kind = kind
    self.idempotent = idempotent
    self.requiresAuthentication = requiresAuthentication
    self.takesIdempotencyKey = takesIdempotencyKey
    self.maximumRequestBytes = maximumRequestBytes
    self.requestType = requestType
    self.responseType = responseType
    self.path = "/\(service)/\(method)"
  }

  /// The method path, e.g. `/badminton.rpc.v1.Health/Check`; made once, not per call.
  public let path: String

  /// The method as reflection lists it.
  public var info: MethodInfo {
    MethodInfo(
      path: path, requestType: requestType, responseType: responseType,
      serverStreaming: kind == .serverStreaming, idempotent: idempotent,
      requiresAuthentication: requiresAuthentication, takesIdempotencyKey: takesIdempotencyKey)
  }
}

extension MethodDescriptor where Request: ProtobufMessage, Response: ProtobufMessage {
  /// A method of `service` with protobuf messages, named by their descriptors.
  public init(
    service: String, method: String, kind: MethodKind, idempotent: Bool,
    requiresAuthentication: Bool = true, takesIdempotencyKey: Bool = false,
    maximumRequestBytes: Int = 64 * 1024
  ) {
    self.init(
      service: service, method: method, kind: kind, idempotent: idempotent,
      requiresAuthentication: requiresAuthentication, takesIdempotencyKey: takesIdempotencyKey,
      maximumRequestBytes: maximumRequestBytes,
      requestType: Request.fullName, responseType: Response.fullName)
  }
}

/// A service: its full name and its methods, as the server registers them and the client stubs
/// expose them.
public struct ServiceDescriptor: Sendable, Hashable {
  /// The service's full name, e.g. `badminton.rpc.v1.Health`.
  public let name: String
  /// Every method, in the order of the `.proto`.
  public let methods: [MethodInfo]

  /// A service called `name` with `methods`.
  public init(name: String, methods: [MethodInfo]) {
    self.name = name
    self.methods = methods
  }
}
