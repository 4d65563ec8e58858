import PropertyBased
import Testing

@testable import BadmintonRPC

/// The connection's states and rules, event by event, without a socket, a loop or a clock.
@Suite("Server connection state machine")
struct ServerConnectionStateMachineTests {
  typealias Machine = ServerConnectionStateMachine

  static let limits = Machine.Limits(
    maximumConcurrentCalls: 2, maximumBodySize: 1024, shutdownGracePeriod: .seconds(10))
  static let unary = Machine.Request.Target(kind: .unary, maximumRequestBytes: 100)
  static let stream = Machine.Request.Target(kind: .serverStreaming, maximumRequestBytes: 100)

  static func request(
    _ callID: UInt64, _ target: Machine.Request.Target? = unary, payload: Int = 10,
    timeout: Duration? = nil, locale: RPCLocale = .en, session: Bool? = nil,
    methodBytes: Int = 6, metadataEntries: Int = 0, metadataBytes: Int = 0
  ) -> Machine.Request {
    Machine.Request(
      callID: callID, method: "/t.S/M", methodBytes: methodBytes,
      metadataEntries: metadataEntries, metadataBytes: metadataBytes, payloadBytes: payload,
      locale: locale, timeout: timeout, target: target, sessionAuthenticated: session)
  }

  /// A machine with its flush already scheduled, so that actions show no `scheduleFlush`.
  static func machine(_ limits: Machine.Limits = limits) -> Machine {
    var machine = Machine(limits: limits)
    _ = machine.receivedPing(callID: 0, payload: [])
    return machine
  }

  static func goAwayAndClose(_ violation: ProtocolViolation) -> [Machine.Action] {
    [.goAway(.violation(violation), locale: .en), .close]
  }

  // MARK: Active

  @Test("an admitted REQUEST starts its handler, with a deadline timer when it has a timeout")
  func active_admitsRequests() {
    var machine = Self.machine()
    #expect(
      machine.receivedRequest(Self.request(1), reserve: { _ in true })
        == [.startHandler(callID: 1, serial: 1, heldBytes: 16)])
    #expect(
      machine.receivedRequest(Self.request(2, timeout: .milliseconds(150)), reserve: { _ in true })
        == [
          .scheduleTimer(.deadline(callID: 2, serial: 2), after: .milliseconds(150)),
          .startHandler(callID: 2, serial: 2, heldBytes: 16),
        ])
    #expect(machine.runningHandlers == 2)
    #expect(machine.heldRequestBytes == 32)
    #expect(machine.openCalls.keys.sorted() == [1, 2])
  }

  @Test("a REQUEST is refused, in order: unknown method, over its limit, over the call limit")
  func active_refusesRequests() {
    var machine = Self.machine()
    var reserved: [Int] = []
    let reserve: (Int) -> Bool = {
      reserved.append($0); return true
    }
    #expect(
      machine.receivedRequest(Self.request(1, nil, payload: 500), reserve: reserve)
        == [.answer(callID: 1, kind: .unary, locale: .en, .failure(.methodNotFound("/t.S/M")))])
    #expect(
      machine.receivedRequest(Self.request(1, Self.stream, payload: 101), reserve: reserve)
        == [
          .answer(
            callID: 1, kind: .serverStreaming, locale: .en,
            .failure(.requestOverMethodLimit(limit: 100)))
        ])
    _ = machine.receivedRequest(Self.request(1), reserve: reserve)
    _ = machine.receivedRequest(Self.request(2), reserve: reserve)
    #expect(
      machine.receivedRequest(Self.request(3), reserve: reserve)
        == [
          .answer(
            callID: 3, kind: .unary, locale: .en, .failure(.tooManyConcurrentCalls(limit: 2)))
        ])
    // Only the admitted calls took bytes from the budget.
    #expect(reserved == [16, 16])
    #expect(machine.openCalls.count == 2)
  }

  @Test("a REQUEST that does not fit the budget or the session-less share gets SERVER_BUSY")
  func active_refusesForMemory() {
    var machine = Self.machine()
    #expect(
      machine.receivedRequest(Self.request(1), reserve: { _ in false })
        == [.answer(callID: 1, kind: .unary, locale: .en, .failure(.serverBusy))])
    var small = Self.limits
    small.unchargedRequestBytes = 20
    machine = Self.machine(small)
    _ = machine.receivedRequest(Self.request(1, session: false), reserve: { _ in true })
    var asked = false
    #expect(
      machine.receivedRequest(Self.request(2, session: false)) { _ in
        asked = true
        return true
      } == [.answer(callID: 2, kind: .unary, locale: .en, .failure(.serverBusy))])
    #expect(!asked)
    // With a session, the share does not apply.
    #expect(
      machine.receivedRequest(Self.request(2, session: true), reserve: { _ in true })
        == [.startHandler(callID: 2, serial: 2, heldBytes: 16)])
  }

  @Test("a broken REQUEST is a violation: GOAWAY naming it, open calls stopped, closed")
  func active_requestViolations() {
    let cases: [(Machine.Request, ProtocolViolation)] = [
      (Self.request(0), .callIDZero(.request)),
      (Self.request(7), .callIDReused(7)),
      (
        Self.request(8, methodBytes: FrameFormat.maximumMethodBytes + 1),
        .methodTooLong(FrameFormat.maximumMethodBytes + 1)
      ),
      (
        Self.request(8, metadataEntries: FrameFormat.maximumMetadataEntries + 1),
        .metadataTooLarge(entries: FrameFormat.maximumMetadataEntries + 1, bytes: 0)
      ),
      (
        Self.request(8, metadataBytes: FrameFormat.maximumMetadataBytes + 1),
        .metadataTooLarge(entries: 0, bytes: FrameFormat.maximumMetadataBytes + 1)
      ),
    ]
    for (request, violation) in cases {
      var machine = Self.machine()
      _ = machine.receivedRequest(Self.request(7, timeout: .seconds(1)), reserve: { _ in true })
      #expect(
        machine.receivedRequest(request, reserve: { _ in true })
          == [
            .goAway(.violation(violation), locale: .en),
            .cancelTimer(.deadline(callID: 7, serial: 1)), .cancelHandler(serial: 1), .close,
          ])
      #expect(machine.isClosed)
    }
  }

  @Test("CANCEL ends an open call with CANCELLED; unknown ids are ignored; id 0 is a violation")
  func active_cancel() {
    var machine = Self.machine()
    _ = machine.receivedRequest(Self.request(7, timeout: .seconds(1)), reserve: { _ in true })
    #expect(machine.receivedCancel(callID: 99) == [])
    #expect(
      machine.receivedCancel(callID: 7)
        == [
          .cancelTimer(.deadline(callID: 7, serial: 1)), .cancelHandler(serial: 1),
          .answer(callID: 7, kind: .unary, locale: .en, .failure(.cancelled)),
        ])
    #expect(machine.receivedCancel(callID: 7) == [])
    // The cancelled handler still holds its place until it stops.
    #expect(machine.runningHandlers == 1)
    #expect(machine.receivedCancel(callID: 0) == Self.goAwayAndClose(.callIDZero(.cancel)))
  }

  @Test("PING gets PONG; a large PING payload, a server-only kind are violations")
  func active_pingAndOtherKinds() {
    var machine = Self.machine()
    #expect(
      machine.receivedPing(callID: 3, payload: [1, 2]) == [.pong(callID: 3, payload: [1, 2])])
    #expect(machine.receivedOther(kind: .pong) == [])
    #expect(machine.receivedOther(kind: .goaway) == [])
    let large = [UInt8](repeating: 0, count: FrameFormat.maximumPingPayload + 1)
    var pinged = Self.machine()
    #expect(
      pinged.receivedPing(callID: 0, payload: large)
        == Self.goAwayAndClose(.pingPayloadTooLarge(large.count)))
    for kind in [
      EnvelopeKind.response, .streamMessage, .streamEnd, .unspecified, .init(rawValue: 42),
    ] {
      var other = Self.machine()
      #expect(other.receivedOther(kind: kind) == Self.goAwayAndClose(.unexpectedKind(kind)))
    }
  }

  @Test("a handler's end answers its call once; a stale serial answers nothing")
  func active_handlerFinished() {
    var machine = Self.machine()
    _ = machine.receivedRequest(Self.request(1, timeout: .seconds(1)), reserve: { _ in true })
    #expect(
      machine.handlerFinished(callID: 1, serial: 1, heldBytes: 16, .success([9]))
        == [
          .cancelTimer(.deadline(callID: 1, serial: 1)),
          .answer(callID: 1, kind: .unary, locale: .en, .success([9])),
        ])
    #expect(machine.runningHandlers == 0)
    #expect(machine.heldRequestBytes == 0)
    // Call 2 is cancelled, its id reused by a new call: the old handler's end is not its answer.
    _ = machine.receivedRequest(Self.request(2), reserve: { _ in true })
    _ = machine.receivedCancel(callID: 2)
    _ = machine.receivedRequest(Self.request(2), reserve: { _ in true })
    #expect(machine.handlerFinished(callID: 2, serial: 2, heldBytes: 16, .success(nil)) == [])
    #expect(machine.openCalls[2]?.serial == 3)
    #expect(machine.runningHandlers == 1)
  }

  @Test("a deadline answers DEADLINE_EXCEEDED and stops the handler; a stale one does nothing")
  func active_deadline() {
    var machine = Self.machine()
    _ = machine.receivedRequest(Self.request(1, timeout: .seconds(1)), reserve: { _ in true })
    #expect(machine.timerFired(.deadline(callID: 1, serial: 2)) == [])
    #expect(
      machine.timerFired(.deadline(callID: 1, serial: 1))
        == [
          .cancelTimer(.deadline(callID: 1, serial: 1)), .cancelHandler(serial: 1),
          .answer(callID: 1, kind: .unary, locale: .en, .failure(.deadlineExceeded)),
        ])
    #expect(machine.timerFired(.deadline(callID: 1, serial: 1)) == [])
    // Drain timers mean nothing outside the drain.
    #expect(machine.timerFired(.linger) == [])
    #expect(machine.timerFired(.grace) == [])
    #expect(!machine.isClosed)
  }

  @Test("stream messages of open calls are sent; of ended calls refused; too large ones fail")
  func active_streamMessages() {
    var machine = Machine(limits: Self.limits)
    _ = machine.receivedRequest(Self.request(1, Self.stream), reserve: { _ in true })
    #expect(
      machine.streamMessage(callID: 1, serial: 1, payload: [1])
        == .send([.streamMessage(callID: 1, payload: [1]), .scheduleFlush]))
    #expect(
      machine.streamMessage(callID: 1, serial: 1, payload: [2])
        == .send([.streamMessage(callID: 1, payload: [2])]))
    #expect(
      machine.streamMessage(callID: 1, serial: 1, payload: .init(repeating: 0, count: 2000))
        == .tooLarge(.responseTooLarge(limit: 1024)))
    #expect(machine.streamMessage(callID: 1, serial: 9, payload: [3]) == .callEnded)
    #expect(machine.streamMessage(callID: 5, serial: 1, payload: [3]) == .callEnded)
  }

  @Test("writes schedule one flush until it is done")
  func flushes_areCoalesced() {
    var machine = Machine(limits: Self.limits)
    #expect(
      machine.receivedPing(callID: 0, payload: []) == [
        .pong(callID: 0, payload: []), .scheduleFlush,
      ])
    #expect(machine.receivedPing(callID: 0, payload: []) == [.pong(callID: 0, payload: [])])
    #expect(machine.flushDue() == [.flush])
    #expect(
      machine.receivedPing(callID: 0, payload: []) == [
        .pong(callID: 0, payload: []), .scheduleFlush,
      ])
  }

  @Test("the idle timeout, a violation, a connection error close; the channel's end only stops")
  func active_connectionEvents() {
    func opened() -> Machine {
      var machine = Self.machine()
      _ = machine.receivedRequest(Self.request(1, locale: .zhCN), reserve: { _ in true })
      return machine
    }
    var idle = opened()
    #expect(
      idle.idleTimeout()
        == [.goAway(.idleTimeout, locale: .zhCN), .cancelHandler(serial: 1), .close])
    var violated = opened()
    #expect(
      violated.protocolViolation(.envelopeMalformed)
        == [
          .goAway(.violation(.envelopeMalformed), locale: .zhCN), .cancelHandler(serial: 1), .close,
        ])
    var failed = opened()
    #expect(failed.connectionError() == [.cancelHandler(serial: 1), .close])
    var gone = opened()
    #expect(gone.channelClosed() == [.cancelHandler(serial: 1)])
    for machine in [idle, violated, failed, gone] { #expect(machine.isClosed) }
  }

  // MARK: Draining

  @Test("the drain sends GOAWAY in the latest locale and starts the linger and grace timers")
  func drain_begins() {
    var machine = Self.machine()
    _ = machine.receivedRequest(Self.request(1, nil, locale: .zhCN), reserve: { _ in true })
    #expect(
      machine.beginDrain()
        == [
          .goAway(.shuttingDown, locale: .zhCN),
          .scheduleTimer(.linger, after: .milliseconds(500)),
          .scheduleTimer(.grace, after: .seconds(10)),
        ])
    #expect(machine.beginDrain() == [])
    // A grace period shorter than the linger bounds it.
    var short = Self.limits
    short.shutdownGracePeriod = .milliseconds(100)
    var quick = Self.machine(short)
    #expect(
      quick.beginDrain()
        == [
          .goAway(.shuttingDown, locale: .en),
          .scheduleTimer(.linger, after: .milliseconds(100)),
          .scheduleTimer(.grace, after: .milliseconds(100)),
        ])
  }

  @Test("while draining, REQUESTs get SERVER_SHUTTING_DOWN; broken ones are still violations")
  func drain_refusesRequests() {
    var machine = Self.machine()
    _ = machine.receivedRequest(Self.request(1), reserve: { _ in true })
    _ = machine.beginDrain()
    var reserved = false
    #expect(
      machine.receivedRequest(Self.request(2, Self.stream, locale: .zhCN)) { _ in
        reserved = true
        return true
      } == [.answer(callID: 2, kind: .unary, locale: .zhCN, .failure(.serverShuttingDown))])
    #expect(!reserved)
    #expect(machine.receivedPing(callID: 0, payload: [1]) == [.pong(callID: 0, payload: [1])])
    #expect(
      machine.receivedRequest(Self.request(1), reserve: { _ in true })
        == [
          .goAway(.violation(.callIDReused(1)), locale: .zhCN), .cancelTimer(.linger),
          .cancelTimer(.grace), .cancelHandler(serial: 1), .close,
        ])
  }

  @Test("a drained connection closes when the linger has passed and the last call has ended")
  func drain_closesWhenDrained() {
    var idle = Self.machine()
    _ = idle.beginDrain()
    #expect(idle.timerFired(.linger) == [.cancelTimer(.linger), .cancelTimer(.grace), .close])
    #expect(idle.isClosed)

    var busy = Self.machine()
    _ = busy.receivedRequest(Self.request(1), reserve: { _ in true })
    _ = busy.receivedRequest(Self.request(2), reserve: { _ in true })
    _ = busy.beginDrain()
    // A call that ends before the linger passes leaves the connection open.
    #expect(
      busy.handlerFinished(callID: 1, serial: 1, heldBytes: 16, .success([]))
        == [.answer(callID: 1, kind: .unary, locale: .en, .success([]))])
    #expect(busy.timerFired(.linger) == [])
    #expect(!busy.isClosed)
    #expect(
      busy.receivedCancel(callID: 2)
        == [
          .cancelHandler(serial: 2),
          .answer(callID: 2, kind: .unary, locale: .en, .failure(.cancelled)),
          .cancelTimer(.linger), .cancelTimer(.grace), .close,
        ])
  }

  @Test("the drain ends open streams: their handlers are cancelled, their end says SHUTTING_DOWN")
  func drain_endsStreams() {
    var machine = Self.machine()
    #expect(machine.endStreams() == [])
    _ = machine.receivedRequest(Self.request(1, Self.stream), reserve: { _ in true })
    _ = machine.receivedRequest(Self.request(2), reserve: { _ in true })
    _ = machine.beginDrain()
    #expect(machine.endStreams() == [.cancelHandler(serial: 1)])
    #expect(machine.endStreams() == [])
    // A message sent while it stops still goes out; its end carries the drain's status.
    #expect(
      machine.streamMessage(callID: 1, serial: 1, payload: [1])
        == .send([.streamMessage(callID: 1, payload: [1])]))
    #expect(
      machine.handlerFinished(
        callID: 1, serial: 1, heldBytes: 16, .failure(.cancelled))
        == [
          .answer(callID: 1, kind: .serverStreaming, locale: .en, .failure(.serverShuttingDown))
        ])
  }

  @Test("when the grace period ends, open calls get SHUTDOWN_GRACE_EXPIRED and it closes")
  func drain_graceExpires() {
    var machine = Self.machine()
    _ = machine.receivedRequest(Self.request(2, timeout: .seconds(60)), reserve: { _ in true })
    _ = machine.receivedRequest(Self.request(1, Self.stream), reserve: { _ in true })
    _ = machine.beginDrain()
    #expect(
      machine.timerFired(.grace)
        == [
          .cancelHandler(serial: 2),
          .answer(
            callID: 1, kind: .serverStreaming, locale: .en, .failure(.shutdownGraceExpired)),
          .cancelTimer(.deadline(callID: 2, serial: 1)), .cancelHandler(serial: 1),
          .answer(callID: 2, kind: .unary, locale: .en, .failure(.shutdownGraceExpired)),
          .cancelTimer(.linger), .cancelTimer(.grace), .close,
        ])
    #expect(machine.isClosed)
  }

  @Test("the idle timeout while draining sends its own GOAWAY and closes")
  func drain_idleTimeout() {
    var machine = Self.machine()
    _ = machine.beginDrain()
    #expect(
      machine.idleTimeout()
        == [
          .goAway(.idleTimeout, locale: .en), .cancelTimer(.linger), .cancelTimer(.grace), .close,
        ])
  }

  // MARK: Closed

  @Test("once closed, every event is ignored: frames, timers, a second close, the drain")
  func closed_ignoresEverything() {
    var machine = Self.machine()
    _ = machine.receivedRequest(Self.request(1, timeout: .seconds(1)), reserve: { _ in true })
    _ = machine.beginDrain()
    _ = machine.protocolViolation(.envelopeMalformed)
    #expect(machine.isClosed)
    #expect(machine.receivedRequest(Self.request(2), reserve: { _ in true }) == [])
    #expect(machine.receivedRequest(Self.request(0), reserve: { _ in true }) == [])
    #expect(machine.receivedCancel(callID: 1) == [])
    #expect(machine.receivedCancel(callID: 0) == [])
    #expect(machine.receivedPing(callID: 0, payload: [1]) == [])
    #expect(machine.receivedOther(kind: .response) == [])
    #expect(machine.protocolViolation(.envelopeMalformed) == [])
    #expect(machine.idleTimeout() == [])
    #expect(machine.connectionError() == [])
    #expect(machine.channelClosed() == [])
    #expect(machine.beginDrain() == [])
    #expect(machine.endStreams() == [])
    #expect(machine.timerFired(.deadline(callID: 1, serial: 1)) == [])
    #expect(machine.timerFired(.linger) == [])
    #expect(machine.timerFired(.grace) == [])
    #expect(machine.streamMessage(callID: 1, serial: 1, payload: [1]) == .callEnded)
    // A handler that stops after the close frees its place and answers nothing.
    #expect(machine.handlerFinished(callID: 1, serial: 1, heldBytes: 16, .success([])) == [])
    #expect(machine.runningHandlers == 0)
    #expect(machine.heldRequestBytes == 0)
    #expect(machine.isClosed)
  }

  // MARK: Any sequence

  /// One event of the machine, for random sequences.
  enum Event: CaseIterable {
    case request, badRequest, cancel, ping, violation, idle, error, channelClosed, drain
    case endStreams, deadline, linger, grace, finish, streamMessage, flush
  }

  @Test("for any sequence of events: one close at most, nothing after it, every call answered once")
  func anySequence_keepsTheRules() async {
    let sequences = Generator { rng in
      (0..<Int.random(in: 1...40, using: &rng)).map { _ in
        (Event.allCases.randomElement(using: &rng)!, UInt64.random(in: 1...4, using: &rng))
      }
    }
    await propertyCheck(count: 300, input: sequences) { events in
      var machine = Machine(limits: Self.limits)
      // The oracle: the calls admitted and not yet answered, and the handlers not yet stopped.
      var open: [UInt64: UInt64] = [:]
      var running: [UInt64: (callID: UInt64, heldBytes: Int)] = [:]
      var closes = 0
      var answered = Set<UInt64>()
      for (event, id) in events {
        let before = machine.isClosed
        var actions: [Machine.Action]
        switch event {
        case .request:
          actions = machine.receivedRequest(
            Self.request(id, id.isMultiple(of: 2) ? Self.stream : Self.unary, timeout: .seconds(1)),
            reserve: { _ in true })
        case .badRequest:
          actions = machine.receivedRequest(Self.request(0), reserve: { _ in true })
        case .cancel: actions = machine.receivedCancel(callID: id)
        case .ping: actions = machine.receivedPing(callID: 0, payload: [])
        case .violation: actions = machine.protocolViolation(.envelopeMalformed)
        case .idle: actions = machine.idleTimeout()
        case .error: actions = machine.connectionError()
        case .channelClosed: actions = machine.channelClosed()
        case .drain: actions = machine.beginDrain()
        case .endStreams: actions = machine.endStreams()
        case .deadline:
          actions = machine.timerFired(.deadline(callID: id, serial: open[id] ?? 0))
        case .linger: actions = machine.timerFired(.linger)
        case .grace: actions = machine.timerFired(.grace)
        case .finish:
          guard let serial = running.keys.sorted().first else { continue }
          let (callID, held) = running.removeValue(forKey: serial)!
          actions = machine.handlerFinished(
            callID: callID, serial: serial, heldBytes: held, .success(nil))
        case .streamMessage:
          switch machine.streamMessage(callID: id, serial: open[id] ?? 0, payload: []) {
          case .send(let sent): actions = sent
          case .callEnded, .tooLarge: actions = []
          }
        case .flush: actions = machine.flushDue()
        }
        if before { #expect(actions.allSatisfy { $0 == .flush }, "\(event) after close") }
        for action in actions {
          switch action {
          case .startHandler(let callID, let serial, let heldBytes):
            open[callID] = serial
            running[serial] = (callID, heldBytes)
          case .answer(let callID, _, _, _):
            if let serial = open.removeValue(forKey: callID) {
              #expect(answered.insert(serial).inserted)
            } else {
              // Only a new REQUEST is answered without being open: it was refused.
              #expect(event == .request && callID == id, "answer for call \(callID), not open")
            }
          case .close:
            closes += 1
          default:
            break
          }
        }
        if machine.isClosed { open = [:] }
        #expect(Set(machine.openCalls.keys) == Set(open.keys))
        #expect(machine.runningHandlers == running.count)
        #expect(machine.runningHandlers <= Self.limits.maximumConcurrentCalls)
      }
      #expect(closes <= 1)
    }
  }
}
