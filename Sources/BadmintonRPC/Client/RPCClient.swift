public import NIOCore
public import NIOPosix
import Synchronization

/// A client of a BadmintonBuddy server: multiplexes concurrent calls over one connection,
/// connects lazily and reconnects when the connection is lost or the server sent GOAWAY, and
/// retries idempotent calls that fail with UNAVAILABLE, and any call the server never received.
public final class RPCClient: Sendable {
  private enum State {
    case idle
    case connecting(id: Int, Task<RPCConnection, any Error>)
    case connected(RPCConnection)
    case closed
  }

  /// The server's host.
  public let host: String
  /// The server's port.
  public let port: Int
  /// How the client connects and retries.
  public let configuration: ClientConfiguration
  /// The event loop every connection of this client runs on.
  private let eventLoop: any EventLoop
  /// Runs tasks on that event loop.
  private let loopExecutor: EventLoopTaskExecutor
  private let state = Mutex<(State, nextAttempt: Int)>((.idle, 0))

  /// A client of the server at `host:port`; nothing connects until the first call.
  public init(
    host: String, port: Int, configuration: ClientConfiguration = ClientConfiguration(),
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) {
    self.host = host
    self.port = port
    self.configuration = configuration
    self.eventLoop = eventLoopGroup.next()
    self.loopExecutor = EventLoopTaskExecutor(eventLoop)
  }

  /// Runs tasks on the event loop of this client's connections. A caller that makes many calls
  /// runs cheapest inside `withTaskExecutorPreference(client.taskExecutor) { ... }`: each call
  /// then starts, and is resumed by its answer, on the thread that reads and writes the
  /// connection, crossing no thread. Its own work then shares that thread with the connection,
  /// so it suits callers that do little between calls.
  public var taskExecutor: any TaskExecutor { loopExecutor }

  /// The typed client of the built-in health service.
  public var health: Health.Client { Health.Client(client: self) }

  /// The typed client of the built-in reflection service.
  public var reflection: Reflection.Client { Reflection.Client(client: self) }

  // MARK: Calls

  /// Calls a unary method of protobuf messages (see `unary(_:_:serializer:deserializer:options:)`).
  public func unary<Request, Response>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request,
    options: CallOptions = CallOptions()
  ) async throws -> Response where Request: ProtobufMessage, Response: ProtobufMessage {
    try await unary(
      method, request, serializer: ProtobufSerializer<Request>(),
      deserializer: ProtobufDeserializer<Response>(), options: options)
  }

  /// Calls a unary method, its request encoded by `serializer` (once, into the bytes the frame
  /// is written around) and its response decoded by `deserializer` from the answer's frame.
  /// Idempotent methods, and methods that take an idempotency key called with one, are retried
  /// on UNAVAILABLE (a lost connection included), and every method when the server never
  /// received it (CONNECT_FAILED, SERVER_SHUTTING_DOWN), with
  /// backoff, at most `configuration.retry.maximumRetries` times, within the call's timeout. A
  /// retry waits at least the failed attempt's `retryAfter`; when that wait would pass the
  /// deadline, the call fails with the attempt's error instead.
  public func unary<Request, Response>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request,
    serializer: some MessageSerializer<Request>, deserializer: some MessageDeserializer<Response>,
    options: CallOptions = CallOptions()
  ) async throws -> Response {
    let payload: ByteBuffer = try serializer.serialize(request)
    // The server would refuse it unread: refused here, with the server's error, unsent.
    guard payload.readableBytes <= method.maximumRequestBytes else {
      throw RPCError.requestOverMethodLimit(limit: method.maximumRequestBytes)
    }
    let metadata = options.envelopeMetadata(defaultLocale: configuration.defaultLocale)
    let deadline = options.timeout.map { ContinuousClock.now + $0 }
    let path = method.path
    // A repeat with the same key gets the first answer and writes nothing: safe to retry.
    let retriable =
      method.idempotent || (method.takesIdempotencyKey && options.idempotencyKey != nil)
    let bytes = try await withRetries(idempotent: retriable, deadline: deadline) {
      timeout in
      try await self.connection().unary(
        method: path, payload: payload, metadata: metadata, timeout: timeout)
    }
    do {
      return try deserializer.deserialize(bytes)
    } catch {
      throw RPCError.responseMalformed(method.responseType)
    }
  }

  /// Calls a server-streaming method of protobuf messages (see
  /// `serverStreaming(_:_:serializer:deserializer:options:)`).
  public func serverStreaming<Request, Response>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request,
    options: CallOptions = CallOptions()
  ) async throws -> ResponseStream<Response>
  where Request: ProtobufMessage, Response: ProtobufMessage {
    try await serverStreaming(
      method, request, serializer: ProtobufSerializer<Request>(),
      deserializer: ProtobufDeserializer<Response>(), options: options)
  }

  /// Calls a server-streaming method, its request encoded by `serializer` and each response
  /// decoded by `deserializer`; the call's timeout covers the whole stream. Connecting is
  /// retried as for unary calls; a stream that has started is never retried, and an error that
  /// ends it (SERVER_SHUTTING_DOWN included) is thrown by the iteration.
  public func serverStreaming<Request, Response>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request,
    serializer: some MessageSerializer<Request>, deserializer: some MessageDeserializer<Response>,
    options: CallOptions = CallOptions()
  ) async throws -> ResponseStream<Response> {
    let payload: ByteBuffer = try serializer.serialize(request)
    // The server would refuse it unread: refused here, with the server's error, unsent.
    guard payload.readableBytes <= method.maximumRequestBytes else {
      throw RPCError.requestOverMethodLimit(limit: method.maximumRequestBytes)
    }
    let metadata = options.envelopeMetadata(defaultLocale: configuration.defaultLocale)
    let deadline = options.timeout.map { ContinuousClock.now + $0 }
    let path = method.path
    let responseType = method.responseType
    return try await withRetries(idempotent: method.idempotent, deadline: deadline) { timeout in
      let connection = try await self.connection()
      return ResponseStream(
        payloads: try await connection.serverStreaming(
          method: path, payload: payload, metadata: metadata, timeout: timeout),
        deserializer: deserializer, type: responseType)
    }
  }

  /// Calls the unary method at `path` (`/package.Service/Method`) with an encoded request and
  /// returns the encoded response, retried as `unary` retries: for tools that work from message
  /// descriptors rather than Swift types, such as the `badminton` command.
  public func unary(
    path: String, payload: [UInt8], idempotent: Bool, options: CallOptions = CallOptions()
  ) async throws -> [UInt8] {
    let metadata = options.envelopeMetadata(defaultLocale: configuration.defaultLocale)
    let deadline = options.timeout.map { ContinuousClock.now + $0 }
    let payload = ByteBuffer(bytes: payload)
    let answer = try await withRetries(idempotent: idempotent, deadline: deadline) { timeout in
      try await self.connection().unary(
        method: path, payload: payload, metadata: metadata, timeout: timeout)
    }
    return Array(answer.readableBytesView)
  }

  /// Calls the server-streaming method at `path` with an encoded request; the stream yields each
  /// encoded response and throws the `RPCError` that ends the call, as `serverStreaming` does.
  public func serverStreaming(
    path: String, payload: [UInt8], idempotent: Bool, options: CallOptions = CallOptions()
  ) async throws -> AsyncThrowingStream<[UInt8], any Error> {
    let metadata = options.envelopeMetadata(defaultLocale: configuration.defaultLocale)
    let deadline = options.timeout.map { ContinuousClock.now + $0 }
    let payload = ByteBuffer(bytes: payload)
    return try await withRetries(idempotent: idempotent, deadline: deadline) { timeout in
      try await self.connection().serverStreaming(
        method: path, payload: payload, metadata: metadata, timeout: timeout)
    }
  }

  /// Sends PING on the connection (connecting first if needed) and waits for the PONG.
  public func ping() async throws {
    try await connection().ping()
  }

  /// Closes the connection; open calls fail, and later calls fail with CLIENT_CLOSED.
  public func close() async {
    let previous = state.withLock { state in
      defer { state.0 = .closed }
      return state.0
    }
    switch previous {
    case .connected(let connection): await connection.close()
    case .connecting(_, let task): await (try? task.value)?.close()
    case .idle, .closed: break
    }
  }

  private func withRetries<T>(
    idempotent: Bool, deadline: ContinuousClock.Instant?,
    _ attempt: (Duration?) async throws -> T
  ) async throws -> T {
    var retries = 0
    while true {
      let remaining = deadline.map { $0 - .now }
      if let remaining, remaining <= .zero { throw RPCError.deadlineExceeded }
      do {
        return try await attempt(remaining)
      } catch let error as RPCError {
        guard Self.mayRetry(error, idempotent: idempotent),
          retries < configuration.retry.maximumRetries
        else { throw error }
        retries += 1
        let pause = configuration.retry.pause(beforeRetry: retries, after: error)
        if let deadline, ContinuousClock.now + pause >= deadline { throw error }
        do {
          try await configuration.retrySleep(pause)
        } catch {
          throw RPCError.cancelled
        }
      }
    }
  }

  /// Whether a call that failed with `error` may be tried again: any call the server never
  /// received (the connection could not be made, or a draining server refused it), and an
  /// idempotent call on any UNAVAILABLE, a lost connection included; never on a TLS error
  /// (`TLS_REQUIRED`, `TLS_CERTIFICATE_UNTRUSTED`, ...), which trying again cannot cure.
  public static func mayRetry(_ error: RPCError, idempotent: Bool) -> Bool {
    guard error.code == .unavailable, !RPCError.tlsReasons.contains(error.reason) else {
      return false
    }
    if idempotent { return true }
    return error.reason == RPCError.connectFailed("").reason
      || error.reason == RPCError.serverShuttingDown.reason
  }

  // MARK: Connection

  private func connection() async throws -> RPCConnection {
    enum Next {
      case ready(RPCConnection)
      case wait(id: Int, Task<RPCConnection, any Error>)
    }
    let host = self.host
    let port = self.port
    let configuration = self.configuration
    let eventLoop = self.eventLoop
    let next: Next = try state.withLock { state in
      switch state.0 {
      case .closed:
        throw RPCError.clientClosed
      case .connected(let connection) where connection.isUsable:
        return .ready(connection)
      case .connecting(let id, let task):
        return .wait(id: id, task)
      case .idle, .connected:
        let id = state.nextAttempt
        state.nextAttempt += 1
        let task = Task {
          try await RPCConnection.connect(
            host: host, port: port, configuration: configuration, group: eventLoop)
        }
        state.0 = .connecting(id: id, task)
        return .wait(id: id, task)
      }
    }
    switch next {
    case .ready(let connection):
      return connection
    case .wait(let id, let task):
      do {
        let connection = try await task.value
        let keep = state.withLock { state -> Bool in
          guard case .connecting(id, _) = state.0 else { return false }
          state.0 = .connected(connection)
          return true
        }
        if !keep, case .closed = state.withLock({ $0.0 }) {
          await connection.close()
          throw RPCError.clientClosed
        }
        return connection
      } catch {
        state.withLock { state in
          if case .connecting(id, _) = state.0 { state.0 = .idle }
        }
        // The TLS errors (an untrusted certificate, ...) say more than CONNECT_FAILED.
        if let error = error as? RPCError { throw error }
        throw RPCError.connectFailed("\(host):\(port)")
      }
    }
  }
}
