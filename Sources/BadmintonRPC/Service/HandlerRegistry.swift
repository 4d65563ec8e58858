/// One registered method: its description and its type-erased handler.
public struct RegisteredMethod: Sendable {
  /// The method as reflection lists it.
  public let info: MethodInfo
  /// Unary or streaming.
  public let kind: MethodKind
  /// The largest request payload the method accepts, in bytes.
  public let maximumRequestBytes: Int
  /// Decodes the request (taking its bytes, so that they are freed once it is decoded), runs
  /// the handler, and returns the encoded response (unary) or nil after the stream is written
  /// (streaming).
  public let invoke: Invoke

  /// A handler as the registry holds it.
  public typealias Invoke =
    @Sendable (RequestBytes, ServerContext, RawResponseSink) async throws -> [UInt8]?
  /// For a method registered with `register(_:inline:)`: decodes the request, runs the handler
  /// on the calling thread and returns the encoded response. The server calls it on the
  /// connection's event loop as the request arrives, without a task; nil for the others.
  public internal(set) var invokeInline:
    (@Sendable (RequestBytes, ServerContext) throws -> [UInt8])?
}

/// The encoded request of one call, taken once by its method to decode it: the call then holds
/// only the decoded request, not both.
public final class RequestBytes: @unchecked Sendable {
  // Taken once, by the one task that runs the call.
  private var bytes: [UInt8]
  private let whenTaken: (@Sendable () -> Void)?

  /// `bytes`; `whenTaken` is called once they have been taken.
  public init(_ bytes: [UInt8], whenTaken: (@Sendable () -> Void)? = nil) {
    self.bytes = bytes
    self.whenTaken = whenTaken
  }

  /// The bytes not yet taken: all of them until `take`, then none.
  public var count: Int { bytes.count }

  /// The bytes not yet taken, left in place (sharing their storage, not copied).
  public var untaken: [UInt8] { bytes }

  /// The bytes, leaving none behind; called once.
  public func take() -> [UInt8] {
    defer { whenTaken?() }
    let taken = bytes
    bytes = []
    return taken
  }
}

/// Maps method paths to typed handlers. Services register their methods here; the server core
/// looks them up by path and knows nothing of their types.
public struct HandlerRegistry: Sendable {
  private var methods: [String: RegisteredMethod] = [:]

  /// The largest request payload any registered method accepts, in bytes; 0 when none is
  /// registered. No request frame a method would take is larger than
  /// `FrameFormat.largestRequestBody(payload:)` of it.
  public private(set) var largestRequestBytes = 0

  /// An empty registry.
  public init() {}

  /// Registers a unary method of protobuf messages; a path registered twice is a programming
  /// error.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    handler: @escaping @Sendable (Request, ServerContext) async throws -> Response
  ) where Request: ProtobufMessage, Response: ProtobufMessage {
    register(
      method, deserializer: ProtobufDeserializer<Request>(),
      serializer: ProtobufSerializer<Response>(), handler: handler)
  }

  /// Registers a unary method whose messages go through `deserializer` and `serializer`.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    deserializer: some MessageDeserializer<Request>, serializer: some MessageSerializer<Response>,
    handler: @escaping @Sendable (Request, ServerContext) async throws -> Response
  ) {
    precondition(method.kind == .unary, "\(method.path) is not unary")
    let requestType = method.requestType
    add(
      RegisteredMethod(
        info: method.info, kind: .unary, maximumRequestBytes: method.maximumRequestBytes
      ) { payload, context, _ in
        let request = try Self.decode(payload.take(), with: deserializer, type: requestType)
        return try serializer.serialize(try await handler(request, context)) as [UInt8]
      })
  }

  /// Registers a unary method of protobuf messages whose handler answers from memory without
  /// waiting (no store, no lock held for long, no `await`): the server runs it on the
  /// connection's event loop as the request arrives, with no task of its own, and answers it as
  /// it answers any other call (the same limits, deadline, CANCEL, authentication and error
  /// mapping). A handler that may wait belongs in `register(_:handler:)`, or it holds up every
  /// connection of its loop.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    inline handler: @escaping @Sendable (Request, ServerContext) throws -> Response
  ) where Request: ProtobufMessage, Response: ProtobufMessage {
    register(
      method, deserializer: ProtobufDeserializer<Request>(),
      serializer: ProtobufSerializer<Response>(), inline: handler)
  }

  /// Registers an inline unary method (see `register(_:inline:)`) whose messages go through
  /// `deserializer` and `serializer`.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    deserializer: some MessageDeserializer<Request>, serializer: some MessageSerializer<Response>,
    inline handler: @escaping @Sendable (Request, ServerContext) throws -> Response
  ) {
    precondition(method.kind == .unary, "\(method.path) is not unary")
    let requestType = method.requestType
    let invokeInline: @Sendable (RequestBytes, ServerContext) throws -> [UInt8] = {
      payload, context in
      let request = try Self.decode(payload.take(), with: deserializer, type: requestType)
      return try serializer.serialize(try handler(request, context)) as [UInt8]
    }
    var registered = RegisteredMethod(
      info: method.info, kind: .unary, maximumRequestBytes: method.maximumRequestBytes
    ) { payload, context, _ in try invokeInline(payload, context) }
    registered.invokeInline = invokeInline
    add(registered)
  }

  /// Registers a server-streaming method of protobuf messages; a path registered twice is a
  /// programming error.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    handler:
      @escaping @Sendable (Request, ServerContext, ResponseStreamWriter<Response>) async throws ->
      Void
  ) where Request: ProtobufMessage, Response: ProtobufMessage {
    register(
      method, deserializer: ProtobufDeserializer<Request>(),
      serializer: ProtobufSerializer<Response>(), handler: handler)
  }

  /// Registers a server-streaming method whose messages go through `deserializer` and
  /// `serializer`.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    deserializer: some MessageDeserializer<Request>, serializer: some MessageSerializer<Response>,
    handler:
      @escaping @Sendable (Request, ServerContext, ResponseStreamWriter<Response>) async throws ->
      Void
  ) {
    precondition(method.kind == .serverStreaming, "\(method.path) is not server streaming")
    let requestType = method.requestType
    add(
      RegisteredMethod(
        info: method.info, kind: .serverStreaming,
        maximumRequestBytes: method.maximumRequestBytes
      ) { payload, context, sink in
        let request = try Self.decode(payload.take(), with: deserializer, type: requestType)
        try await handler(
          request, context, ResponseStreamWriter(sink: sink, serializer: serializer))
        return nil
      })
  }

  /// Wraps the handler of every unary method registered so far for which `include` is true:
  /// `wrap` is given the method and its handler, and returns the handler to run instead (one
  /// that runs the given one, or answers without it). For concerns every such method shares,
  /// such as answering a repeated write from what its first call answered.
  public mutating func wrapUnary(
    where include: (MethodInfo) -> Bool,
    _ wrap: (MethodInfo, @escaping RegisteredMethod.Invoke) -> RegisteredMethod.Invoke
  ) {
    for (path, method) in methods where method.kind == .unary && include(method.info) {
      methods[path] = RegisteredMethod(
        info: method.info, kind: method.kind, maximumRequestBytes: method.maximumRequestBytes,
        invoke: wrap(method.info, method.invoke))
    }
  }

  private mutating func add(_ method: RegisteredMethod) {
    precondition(methods[method.info.path] == nil, "\(method.info.path) registered twice")
    methods[method.info.path] = method
    largestRequestBytes = max(largestRequestBytes, method.maximumRequestBytes)
  }

  /// The request in `payload`; a string holding U+0000 is refused with its field's path, any
  /// other undecodable request as malformed.
  private static func decode<Deserializer: MessageDeserializer>(
    _ payload: [UInt8], with deserializer: Deserializer, type: String
  ) throws -> Deserializer.Message {
    do {
      return try deserializer.deserialize(payload)
    } catch let error as MessageDecodingError {
      if let field = error.fieldWithNUL { throw RPCError.stringContainsNUL(field: field) }
      throw RPCError.requestMalformed(type)
    } catch {
      throw RPCError.requestMalformed(type)
    }
  }

  /// The largest incoming frame body a server with these methods needs to accept: the largest
  /// request any of them takes, in its envelope, and never more than `maximumBodySize`. A
  /// larger frame could only be refused once buffered, so it is refused from its header.
  public func maximumRequestBodySize(within maximumBodySize: Int) -> Int {
    min(maximumBodySize, FrameFormat.largestRequestBody(payload: largestRequestBytes))
  }

  /// The method registered at `path`.
  public func method(at path: String) -> RegisteredMethod? { methods[path] }

  /// Every registered method, sorted by path.
  public var allMethods: [MethodInfo] {
    methods.values.map(\.info).sorted { $0.path < $1.path }
  }
}

/// A service the server can serve: it registers its methods' handlers.
public protocol RPCService: Sendable {
  /// Adds this service's handlers to `registry`.
  func registerMethods(in registry: inout HandlerRegistry)
}
