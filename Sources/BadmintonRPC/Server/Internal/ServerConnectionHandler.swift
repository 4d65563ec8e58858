import Logging
import NIOCore

/// Serves one connection: the I/O shell around `ServerConnectionStateMachine`. It turns channel
/// events (envelopes, errors, the idle event, the channel going away), its timers and its
/// handler tasks (or, for a method served inline, the handler's answer as the request arrives)
/// into the machine's events, and performs the actions the machine returns:
/// writes, flushes, timers, handler tasks and the close.
///
/// Everything runs on the connection's event loop, so envelopes of one call leave in order and
/// nothing that ends a call (response, deadline, CANCEL, shutdown) can answer it twice: the
/// machine answers the first and finds the call gone for the rest.
final class ServerConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = Envelope
  typealias OutboundOut = Envelope
  private typealias Machine = ServerConnectionStateMachine
  private typealias Outcome = ServerConnectionStateMachine.Outcome

  private let registry: HandlerRegistry
  private let authenticator: (any Authenticator)?
  /// `authenticator`, when it answers without waiting: calls to methods served inline then run
  /// on the event loop, without a task.
  private let immediateAuthenticator: (any ImmediateAuthenticator)?
  private let configuration: ServerConfiguration
  private let requestBudget: RequestMemoryBudget
  private let metrics: ServerMetrics
  /// Set once a call on the connection passes authentication; the frame decoder reads it.
  private let trust: ConnectionTrust?
  /// Hands over the large-frame slot of the REQUEST being delivered, which its call keeps.
  private let gate: LargeFrameGate?
  private var logger: Logger
  /// The connection's states and rules.
  private(set) var machine: ServerConnectionStateMachine
  /// Released in `handlerRemoved`: the context holds the handler, so keeping it would keep both.
  private(set) var context: ChannelHandlerContext!
  /// The connection's event loop; unlike the context, it can outlive the handler.
  private var eventLoop: (any EventLoop)!
  /// Runs the connection's handler tasks on its event loop.
  private var taskExecutor: EventLoopTaskExecutor?
  private var peer = "unknown"
  // What the machine's actions refer to: the I/O handles it does not hold.
  /// The scheduled timers, by the machine's name for them.
  private var timers: [Machine.Timer: Scheduled<Void>] = [:]
  /// The running handler tasks, by call serial.
  private var handlerTasks: [UInt64: Task<Void, Never>] = [:]
  /// The latest write; the connection closes only after it completes.
  private var lastWrite: EventLoopFuture<Void>?
  /// The metrics of each admitted call, by call id, until its answer is counted.
  private var meters: [UInt64: CallMeter] = [:]

  init(
    registry: HandlerRegistry, authenticator: (any Authenticator)?,
    configuration: ServerConfiguration, requestBudget: RequestMemoryBudget, logger: Logger,
    trust: ConnectionTrust? = nil, gate: LargeFrameGate? = nil,
    metrics: ServerMetrics = .disabled
  ) {
    self.metrics = metrics
    self.trust = trust
    self.gate = gate
    self.registry = registry
    self.authenticator = authenticator
    self.immediateAuthenticator = authenticator as? any ImmediateAuthenticator
    self.configuration = configuration
    self.requestBudget = requestBudget
    self.logger = logger
    self.machine = ServerConnectionStateMachine(
      limits: .init(
        maximumConcurrentCalls: configuration.maximumConcurrentCallsPerConnection,
        maximumBodySize: configuration.wire.maximumBodySize,
        shutdownGracePeriod: configuration.shutdownGracePeriod))
  }

  /// How long a draining connection stays open after GOAWAY even with no call open.
  static let drainLinger = TimeAmount(ServerConnectionStateMachine.drainLinger)

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    eventLoop = context.eventLoop
    taskExecutor = EventLoopTaskExecutor(context.eventLoop)
    peer = context.channel.remoteAddress?.description ?? "unknown"
    logger[metadataKey: "peer"] = "\(peer)"
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    perform(machine.channelClosed())
    self.context = nil
    taskExecutor = nil
  }

  // MARK: Events

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let envelope = unwrapInboundIn(data)
    switch envelope.kind {
    case .request:
      receivedRequest(envelope)
    case .cancel:
      perform(machine.receivedCancel(callID: envelope.callID))
    case .ping:
      perform(machine.receivedPing(callID: envelope.callID, payload: envelope.payload))
    default:
      perform(machine.receivedOther(kind: envelope.kind))
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if let violation = error as? ProtocolViolation {
      perform(machine.protocolViolation(violation))
    } else {
      logger.debug("connection error", metadata: ["error": "\(error)"])
      perform(machine.connectionError())
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case IdleStateHandler.IdleStateEvent.read = event {
      perform(machine.idleTimeout())
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    perform(machine.channelClosed())
    context.fireChannelInactive()
  }

  /// Starts the graceful drain: GOAWAY(UNAVAILABLE), no new calls, open calls get the grace
  /// period, then the connection closes.
  func beginDrain() {
    perform(machine.beginDrain())
  }

  /// Ends every open server-streaming call, once the drain has begun, with SERVER_SHUTTING_DOWN:
  /// a stream has no end of its own to wait for. Each handler is cancelled and may still send
  /// what it was sending (a last health update, say); its end follows. Unary calls keep the
  /// grace period.
  func endStreams() {
    perform(machine.endStreams())
  }

  private func timerFired(_ timer: Machine.Timer) {
    timers[timer] = nil
    perform(machine.timerFired(timer))
  }

  /// A REQUEST: the machine admits or refuses it; an admitted call's handler starts here.
  private func receivedRequest(_ envelope: Envelope) {
    let method = registry.method(at: envelope.method)
    let request = Machine.Request(
      callID: envelope.callID, method: envelope.method,
      methodBytes: envelope.method.utf8.count, metadataEntries: envelope.metadata.count,
      metadataBytes: envelope.metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count },
      payloadBytes: envelope.payload.count,
      locale: RPCLocale(metadataValue: envelope.metadataValue("locale")),
      timeout: envelope.timeoutMs > 0
        ? .milliseconds(Int64(envelope.timeoutMs)) : nil,
      target: method.map { .init(kind: $0.kind, maximumRequestBytes: $0.maximumRequestBytes) },
      sessionAuthenticated: trust?.sessionAuthenticated)
    let budget = requestBudget
    let logger = logger
    let meter = metrics.callStarted(envelope.method)
    let actions = machine.receivedRequest(request) { bytes in
      guard budget.reserve(bytes) else {
        let (log, suppressed) = budget.shouldWarnExhausted(at: .now)
        if log {
          logger.warning(
            "request budget exhausted",
            metadata: ["bytes": "\(bytes)", "suppressed": "\(suppressed)"])
        }
        return false
      }
      return true
    }
    for action in actions {
      if case .startHandler(let callID, let serial, let heldBytes) = action, let method {
        meters[callID] = meter
        startHandler(
          envelope, method: method, callID: callID, serial: serial, heldBytes: heldBytes)
      } else if case .answer(let callID, _, _, _) = action, callID == envelope.callID,
        meters[callID] == nil
      {
        // Refused before its handler started: counted against this request's meter.
        meters[callID] = meter
        perform(action)
      } else {
        perform(action)
      }
    }
  }

  // MARK: Actions

  private func perform(_ actions: [Machine.Action]) {
    for action in actions { perform(action) }
  }

  /// Performs one action; returns the write's future for the actions that write.
  @discardableResult
  private func perform(_ action: Machine.Action) -> EventLoopFuture<Void>? {
    switch action {
    case .answer(let callID, let kind, let locale, let outcome):
      let envelope = Self.answer(
        callID: callID, kind: kind, locale: locale, outcome,
        limit: configuration.wire.maximumBodySize)
      if let meter = meters.removeValue(forKey: callID), let status = envelope.status {
        metrics.callEnded(meter, kind: kind, status: status)
      }
      return write(envelope)
    case .streamMessage(let callID, let payload):
      return write(Envelope(callID: callID, kind: .streamMessage, payload: payload))
    case .pong(let callID, let payload):
      return write(Envelope(callID: callID, kind: .pong, payload: payload))
    case .goAway(let reason, let locale):
      switch reason {
      case .violation(let violation):
        logger.notice("protocol violation", metadata: ["reason": "\(violation.rpcError.reason)"])
      case .idleTimeout:
        logger.debug("idle timeout")
      case .shuttingDown:
        break
      }
      metrics.goAwaySent(reason.error)
      return write(Envelope(callID: 0, kind: .goaway, status: reason.error.status(in: locale)))
    case .scheduleFlush:
      let handler = NIOLoopBound(self, eventLoop: eventLoop)
      eventLoop.execute { handler.value.perform(handler.value.machine.flushDue()) }
    case .flush:
      context?.flush()
    case .startHandler:
      // Only a REQUEST starts a handler; `receivedRequest` performs it.
      assertionFailure("a handler starts only from receivedRequest")
    case .cancelHandler(let serial):
      handlerTasks.removeValue(forKey: serial)?.cancel()
    case .scheduleTimer(let timer, let delay):
      let handler = NIOLoopBound(self, eventLoop: eventLoop)
      timers[timer]?.cancel()
      timers[timer] = eventLoop.scheduleTask(in: TimeAmount(delay)) {
        handler.value.timerFired(timer)
      }
    case .cancelTimer(let timer):
      timers.removeValue(forKey: timer)?.cancel()
    case .close:
      closeChannel()
    }
    return nil
  }

  /// The terminal envelope of a call: RESPONSE for unary, STREAM_END for a stream. An answer
  /// too large for a frame becomes RESPONSE_TOO_LARGE.
  static func answer(
    callID: UInt64, kind: MethodKind, locale: RPCLocale,
    _ outcome: ServerConnectionStateMachine.Outcome, limit: Int
  ) -> Envelope {
    var envelope = Envelope(callID: callID, kind: kind == .unary ? .response : .streamEnd)
    switch outcome {
    case .success(let payload?) where !FrameFormat.fits(payload: payload.count, limit: limit):
      envelope.status = RPCError.responseTooLarge(limit: limit).status(in: locale)
    case .success(let payload):
      envelope.payload = payload ?? []
      envelope.status = .ok
    case .failure(let error):
      envelope.status = error.status(in: locale)
    }
    return envelope
  }

  /// Writes `envelope`, remembering the write so that closing waits for it. The machine has
  /// scheduled the flush.
  private func write(_ envelope: Envelope) -> EventLoopFuture<Void> {
    let promise = eventLoop.makePromise(of: Void.self)
    guard let context else {
      promise.fail(ChannelError.ioOnClosedChannel)
      return promise.futureResult
    }
    context.write(wrapOutboundOut(envelope), promise: promise)
    lastWrite = promise.futureResult
    return promise.futureResult
  }

  /// Closes the channel once what was written so far has left; a peer that does not read loses
  /// the connection after a short wait all the same.
  private func closeChannel() {
    guard let channel = context?.channel else { return }
    guard let lastWrite else {
      channel.close(promise: nil)
      return
    }
    lastWrite.whenComplete { _ in channel.close(promise: nil) }
    channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
  }

  // MARK: Calls

  /// Starts the handler task of an admitted call.
  private func startHandler(
    _ request: Envelope, method: RegisteredMethod, callID: UInt64, serial: UInt64, heldBytes: Int
  ) {
    let loop = eventLoop!
    let handler = NIOLoopBound(self, eventLoop: loop)
    let deadline: ContinuousClock.Instant? =
      request.timeoutMs > 0
      ? .now + .milliseconds(Int64(request.timeoutMs)) : nil
    let serverContext = ServerContext(
      callID: callID, method: request.method, metadata: request.metadata, deadline: deadline,
      peer: peer, logger: logger)
    let sink = RawResponseSink(
      send: { bytes in
        try await loop.flatSubmit {
          handler.value.sendStreamMessages(callID, serial: serial, CollectionOfOne(bytes))
        }.get()
      },
      sendAll: { messages in
        // One hop to the loop for all of them; the flush the machine schedules sends them in
        // one system call.
        try await loop.flatSubmit {
          handler.value.sendStreamMessages(callID, serial: serial, messages)
        }.get()
      })
    let budget = requestBudget
    let metrics = self.metrics
    let streaming = method.kind == .serverStreaming
    if streaming { metrics.streamOpened() }
    // A large frame's slot stays with its call until the handler has finished; a stream's
    // handler may never finish, so a stream gives it back once its request is decoded.
    let slot = gate?.takeDeliveredSlot()
    var whenDecoded: (@Sendable () -> Void)?
    if method.kind == .serverStreaming, let slot { whenDecoded = { slot.release() } }
    let payload = RequestBytes(request.payload, whenTaken: whenDecoded)
    if let invokeInline = method.invokeInline,
      !method.info.requiresAuthentication || authenticator == nil || immediateAuthenticator != nil
    {
      return runInline(
        invokeInline, requiresAuthentication: method.info.requiresAuthentication,
        payload: payload, context: serverContext, serial: serial, heldBytes: heldBytes,
        finally: {
          budget.release(heldBytes)
          slot?.release()
          if streaming { metrics.streamClosed() }
        })
    }
    handlerTasks[serial] = Self.run(
      method, payload: payload, context: serverContext, serial: serial,
      heldBytes: heldBytes, sink: sink,
      authenticator: authenticator, handler: handler, on: taskExecutor,
      finally: {
        budget.release(heldBytes)
        slot?.release()
        if streaming { metrics.streamClosed() }
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

  /// The handler of call `serial` has ended.
  private func finishCall(_ callID: UInt64, serial: UInt64, heldBytes: Int, _ outcome: Outcome) {
    handlerTasks[serial] = nil
    perform(
      machine.handlerFinished(callID: callID, serial: serial, heldBytes: heldBytes, outcome))
  }

  /// Sends stream messages of call `serial`, in order, stopping at the first that cannot be
  /// sent; a handler whose call has ended (and whose id a later call may have taken) sends
  /// nothing. The future is the last message's write.
  private func sendStreamMessages<Payloads: Collection<[UInt8]>>(
    _ callID: UInt64, serial: UInt64, _ payloads: Payloads
  ) -> EventLoopFuture<Void> {
    var written: EventLoopFuture<Void> = eventLoop.makeSucceededVoidFuture()
    for payload in payloads {
      switch machine.streamMessage(callID: callID, serial: serial, payload: payload) {
      case .callEnded:
        return eventLoop.makeFailedFuture(CancellationError())
      case .tooLarge(let error):
        return eventLoop.makeFailedFuture(error)
      case .send(let actions):
        var this: EventLoopFuture<Void>?
        for action in actions {
          let future = perform(action)
          if case .streamMessage = action { this = future }
        }
        guard let this else { return eventLoop.makeFailedFuture(CancellationError()) }
        written = this
      }
    }
    return written
  }
}
