import Logging
import NIOCore

/// Serves one connection: keeps its table of open calls, runs each call's handler in a task
/// (or, for a method served inline, on the event loop as the request arrives), enforces
/// deadlines, CANCEL, the concurrency limit, idle timeout, and GOAWAY on protocol violations and
/// on graceful shutdown.
///
/// All state lives on the connection's event loop, so envelopes of one call leave in order and
/// nothing that ends a call (response, deadline, CANCEL, shutdown) can answer it twice: the
/// first to remove the call from `calls` answers, later ones find nothing.
final class ServerConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = Envelope
  typealias OutboundOut = Envelope

  /// The connection's life.
  private enum State {
    /// Serving calls. Goes to `draining` on graceful shutdown, to `closed` on a violation, idle
    /// timeout or the channel going inactive.
    case active
    /// GOAWAY sent: new REQUESTs get UNAVAILABLE, open calls may finish within the grace period.
    /// Goes to `closed` when the last call ends, the grace period ends, or the channel goes away.
    case draining
    /// Closing or closed: nothing more is read or answered. Final.
    case closed
  }

  private struct OpenCall {
    /// Tells this call from a later one that reuses its id once it has been answered.
    let serial: UInt64
    let kind: MethodKind
    let locale: RPCLocale
    var task: Task<Void, Never>?
    var deadline: Scheduled<Void>?
    /// Set when the drain ended the call: it ends with SERVER_SHUTTING_DOWN whatever the
    /// handler returns.
    var endedByDrain = false
  }

  private enum Outcome: Sendable {
    case success([UInt8]?)
    case failure(RPCError)
  }

  private let registry: HandlerRegistry
  private let authenticator: (any Authenticator)?
  /// `authenticator`, when it answers without waiting: calls to methods served inline then run
  /// on the event loop, without a task.
  private let immediateAuthenticator: (any ImmediateAuthenticator)?
  private let configuration: ServerConfiguration
  private let requestBudget: RequestMemoryBudget
  /// Set once a call on the connection passes authentication; the frame decoder reads it.
  private let trust: ConnectionTrust?
  /// Hands over the large-frame slot of the REQUEST being delivered, which its call keeps.
  private let gate: LargeFrameGate?
  private var logger: Logger
  /// Released in `handlerRemoved`: the context holds the handler, so keeping it would keep both.
  private(set) var context: ChannelHandlerContext!
  /// The connection's event loop; unlike the context, it can outlive the handler.
  private var eventLoop: (any EventLoop)!
  /// Runs the connection's handler tasks on its event loop.
  private var taskExecutor: EventLoopTaskExecutor?
  private var state = State.active
  private var calls: [UInt64: OpenCall] = [:]
  /// Handler tasks started on this connection that have not ended yet, answered or not: a call
  /// ended early by CANCEL or its deadline holds its place in the concurrency limit until its
  /// handler has really stopped.
  private(set) var runningHandlers = 0
  /// The request bytes the running handlers of this connection hold (payload, method and
  /// metadata of each); until a call has passed authentication, at most
  /// `WireConfiguration.unchargedFrameBytes`.
  private(set) var heldRequestBytes = 0
  private var nextSerial: UInt64 = 0
  private var graceTimer: Scheduled<Void>?
  /// While draining: true once the linger after GOAWAY has passed, so that an idle connection
  /// may close.
  private var lingerPassed = false
  /// The locale of the latest REQUEST, for the texts of connection-level statuses.
  private var connectionLocale = RPCLocale.en
  private var peer = "unknown"
  /// The latest write; the connection closes only after it completes.
  private var lastWrite: EventLoopFuture<Void>?
  /// Whether a flush is queued on the event loop.
  private var flushQueued = false

  init(
    registry: HandlerRegistry, authenticator: (any Authenticator)?,
    configuration: ServerConfiguration, requestBudget: RequestMemoryBudget, logger: Logger,
    trust: ConnectionTrust? = nil, gate: LargeFrameGate? = nil
  ) {
    self.trust = trust
    self.gate = gate
    self.registry = registry
    self.authenticator = authenticator
    self.immediateAuthenticator = authenticator as? any ImmediateAuthenticator
    self.configuration = configuration
    self.requestBudget = requestBudget
    self.logger = logger
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    eventLoop = context.eventLoop
    taskExecutor = EventLoopTaskExecutor(context.eventLoop)
    peer = context.channel.remoteAddress?.description ?? "unknown"
    logger[metadataKey: "peer"] = "\(peer)"
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    stopCalls()
    self.context = nil
    taskExecutor = nil
  }

  // MARK: Inbound

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard state != .closed else { return }
    let envelope = unwrapInboundIn(data)
    switch envelope.kind {
    case .request:
      startCall(envelope)
    case .cancel:
      guard envelope.callID != 0 else { return violation(.callIDZero(.cancel)) }
      endCall(envelope.callID, with: .cancelled)
    case .ping:
      guard envelope.payload.count <= FrameFormat.maximumPingPayload else {
        return violation(.pingPayloadTooLarge(envelope.payload.count))
      }
      _ = send(Envelope(callID: envelope.callID, kind: .pong, payload: envelope.payload))
    case .pong, .goAway:
      // A PONG answers nothing the server asked for; a client's GOAWAY only says it is leaving.
      break
    default:
      violation(.unexpectedKind(envelope.kind))
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if let violation = error as? ProtocolViolation {
      self.violation(violation)
    } else {
      logger.debug("connection error", metadata: ["error": "\(error)"])
      closeNow()
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case IdleStateHandler.IdleStateEvent.read = event {
      logger.debug("idle timeout")
      goAwayAndClose(.idleTimeout)
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    stopCalls()
    context.fireChannelInactive()
  }

  /// Closed: stops every open call without answering it.
  private func stopCalls() {
    state = .closed
    graceTimer?.cancel()
    for call in calls.values {
      call.deadline?.cancel()
      call.task?.cancel()
    }
    calls.removeAll()
  }

  // MARK: Calls

  private func startCall(_ request: Envelope) {
    let callID = request.callID
    guard callID != 0 else { return violation(.callIDZero(.request)) }
    guard calls[callID] == nil else { return violation(.callIDReused(callID)) }
    let methodBytes = request.method.utf8.count
    guard methodBytes <= FrameFormat.maximumMethodBytes else {
      return violation(.methodTooLong(methodBytes))
    }
    let metadataBytes = request.metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    guard request.metadata.count <= FrameFormat.maximumMetadataEntries,
      metadataBytes <= FrameFormat.maximumMetadataBytes
    else {
      return violation(.metadataTooLarge(entries: request.metadata.count, bytes: metadataBytes))
    }
    let locale = RPCLocale(metadataValue: request.metadataValue("locale"))
    connectionLocale = locale

    guard state == .active else {
      return answer(callID, kind: .unary, locale: locale, .failure(.serverShuttingDown))
    }
    guard let method = registry.method(at: request.method) else {
      return answer(callID, kind: .unary, locale: locale, .failure(.methodNotFound(request.method)))
    }
    guard request.payload.count <= method.maximumRequestBytes else {
      let error = RPCError.requestOverMethodLimit(limit: method.maximumRequestBytes)
      return answer(callID, kind: method.kind, locale: locale, .failure(error))
    }
    guard runningHandlers < configuration.maximumConcurrentCallsPerConnection else {
      let error = RPCError.tooManyConcurrentCalls(
        limit: configuration.maximumConcurrentCallsPerConnection)
      return answer(callID, kind: method.kind, locale: locale, .failure(error))
    }
    // What the call holds until its handler returns: the payload and the context's strings.
    let heldBytes = request.payload.count + methodBytes + metadataBytes
    // Without a session, a connection's calls hold no more than one uncharged frame: calls
    // that never end (Health/Watch) cannot take the server-wide budget from everyone else.
    if let trust, !trust.sessionAuthenticated,
      heldRequestBytes + heldBytes > WireConfiguration.unchargedFrameBytes
    {
      return answer(callID, kind: method.kind, locale: locale, .failure(.serverBusy))
    }
    guard requestBudget.reserve(heldBytes) else {
      let (log, suppressed) = requestBudget.shouldWarnExhausted(at: .now)
      if log {
        logger.warning(
          "request budget exhausted",
          metadata: ["bytes": "\(heldBytes)", "suppressed": "\(suppressed)"])
      }
      return answer(callID, kind: method.kind, locale: locale, .failure(.serverBusy))
    }

    let loop = context.eventLoop
    let handler = NIOLoopBound(self, eventLoop: loop)
    nextSerial += 1
    let serial = nextSerial
    var call = OpenCall(serial: serial, kind: method.kind, locale: locale)
    var deadline: ContinuousClock.Instant?
    if request.timeoutMilliseconds > 0 {
      let timeout = Int64(request.timeoutMilliseconds)
      deadline = .now + .milliseconds(timeout)
      call.deadline = loop.scheduleTask(in: .milliseconds(timeout)) {
        handler.value.endCall(callID, with: .deadlineExceeded)
      }
    }
    let serverContext = ServerContext(
      callID: callID, method: request.method, metadata: request.metadata, deadline: deadline,
      peer: peer, logger: logger)
    let sink = RawResponseSink { bytes in
      try await loop.flatSubmit { handler.value.sendStreamMessage(callID, serial: serial, bytes) }
        .get()
    }
    calls[callID] = call

    let budget = requestBudget
    // A large frame's slot stays with its call until the handler has finished; a stream's
    // handler may never finish, so a stream gives it back once its request is decoded.
    let slot = gate?.takeDeliveredSlot()
    var whenDecoded: (@Sendable () -> Void)?
    if method.kind == .serverStreaming, let slot { whenDecoded = { slot.release() } }
    let payload = RequestBytes(request.payload, whenTaken: whenDecoded)
    runningHandlers += 1
    heldRequestBytes += heldBytes
    if let invokeInline = method.invokeInline,
      !method.info.requiresAuthentication || authenticator == nil || immediateAuthenticator != nil
    {
      return runInline(
        invokeInline, requiresAuthentication: method.info.requiresAuthentication,
        payload: payload, context: serverContext, serial: serial, heldBytes: heldBytes,
        finally: {
          budget.release(heldBytes)
          slot?.release()
        })
    }
    calls[callID]?.task = Self.run(
      method, payload: payload, context: serverContext, serial: serial,
      heldBytes: heldBytes, sink: sink,
      authenticator: authenticator, handler: handler, on: taskExecutor,
      finally: {
        budget.release(heldBytes)
        slot?.release()
      })
  }

  /// Runs a handler in a task of its own that prefers the connection's event loop, calls
  /// `release` once the handler no longer holds the request (the encoded request is let go as
  /// soon as it is decoded), then hands its outcome back to the event loop. The handler's own
  /// steps run on the loop, and so do the default actors and child tasks it calls; the store's work runs on its database queues and password hashing on NIO's
  /// thread pool. A handler that waits for a lock holds up the loop meanwhile.
  private static func run(
    _ method: RegisteredMethod, payload: RequestBytes, context: ServerContext, serial: UInt64,
    heldBytes: Int, sink: RawResponseSink,
    authenticator: (any Authenticator)?, handler: NIOLoopBound<ServerConnectionHandler>,
    on executor: EventLoopTaskExecutor?, finally release: @escaping @Sendable () -> Void
  ) -> Task<Void, Never> {
    Task(executorPreference: executor) {
      let outcome: Outcome
      do {
        var context = context
        if method.info.requiresAuthentication {
          do {
            context = context.authenticated(
              as: try await authenticate(context, with: authenticator))
          } catch let error as RPCError where error.reason == RPCError.sessionInvalid.reason {
            // The session the connection showed has ended (logged out, expired): it loses the
            // right to large frames until a call passes again. Queued before the answer.
            handler.eventLoop.execute { handler.value.trust?.sessionAuthenticated = false }
            throw error
          }
          // Queued before the call's answer, so the peer sees the answer only once it holds.
          handler.eventLoop.execute { handler.value.trust?.sessionAuthenticated = true }
        }
        outcome = .success(try await method.invoke(payload, context, sink))
      } catch {
        outcome = .failure(Self.callerError(for: error, logger: context.logger))
      }
      release()
      // Queued even when the task already runs on the loop, so that the call's last frame
      // follows whatever the loop was given before (a GOAWAY queued by a shutdown, say).
      handler.eventLoop.execute {
        handler.value.finishCall(
          context.callID, serial: serial, heldBytes: heldBytes, outcome)
      }
    }
  }

  /// Runs the handler of a method served inline here, on the event loop, without a task: the
  /// session check (`ImmediateAuthenticator`), the handler and the release of what the call
  /// held happen now; the outcome is handed to `finishCall` through the loop's queue exactly as
  /// a task's is, so that a CANCEL or deadline handled before it still answers first, the
  /// call's last frame still follows whatever the loop was given before, and the error mapping
  /// is the same.
  private func runInline(
    _ invoke: (RequestBytes, ServerContext) throws -> [UInt8], requiresAuthentication: Bool,
    payload: RequestBytes, context: ServerContext, serial: UInt64, heldBytes: Int,
    finally release: () -> Void
  ) {
    let outcome: Outcome
    do {
      var context = context
      if requiresAuthentication {
        context = context.authenticated(as: try authenticateNow(context))
      }
      outcome = .success(try invoke(payload, context))
    } catch {
      outcome = .failure(Self.callerError(for: error, logger: context.logger))
    }
    release()
    let handler = NIOLoopBound(self, eventLoop: eventLoop)
    eventLoop.execute {
      handler.value.finishCall(context.callID, serial: serial, heldBytes: heldBytes, outcome)
    }
  }

  /// `authenticate(_:with:)` for a call served inline, with the connection's trust updated as
  /// the task's check updates it: lost when the session has ended, held once a call passes.
  private func authenticateNow(_ context: ServerContext) throws -> Principal {
    guard let token = context.bearerToken else { throw RPCError.authenticationRequired }
    guard let immediateAuthenticator,
      let principal = try immediateAuthenticator.authenticateNow(bearerToken: token)
    else {
      trust?.sessionAuthenticated = false
      throw RPCError.sessionInvalid
    }
    trust?.sessionAuthenticated = true
    return principal
  }

  /// The caller of a method that needs authentication; without an authenticator every such
  /// call is refused.
  private static func authenticate(
    _ context: ServerContext, with authenticator: (any Authenticator)?
  ) async throws -> Principal {
    guard let token = context.bearerToken else { throw RPCError.authenticationRequired }
    guard let authenticator,
      let principal = try await authenticator.authenticate(bearerToken: token)
    else { throw RPCError.sessionInvalid }
    return principal
  }

  /// What the caller sees for an error a handler threw.
  private static func callerError(for error: any Error, logger: Logger) -> RPCError {
    switch error {
    case let convertible as any RPCErrorConvertible:
      return convertible.rpcError
    case is CancellationError:
      return .cancelled
    default:
      logger.error("handler failed", metadata: ["error": "\(error)"])
      return .internalError
    }
  }

  /// The handler of call `serial` has ended: its place in the concurrency limit and the request
  /// bytes it held are free, and the call is answered unless something else answered it first.
  private func finishCall(_ callID: UInt64, serial: UInt64, heldBytes: Int, _ outcome: Outcome) {
    runningHandlers -= 1
    heldRequestBytes -= heldBytes
    guard calls[callID]?.serial == serial, let call = calls.removeValue(forKey: callID) else {
      return
    }
    call.deadline?.cancel()
    let outcome = call.endedByDrain ? .failure(.serverShuttingDown) : outcome
    answer(callID, kind: call.kind, locale: call.locale, outcome)
    callEnded()
  }

  /// Ends an open call early (deadline, CANCEL): stops its work and answers with `error`.
  private func endCall(_ callID: UInt64, with error: RPCError) {
    guard let call = calls.removeValue(forKey: callID) else { return }
    call.deadline?.cancel()
    call.task?.cancel()
    answer(callID, kind: call.kind, locale: call.locale, .failure(error))
    callEnded()
  }

  /// Sends a stream message of call `serial`; a handler whose call has ended (and whose id a
  /// later call may have taken) sends nothing.
  private func sendStreamMessage(_ callID: UInt64, serial: UInt64, _ payload: [UInt8])
    -> EventLoopFuture<Void>
  {
    guard state != .closed, calls[callID]?.serial == serial else {
      return eventLoop.makeFailedFuture(CancellationError())
    }
    let limit = configuration.wire.maximumBodySize
    guard FrameFormat.fits(payload: payload.count, limit: limit) else {
      return eventLoop.makeFailedFuture(RPCError.responseTooLarge(limit: limit))
    }
    return send(Envelope(callID: callID, kind: .streamMessage, payload: payload))
  }

  /// Writes the one terminal envelope of a call.
  private func answer(_ callID: UInt64, kind: MethodKind, locale: RPCLocale, _ outcome: Outcome) {
    guard state != .closed else { return }
    var envelope = Envelope(callID: callID, kind: kind == .unary ? .response : .streamEnd)
    let limit = configuration.wire.maximumBodySize
    switch outcome {
    case .success(let payload?) where !FrameFormat.fits(payload: payload.count, limit: limit):
      envelope.status = RPCError.responseTooLarge(limit: limit).status(in: locale)
    case .success(let payload):
      envelope.payload = payload ?? []
      envelope.status = .ok
    case .failure(let error):
      envelope.status = error.status(in: locale)
    }
    _ = send(envelope)
  }

  private func callEnded() {
    if state == .draining && calls.isEmpty && lingerPassed {
      closeNow()
    }
  }

  /// How long a draining connection stays open after GOAWAY even with no call open, so that
  /// REQUESTs already on their way get an UNAVAILABLE answer instead of a closed socket.
  static let drainLinger = TimeAmount.milliseconds(500)

  // MARK: Connection

  /// Starts the graceful drain: GOAWAY(UNAVAILABLE), no new calls, open calls get the grace
  /// period, then the connection closes.
  func beginDrain() {
    guard state == .active else { return }
    state = .draining
    let goAway = Envelope(
      callID: 0, kind: .goAway, status: RPCError.serverShuttingDown.status(in: connectionLocale))
    _ = send(goAway)
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    let grace = TimeAmount(configuration.shutdownGracePeriod)
    context.eventLoop.scheduleTask(in: min(Self.drainLinger, grace)) {
      handler.value.lingerPassed = true
      handler.value.callEnded()
    }
    graceTimer = context.eventLoop.scheduleTask(in: grace) {
      handler.value.endGracePeriod()
    }
  }

  /// Ends every open server-streaming call, once the drain has begun, with SERVER_SHUTTING_DOWN:
  /// a stream has no end of its own to wait for. Each handler is cancelled and may still send
  /// what it was sending (a last health update, say); its end follows. Unary calls keep the
  /// grace period.
  func endStreams() {
    guard state == .draining else { return }
    for (callID, call) in calls where call.kind == .serverStreaming && !call.endedByDrain {
      calls[callID]?.endedByDrain = true
      call.task?.cancel()
    }
  }

  private func endGracePeriod() {
    guard state == .draining else { return }
    for callID in Array(calls.keys) {
      endCall(callID, with: .shutdownGraceExpired)
    }
    closeNow()
  }

  private func violation(_ violation: ProtocolViolation) {
    logger.notice("protocol violation", metadata: ["reason": "\(violation.rpcError.reason)"])
    goAwayAndClose(violation.rpcError)
  }

  /// Sends GOAWAY with `error`, stops every open call, and closes once the GOAWAY is written.
  private func goAwayAndClose(_ error: RPCError) {
    guard state != .closed else { return }
    _ = send(Envelope(callID: 0, kind: .goAway, status: error.status(in: connectionLocale)))
    closeNow()
  }

  /// Stops every open call and closes the channel once what was written so far has left; a peer
  /// that does not read loses the connection after a short wait all the same.
  private func closeNow() {
    guard state != .closed else { return }
    state = .closed
    graceTimer?.cancel()
    for call in calls.values {
      call.deadline?.cancel()
      call.task?.cancel()
    }
    calls.removeAll()
    let channel = context.channel
    guard let lastWrite else {
      channel.close(promise: nil)
      return
    }
    lastWrite.whenComplete { _ in channel.close(promise: nil) }
    channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
  }

  /// Writes `envelope`, remembering the write so that closing waits for it, and flushes once
  /// the event loop has run the tasks already queued: answers that handlers on this loop finish
  /// together leave together, in one system call.
  private func send(_ envelope: Envelope) -> EventLoopFuture<Void> {
    let promise = context.eventLoop.makePromise(of: Void.self)
    context.write(wrapOutboundOut(envelope), promise: promise)
    lastWrite = promise.futureResult
    if !flushQueued {
      flushQueued = true
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      context.eventLoop.execute {
        handler.value.flushQueued = false
        handler.value.context?.flush()
      }
    }
    return promise.futureResult
  }
}
