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
  public let invoke:
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

  /// Registers a unary method; a path registered twice is a programming error.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    handler: @escaping @Sendable (Request, ServerContext) async throws -> Response
  ) {
    precondition(method.kind == .unary, "\(method.path) is not unary")
    add(
      RegisteredMethod(
        info: method.info, kind: .unary, maximumRequestBytes: method.maximumRequestBytes
      ) { payload, context, _ in
        let request = try Self.decode(Request.self, payload.take())
        return try await handler(request, context).serializedBytes()
      })
  }

  /// Registers a unary method whose handler answers from memory without waiting (no store, no
  /// lock held for long, no `await`): the server runs it on the connection's event loop as the
  /// request arrives, with no task of its own, and answers it as it answers any other call (the
  /// same limits, deadline, CANCEL, authentication and error mapping). A handler that may wait
  /// belongs in `register(_:handler:)`, or it holds up every connection of its loop.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    inline handler: @escaping @Sendable (Request, ServerContext) throws -> Response
  ) {
    precondition(method.kind == .unary, "\(method.path) is not unary")
    let invokeInline: @Sendable (RequestBytes, ServerContext) throws -> [UInt8] = {
      payload, context in
      let request = try Self.decode(Request.self, payload.take())
      return try handler(request, context).serializedBytes()
    }
    var registered = RegisteredMethod(
      info: method.info, kind: .unary, maximumRequestBytes: method.maximumRequestBytes
    ) { payload, context, _ in try invokeInline(payload, context) }
    registered.invokeInline = invokeInline
    add(registered)
  }

  /// Registers a server-streaming method; a path registered twice is a programming error.
  public mutating func register<Request, Response>(
    _ method: MethodDescriptor<Request, Response>,
    handler:
      @escaping @Sendable (Request, ServerContext, ResponseStreamWriter<Response>) async throws ->
      Void
  ) {
    precondition(method.kind == .serverStreaming, "\(method.path) is not server streaming")
    add(
      RegisteredMethod(
        info: method.info, kind: .serverStreaming,
        maximumRequestBytes: method.maximumRequestBytes
      ) { payload, context, sink in
        let request = try Self.decode(Request.self, payload.take())
        try await handler(request, context, ResponseStreamWriter(sink: sink))
        return nil
      })
  }

  private mutating func add(_ method: RegisteredMethod) {
    precondition(methods[method.info.path] == nil, "\(method.info.path) registered twice")
    methods[method.info.path] = method
    largestRequestBytes = max(largestRequestBytes, method.maximumRequestBytes)
  }

  private static func decode<M: ProtobufMessage>(_ type: M.Type, _ payload: [UInt8]) throws -> M {
    do {
      return try M(serializedBytes: payload)
    } catch {
      if let field = error.fieldWithNUL { throw RPCError.stringContainsNUL(field: field) }
      throw RPCError.requestMalformed(M.fullName)
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
