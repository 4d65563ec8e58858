import NIOCore
import NIOPosix
import Synchronization

/// One client connection: starts calls on it and turns Swift task cancellation into CANCEL.
final class RPCConnection: Sendable {
  private let channel: any Channel
  private let handler: NIOLoopBound<ClientConnectionHandler>
  private let flags: ConnectionFlags
  private let maximumBodySize: Int
  private let nextCallID = Atomic<UInt64>(1)
  private let nextPing = Atomic<UInt64>(1)
  /// True once a call on this connection has passed authentication.
  private let sessionChecked = Atomic<Bool>(false)

  private init(
    channel: any Channel, handler: NIOLoopBound<ClientConnectionHandler>, flags: ConnectionFlags,
    maximumBodySize: Int
  ) {
    self.maximumBodySize = maximumBodySize
    self.channel = channel
    self.handler = handler
    self.flags = flags
  }

  /// True while new calls may start here.
  var isUsable: Bool {
    channel.isActive && !flags.goAwayReceived.load(ordering: .acquiring)
  }

  /// Connects to `host:port`; with TLS, returns once the handshake has verified the server, and
  /// throws the clear TLS error (`TLS_CERTIFICATE_UNTRUSTED`, ...) when it has not.
  static func connect(
    host: String, port: Int, configuration: ClientConfiguration, group: any EventLoopGroup
  ) async throws -> RPCConnection {
    let flags = ConnectionFlags()
    let handshake = group.next().makePromise(of: Void.self)
    let channel: any Channel
    do {
      channel = try await ClientBootstrap(group: group)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .connectTimeout(TimeAmount(configuration.connectTimeout))
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            if let tls = configuration.tls {
              try channel.pipeline.syncOperations.addHandlers(
                tls.makeHandlers(
                  host: host, port: port, timeout: configuration.connectTimeout,
                  completed: handshake))
            } else {
              handshake.succeed()
            }
            try channel.pipeline.syncOperations.addHandlers(
              RPCConnection.handlers(configuration: configuration, flags: flags))
          }
        }
        .connect(host: host, port: port)
        .get()
    } catch {
      // The handshake never started: its promise must still be completed.
      handshake.fail(error)
      throw error
    }
    do {
      try await handshake.futureResult.get()
    } catch {
      try? await channel.close()
      throw error
    }
    let handler = try await channel.eventLoop.submit {
      NIOLoopBound(
        try channel.pipeline.syncOperations.handler(type: ClientConnectionHandler.self),
        eventLoop: channel.eventLoop)
    }.get()
    return RPCConnection(
      channel: channel, handler: handler, flags: flags,
      maximumBodySize: configuration.wire.maximumBodySize)
  }

  /// The handlers of one client connection in pipeline order. `connect` installs them; tests
  /// install them on an `EmbeddedChannel`, whose clock they move themselves, to check the
  /// keepalive without waiting for real time.
  static func handlers(configuration: ClientConfiguration, flags: ConnectionFlags)
    -> [any ChannelHandler]
  {
    [
      ByteToMessageHandler(ClientFrameDecoder(configuration: configuration.wire)),
      IdleEventHandler(writeTimeout: TimeAmount(configuration.keepaliveInterval)),
      ClientConnectionHandler(flags: flags, wire: configuration.wire),
    ]
  }

  private func allocateCallID() -> UInt64 {
    nextCallID.wrappingAdd(1, ordering: .relaxed).oldValue
  }

  /// Sends a unary REQUEST and waits for its RESPONSE payload.
  func unary(method: String, payload: ByteBuffer, metadata: [Metadata], timeout: Duration?)
    async throws -> ByteBuffer
  {
    try checkSize(method: method, payload: payload, metadata: metadata)
    try await ensureSession(method: method, payload: payload, metadata: metadata, timeout: timeout)
    let callID = allocateCallID()
    let gate = CancellationGate()
    do {
      return try await send(
        callID, gate: gate, method: method, payload: payload, metadata: metadata, timeout: timeout)
    } catch let error as RPCError where error.reason == RPCError.sessionInvalid.reason {
      // The server no longer counts this connection as having a session.
      sessionChecked.store(false, ordering: .releasing)
      throw error
    }
  }

  /// Sends unary call `callID` and waits for its RESPONSE payload. A caller already on the
  /// connection's event loop (a task that prefers `RPCClient.taskExecutor`) starts the call
  /// there and then, and the answer resumes it there: the call crosses no thread. Anyone else
  /// hands the start to the loop.
  private func send(
    _ callID: UInt64, gate: CancellationGate, method: String, payload: ByteBuffer,
    metadata: [Metadata], timeout: Duration?
  ) async throws -> ByteBuffer {
    let handler = self.handler
    return try await withTaskCancellationHandler {
      // The handler resumes the continuation exactly once: the first event that ends the call
      // removes it from the open calls.
      try await withUnsafeThrowingContinuation { continuation in
        let start = {
          guard gate.start() else { return continuation.resume(throwing: RPCError.cancelled) }
          handler.value.startCall(
            callID, method: method, payload: payload, metadata: metadata, timeout: timeout,
            pending: .unary(continuation))
        }
        if handler.eventLoop.inEventLoop {
          start()
        } else {
          handler.eventLoop.execute(start)
        }
      }
    } onCancel: {
      if gate.cancel() {
        handler.eventLoop.execute { handler.value.end(callID, with: .cancelled) }
      }
    }
  }

  /// Sends a streaming REQUEST; the stream yields each STREAM_MESSAGE payload and ends with the
  /// STREAM_END status. Dropping or cancelling the stream sends CANCEL.
  func serverStreaming(
    method: String, payload: ByteBuffer, metadata: [Metadata], timeout: Duration?
  ) async throws -> AsyncThrowingStream<[UInt8], any Error> {
    try checkSize(method: method, payload: payload, metadata: metadata)
    try await ensureSession(method: method, payload: payload, metadata: metadata, timeout: timeout)
    let callID = allocateCallID()
    let handler = self.handler
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
    continuation.onTermination = { termination in
      if case .cancelled = termination {
        handler.eventLoop.execute { handler.value.end(callID, with: .cancelled) }
      }
    }
    handler.eventLoop.execute {
      handler.value.startCall(
        callID, method: method, payload: payload, metadata: metadata, timeout: timeout,
        pending: .stream(continuation))
    }
    return stream
  }

  /// The server accepts frames over `WireConfiguration.unchargedFrameBytes` (header included,
  /// a compressed body counted at its decompressed size) only on a connection on which a call
  /// has passed authentication: before the first such request that carries a session token,
  /// and again after a call failed with SESSION_INVALID, calls `Health/CheckSession` with it
  /// here.
  private func ensureSession(
    method: String, payload: ByteBuffer, metadata: [Metadata], timeout: Duration?
  ) async throws {
    guard !sessionChecked.load(ordering: .acquiring),
      !FrameFormat.fits(
        payload: payload.readableBytes, method: method, metadata: metadata,
        limit: WireConfiguration.unchargedBodyBytes),
      metadata.contains(where: { $0.key == "authorization" })
    else { return }
    let session = metadata.filter { $0.key == "authorization" || $0.key == "locale" }
    _ = try await unary(
      method: Health.checkSession.path, payload: ByteBuffer(), metadata: session, timeout: timeout)
    sessionChecked.store(true, ordering: .releasing)
  }

  /// Refuses, before sending, a request the server would take as a protocol violation.
  private func checkSize(method: String, payload: ByteBuffer, metadata: [Metadata]) throws {
    guard
      FrameFormat.fits(
        payload: payload.readableBytes, method: method, metadata: metadata, limit: maximumBodySize)
    else { throw RPCError.requestTooLarge(limit: maximumBodySize) }
  }

  /// Sends PING and waits for the PONG.
  func ping() async throws {
    var counter = nextPing.wrappingAdd(1, ordering: .relaxed).oldValue
    let payload = withUnsafeBytes(of: &counter) { Array($0) }
    let handler = self.handler
    try await withCheckedThrowingContinuation { continuation in
      handler.eventLoop.execute { handler.value.ping(payload, continuation: continuation) }
    }
  }

  /// Closes the connection; open calls fail with UNAVAILABLE.
  func close() async {
    try? await channel.close()
  }
}

/// Settles the race between starting a call on the event loop and cancelling it from the task.
final class CancellationGate: Sendable {
  private enum State { case pending, started, cancelled }
  private let state = Mutex(State.pending)

  /// Marks the call started; false when it was cancelled first.
  func start() -> Bool {
    state.withLock { state in
      guard state == .pending else { return false }
      state = .started
      return true
    }
  }

  /// Marks the call cancelled; true when it had started, so the event loop must end it.
  func cancel() -> Bool {
    state.withLock { state in
      defer { state = .cancelled }
      return state == .started
    }
  }
}
