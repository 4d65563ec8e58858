/// The life of one server connection as a value: events go in, the actions the connection's
/// handler must perform come out (write an answer, a PONG or a GOAWAY, flush, schedule or
/// cancel a timer, start or cancel a call's handler, close).
///
/// It does no I/O, reads no clock and knows no event loop, so every transition is tested without
/// a socket. `ServerConnectionHandler` is the shell around it: it turns channel events, timers
/// and handler tasks into events, and performs the actions in the order given.
///
/// The states, each with its own data:
/// - `active`: serving calls. Goes to `draining` on `beginDrain`, to `closed` on a protocol
///   violation, the idle timeout, a connection error or the channel going away.
/// - `draining`: GOAWAY sent; new REQUESTs are answered SERVER_SHUTTING_DOWN, open calls may
///   finish within the grace period. Goes to `closed` once the linger has passed with no call
///   open, when the grace period ends, or as `active` does.
/// - `closed`: nothing more is read, answered or written. Final: every later event is ignored.
struct ServerConnectionStateMachine {
  /// What the connection holds to.
  struct Limits: Sendable, Equatable {
    /// Handlers that may run at once on the connection.
    var maximumConcurrentCalls: Int
    /// The largest body of a frame the server writes.
    var maximumBodySize: Int
    /// How long unary calls may take after the shutdown GOAWAY.
    var shutdownGracePeriod: Duration
    /// Request bytes the running calls of a connection without a session may hold together.
    var unchargedRequestBytes = WireConfiguration.unchargedFrameBytes
    /// How long a draining connection stays open after GOAWAY even with no call open.
    var drainLinger = ServerConnectionStateMachine.drainLinger
  }

  /// How long a draining connection stays open after GOAWAY even with no call open, so that
  /// REQUESTs already on their way get an UNAVAILABLE answer instead of a closed socket.
  static let drainLinger = Duration.milliseconds(500)

  /// The timers a connection runs; the handler keeps one scheduled task per timer.
  enum Timer: Hashable, Sendable {
    /// The deadline of call `serial` (`timeout_ms`).
    case deadline(callID: UInt64, serial: UInt64)
    /// The linger after the shutdown GOAWAY.
    case linger
    /// The shutdown grace period.
    case grace
  }

  /// Why the server sends GOAWAY.
  enum GoAwayReason: Hashable, Sendable {
    /// Graceful shutdown (`SERVER_SHUTTING_DOWN`); the connection drains.
    case shuttingDown
    /// No frame arrived for the idle timeout (`IDLE_TIMEOUT`); the connection closes.
    case idleTimeout
    /// The peer broke the protocol; the connection closes.
    case violation(ProtocolViolation)

    /// The status the GOAWAY carries.
    var error: RPCError {
      switch self {
      case .shuttingDown: .serverShuttingDown
      case .idleTimeout: .idleTimeout
      case .violation(let violation): violation.rpcError
      }
    }
  }

  /// How a call's handler ended.
  enum Outcome: Hashable, Sendable {
    /// The handler returned: a unary answer's payload, nil for a stream's end.
    case success([UInt8]?)
    /// The handler threw, or something else ended the call.
    case failure(RPCError)
  }

  /// One thing for the handler to do.
  enum Action: Hashable, Sendable {
    /// Write the one terminal envelope of a call (RESPONSE for unary, STREAM_END for a stream).
    case answer(callID: UInt64, kind: MethodKind, locale: RPCLocale, Outcome)
    /// Write a STREAM_MESSAGE of an open call.
    case streamMessage(callID: UInt64, payload: [UInt8])
    /// Write PONG echoing a PING.
    case pong(callID: UInt64, payload: [UInt8])
    /// Write GOAWAY (call id 0) with the reason's status in `locale`.
    case goAway(GoAwayReason, locale: RPCLocale)
    /// Flush once the event loop has run what is queued on it now, then report `flushDue`:
    /// answers finished together leave in one system call.
    case scheduleFlush
    /// Flush what was written.
    case flush
    /// Start the handler task of an admitted call holding `heldBytes` of the request.
    case startHandler(callID: UInt64, serial: UInt64, heldBytes: Int)
    /// Cancel the handler task of call `serial`; it still reports `handlerFinished` when it
    /// stops.
    case cancelHandler(serial: UInt64)
    /// Run `timerFired(timer)` after `delay`.
    case scheduleTimer(Timer, after: Duration)
    /// Cancel a timer scheduled before; one that is not scheduled is no matter.
    case cancelTimer(Timer)
    /// Close the channel once what was written has left.
    case close
  }

  /// What a stream message the handler sends comes to.
  enum OnStreamMessage: Hashable, Sendable {
    /// Perform these (the message and a flush); the sender waits for the message's write.
    case send([Action])
    /// The call has ended (or the connection has); the sender gets `CancellationError`.
    case callEnded
    /// The message does not fit in a frame; the sender gets this error, the call stays open.
    case tooLarge(RPCError)
  }

  /// A REQUEST, as far as the connection's rules need to know it.
  struct Request: Hashable, Sendable {
    /// The call id.
    var callID: UInt64
    /// The method path.
    var method: String
    /// UTF-8 bytes of the method path.
    var methodBytes: Int
    /// Metadata entries.
    var metadataEntries: Int
    /// UTF-8 bytes of the metadata keys and values.
    var metadataBytes: Int
    /// Serialized request bytes.
    var payloadBytes: Int
    /// The caller's locale (metadata `locale`).
    var locale: RPCLocale
    /// `timeout_ms` as a duration; nil when 0 (no deadline).
    var timeout: Duration?
    /// The registered method at `method`, nil when there is none.
    var target: Target?
    /// Whether a call on the connection has shown a valid session; nil where no frame limit
    /// depends on it.
    var sessionAuthenticated: Bool?

    /// What the registry says of the method called.
    struct Target: Hashable, Sendable {
      /// Unary or server streaming.
      var kind: MethodKind
      /// The largest request the method takes.
      var maximumRequestBytes: Int
    }

    /// Bytes the call holds until its handler returns: the payload and the context's strings.
    var heldBytes: Int { payloadBytes + methodBytes + metadataBytes }
  }

  /// An open call.
  struct OpenCall: Hashable, Sendable {
    /// Tells this call from a later one that reuses its id once it has been answered.
    var serial: UInt64
    /// Unary or server streaming.
    var kind: MethodKind
    /// The caller's locale, for the texts of the call's status.
    var locale: RPCLocale
    /// Whether a deadline timer runs for it.
    var hasDeadline: Bool
    /// Set when the drain ended the call: it ends with SERVER_SHUTTING_DOWN whatever its
    /// handler returns.
    var endedByDrain = false
  }

  /// Data of the `active` state.
  struct Active: Hashable, Sendable {
    /// Open calls by id.
    var calls: [UInt64: OpenCall] = [:]
  }

  /// Data of the `draining` state.
  struct Draining: Hashable, Sendable {
    /// Open calls by id.
    var calls: [UInt64: OpenCall]
    /// True once the linger after GOAWAY has passed, so that a connection with no call open
    /// may close.
    var lingerPassed = false
  }

  /// The connection's state.
  enum State: Hashable, Sendable {
    /// Serving calls.
    case active(Active)
    /// GOAWAY sent; open calls finish within the grace period.
    case draining(Draining)
    /// Closing or closed. Final.
    case closed
  }

  /// The limits the connection holds to.
  let limits: Limits
  /// The current state.
  private(set) var state = State.active(Active())
  /// Handler tasks started that have not ended yet, answered or not: a call ended early by
  /// CANCEL or its deadline holds its place in the concurrency limit until its handler has
  /// really stopped. Counted in every state, since tasks outlive the connection.
  private(set) var runningHandlers = 0
  /// The request bytes the running handlers hold.
  private(set) var heldRequestBytes = 0
  /// The locale of the latest REQUEST, for the texts of connection-level statuses.
  private(set) var connectionLocale = RPCLocale.en
  /// Whether a flush is scheduled and not yet done.
  private(set) var flushScheduled = false
  private var nextSerial: UInt64 = 0

  /// A connection that has just opened: active, with no call.
  init(limits: Limits) {
    self.limits = limits
  }

  /// The open calls, whatever the state (none once closed).
  var openCalls: [UInt64: OpenCall] {
    switch state {
    case .active(let active): active.calls
    case .draining(let draining): draining.calls
    case .closed: [:]
    }
  }

  /// True once closed.
  var isClosed: Bool { state == .closed }

  // MARK: Frames from the peer

  /// A REQUEST arrived. `reserve` takes the call's bytes from the server-wide budget, the last
  /// check before the call is admitted; it returns false when they do not fit.
  mutating func receivedRequest(_ request: Request, reserve: (Int) -> Bool) -> [Action] {
    guard !isClosed else { return [] }
    let callID = request.callID
    guard callID != 0 else { return violation(.callIDZero(.request)) }
    guard openCalls[callID] == nil else { return violation(.callIDReused(callID)) }
    guard request.methodBytes <= FrameFormat.maximumMethodBytes else {
      return violation(.methodTooLong(request.methodBytes))
    }
    guard request.metadataEntries <= FrameFormat.maximumMetadataEntries,
      request.metadataBytes <= FrameFormat.maximumMetadataBytes
    else {
      return violation(
        .metadataTooLarge(entries: request.metadataEntries, bytes: request.metadataBytes))
    }
    let locale = request.locale
    connectionLocale = locale

    guard case .active(var active) = state else {
      return answer(callID, .unary, locale, .failure(.serverShuttingDown))
    }
    guard let target = request.target else {
      return answer(callID, .unary, locale, .failure(.methodNotFound(request.method)))
    }
    let kind = target.kind
    guard request.payloadBytes <= target.maximumRequestBytes else {
      let error = RPCError.requestOverMethodLimit(limit: target.maximumRequestBytes)
      return answer(callID, kind, locale, .failure(error))
    }
    guard runningHandlers < limits.maximumConcurrentCalls else {
      let error = RPCError.tooManyConcurrentCalls(limit: limits.maximumConcurrentCalls)
      return answer(callID, kind, locale, .failure(error))
    }
    let heldBytes = request.heldBytes
    // Without a session, a connection's calls hold no more than one uncharged frame: calls
    // that never end (Health/Watch) cannot take the server-wide budget from everyone else.
    if request.sessionAuthenticated == false,
      heldRequestBytes + heldBytes > limits.unchargedRequestBytes
    {
      return answer(callID, kind, locale, .failure(.serverBusy))
    }
    guard reserve(heldBytes) else {
      return answer(callID, kind, locale, .failure(.serverBusy))
    }

    nextSerial += 1
    let serial = nextSerial
    active.calls[callID] = OpenCall(
      serial: serial, kind: kind, locale: locale, hasDeadline: request.timeout != nil)
    state = .active(active)
    runningHandlers += 1
    heldRequestBytes += heldBytes
    var actions: [Action] = []
    if let timeout = request.timeout {
      actions.append(.scheduleTimer(.deadline(callID: callID, serial: serial), after: timeout))
    }
    actions.append(.startHandler(callID: callID, serial: serial, heldBytes: heldBytes))
    return actions
  }

  /// A CANCEL arrived: the call ends with CANCELLED; one not open is ignored.
  mutating func receivedCancel(callID: UInt64) -> [Action] {
    guard !isClosed else { return [] }
    guard callID != 0 else { return violation(.callIDZero(.cancel)) }
    return endCall(callID, serial: nil, with: .cancelled)
  }

  /// A PING arrived: answered by PONG with the same payload.
  mutating func receivedPing(callID: UInt64, payload: [UInt8]) -> [Action] {
    guard !isClosed else { return [] }
    guard payload.count <= FrameFormat.maximumPingPayload else {
      return violation(.pingPayloadTooLarge(payload.count))
    }
    return write(.pong(callID: callID, payload: payload))
  }

  /// Another kind arrived: a PONG answers nothing the server asked, a client's GOAWAY only
  /// says it is leaving; a kind a client may not send is a violation.
  mutating func receivedOther(kind: EnvelopeKind) -> [Action] {
    guard !isClosed else { return [] }
    switch kind {
    case .pong, .goaway: return []
    default: return violation(.unexpectedKind(kind))
    }
  }

  // MARK: Connection events

  /// The peer broke the protocol (the frame decoder's violations arrive here too): GOAWAY
  /// naming it, then close.
  mutating func protocolViolation(_ violation: ProtocolViolation) -> [Action] {
    guard !isClosed else { return [] }
    return self.violation(violation)
  }

  /// No frame arrived for the idle timeout: GOAWAY(IDLE_TIMEOUT), then close.
  mutating func idleTimeout() -> [Action] {
    guard !isClosed else { return [] }
    var actions = write(.goAway(.idleTimeout, locale: connectionLocale))
    close(into: &actions, closeChannel: true)
    return actions
  }

  /// The connection failed (not a violation): close without GOAWAY.
  mutating func connectionError() -> [Action] {
    guard !isClosed else { return [] }
    var actions: [Action] = []
    close(into: &actions, closeChannel: true)
    return actions
  }

  /// The channel went away (or the handler was removed): every open call stops without an
  /// answer; there is nothing left to close.
  mutating func channelClosed() -> [Action] {
    guard !isClosed else { return [] }
    var actions: [Action] = []
    close(into: &actions, closeChannel: false)
    return actions
  }

  /// Graceful shutdown: GOAWAY(SERVER_SHUTTING_DOWN), then drain. Only from `active`.
  mutating func beginDrain() -> [Action] {
    guard case .active(let active) = state else { return [] }
    state = .draining(Draining(calls: active.calls))
    var actions = write(.goAway(.shuttingDown, locale: connectionLocale))
    let grace = limits.shutdownGracePeriod
    actions.append(.scheduleTimer(.linger, after: min(limits.drainLinger, grace)))
    actions.append(.scheduleTimer(.grace, after: grace))
    return actions
  }

  /// Ends every open stream while draining: a stream has no end of its own to wait for. Each
  /// handler is cancelled and may still send what it was sending; its end, when it stops,
  /// carries SERVER_SHUTTING_DOWN. Unary calls keep the grace period.
  mutating func endStreams() -> [Action] {
    guard case .draining(var draining) = state else { return [] }
    var actions: [Action] = []
    for callID in draining.calls.keys.sorted() {
      guard let call = draining.calls[callID], call.kind == .serverStreaming, !call.endedByDrain
      else { continue }
      draining.calls[callID]?.endedByDrain = true
      actions.append(.cancelHandler(serial: call.serial))
    }
    state = .draining(draining)
    return actions
  }

  /// A timer scheduled by `scheduleTimer` fired. One that fires after its reason has gone (the
  /// call answered, the connection closed) does nothing.
  mutating func timerFired(_ timer: Timer) -> [Action] {
    switch timer {
    case .deadline(let callID, let serial):
      guard !isClosed else { return [] }
      return endCall(callID, serial: serial, with: .deadlineExceeded)
    case .linger:
      guard case .draining(var draining) = state else { return [] }
      draining.lingerPassed = true
      state = .draining(draining)
      var actions: [Action] = []
      closeIfDrained(into: &actions)
      return actions
    case .grace:
      guard case .draining(let draining) = state else { return [] }
      var actions: [Action] = []
      for callID in draining.calls.keys.sorted() {
        actions += endCall(callID, serial: nil, with: .shutdownGraceExpired, closeIfDrained: false)
      }
      close(into: &actions, closeChannel: true)
      return actions
    }
  }

  /// The flush scheduled by `scheduleFlush` is due.
  mutating func flushDue() -> [Action] {
    flushScheduled = false
    return [.flush]
  }

  // MARK: Calls

  /// The handler of call `serial` has stopped: its place in the concurrency limit and the
  /// request bytes it held are free, and the call is answered unless something else answered
  /// it first.
  mutating func handlerFinished(
    callID: UInt64, serial: UInt64, heldBytes: Int, _ outcome: Outcome
  ) -> [Action] {
    runningHandlers -= 1
    heldRequestBytes -= heldBytes
    guard let call = openCalls[callID], call.serial == serial else { return [] }
    let outcome = call.endedByDrain ? .failure(.serverShuttingDown) : outcome
    var actions = removeCall(callID, call)
    actions += answer(callID, call.kind, call.locale, outcome)
    closeIfDrained(into: &actions)
    return actions
  }

  /// The handler of call `serial` sends a stream message.
  mutating func streamMessage(callID: UInt64, serial: UInt64, payload: [UInt8])
    -> OnStreamMessage
  {
    guard openCalls[callID]?.serial == serial else { return .callEnded }
    guard FrameFormat.fits(payload: payload.count, limit: limits.maximumBodySize) else {
      return .tooLarge(.responseTooLarge(limit: limits.maximumBodySize))
    }
    return .send(write(.streamMessage(callID: callID, payload: payload)))
  }

  // MARK: Helpers

  /// Ends an open call early (deadline, CANCEL, grace end): stops its handler and answers with
  /// `error`. With a `serial`, only that call; a call not open is left alone.
  private mutating func endCall(
    _ callID: UInt64, serial: UInt64?, with error: RPCError, closeIfDrained: Bool = true
  ) -> [Action] {
    guard let call = openCalls[callID], serial == nil || call.serial == serial else { return [] }
    var actions = removeCall(callID, call)
    actions.append(.cancelHandler(serial: call.serial))
    actions += answer(callID, call.kind, call.locale, .failure(error))
    if closeIfDrained { self.closeIfDrained(into: &actions) }
    return actions
  }

  /// Takes `call` out of the table and cancels its deadline.
  private mutating func removeCall(_ callID: UInt64, _ call: OpenCall) -> [Action] {
    switch state {
    case .active(var active):
      active.calls[callID] = nil
      state = .active(active)
    case .draining(var draining):
      draining.calls[callID] = nil
      state = .draining(draining)
    case .closed:
      return []
    }
    return call.hasDeadline ? [.cancelTimer(.deadline(callID: callID, serial: call.serial))] : []
  }

  /// Writes the terminal envelope of a call.
  private mutating func answer(
    _ callID: UInt64, _ kind: MethodKind, _ locale: RPCLocale, _ outcome: Outcome
  ) -> [Action] {
    write(.answer(callID: callID, kind: kind, locale: locale, outcome))
  }

  /// A write, and a flush scheduled unless one already is.
  private mutating func write(_ action: Action) -> [Action] {
    guard !flushScheduled else { return [action] }
    flushScheduled = true
    return [action, .scheduleFlush]
  }

  /// GOAWAY naming the violation, then close.
  private mutating func violation(_ violation: ProtocolViolation) -> [Action] {
    var actions = write(.goAway(.violation(violation), locale: connectionLocale))
    close(into: &actions, closeChannel: true)
    return actions
  }

  /// A draining connection closes once the linger has passed and no call is open.
  private mutating func closeIfDrained(into actions: inout [Action]) {
    guard case .draining(let draining) = state, draining.lingerPassed, draining.calls.isEmpty
    else { return }
    close(into: &actions, closeChannel: true)
  }

  /// Goes to `closed`: every timer is cancelled and every open call's handler stopped without
  /// an answer; the channel is closed when `closeChannel`.
  private mutating func close(into actions: inout [Action], closeChannel: Bool) {
    let wasDraining: Bool
    switch state {
    case .active: wasDraining = false
    case .draining: wasDraining = true
    case .closed: return
    }
    let calls = openCalls
    state = .closed
    if wasDraining {
      actions.append(.cancelTimer(.linger))
      actions.append(.cancelTimer(.grace))
    }
    for callID in calls.keys.sorted() {
      let call = calls[callID]!
      if call.hasDeadline {
        actions.append(.cancelTimer(.deadline(callID: callID, serial: call.serial)))
      }
      actions.append(.cancelHandler(serial: call.serial))
    }
    if closeChannel { actions.append(.close) }
  }
}
