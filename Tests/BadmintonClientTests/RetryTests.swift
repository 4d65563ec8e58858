import BadmintonAPI
import BadmintonClient
import BadmintonRPC
import Logging
import NIOCore
import Synchronization
import Testing

/// What a scripted server does with each attempt of SendMessage, in turn; once the script is
/// used up, every attempt is answered.
enum Step: Sendable {
  /// Fails the attempt with this error.
  case fail(RPCError)
  /// Never answers (until the caller gives up).
  case hang
  /// Answers once the test opens the gate.
  case waitForGate
}

/// Every attempt a scripted server saw: its idempotency key and its text.
struct Attempt: Sendable, Hashable {
  var key: String?
  var text: String
}

/// One subscription a scripted server serves: the sequences it sends, whatever
/// `after_sequence` says, then the error that ends it, or nil to keep it open.
struct Round: Sendable {
  var sequences: [UInt64]
  var end: RPCError?
}

/// The script of a `ScriptedServer` and what it saw.
final class Script: Sendable {
  private let steps: Mutex<[Step]>
  private let rounds: Mutex<[Round]>
  /// While set, every authentication waits forever: the server has gone silent.
  let silent = Atomic<Bool>(false)
  private let seen = Mutex<[Attempt]>([])
  private let gate = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  init(_ steps: [Step], rounds: [Round]) {
    self.steps = Mutex(steps)
    self.rounds = Mutex(rounds)
  }

  /// Every attempt so far.
  var attempts: [Attempt] { seen.withLock { $0 } }

  /// Lets every attempt waiting for the gate be answered.
  func openGate() {
    let waiters = gate.withLock { gate in
      gate.open = true
      defer { gate.waiters = [] }
      return gate.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  private func waitForGate() async {
    await withCheckedContinuation { continuation in
      let open = gate.withLock { gate in
        if !gate.open { gate.waiters.append(continuation) }
        return gate.open
      }
      if open { continuation.resume() }
    }
  }

  private let subscriptions = Mutex<[UInt64]>([])

  /// The `after_sequence` of every subscription so far.
  var afterSequences: [UInt64] { subscriptions.withLock { $0 } }

  /// Serves Subscribe as the next round says; once the rounds are used up, stays open and
  /// sends nothing.
  func subscribe(_ request: SubscribeRequest, events: ResponseStreamWriter<Event>) async throws {
    subscriptions.withLock { $0.append(request.afterSequence) }
    let round = rounds.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    for sequence in round?.sequences ?? [] {
      var event = Event()
      event.sequence = sequence
      try await events.write(event)
    }
    if let end = round?.end { throw end }
    while true { try await Task.sleep(for: .seconds(3600)) }
  }

  func answer(_ request: SendMessageRequest, context: ServerContext) async throws -> DirectMessage {
    seen.withLock {
      $0.append(Attempt(key: context.metadataValue("idempotency-key"), text: request.text))
    }
    switch steps.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
    case .fail(let error)?:
      throw error
    case .hang?:
      while true { try await Task.sleep(for: .seconds(3600)) }
    case .waitForGate?:
      await waitForGate()
    case nil:
      break
    }
    var message = DirectMessage()
    message.id = Int64(attempts.count)
    message.text = request.text
    return message
  }
}

/// A server whose only product method is SendMessage, answered as a script says, and whose only
/// valid token is `good`.
struct ScriptedServer {
  let script: Script
  let port: Int
  private let serving: Task<Void, any Error>

  private struct Service: RPCService {
    let script: Script

    func registerMethods(in registry: inout HandlerRegistry) {
      registry.register(Messages.sendMessage) { [script] request, context in
        try await script.answer(request, context: context)
      }
      registry.register(Events.subscribe) { [script] request, _, writer in
        try await script.subscribe(request, events: writer)
      }
    }
  }

  private struct OneToken: Authenticator {
    let script: Script

    func authenticate(bearerToken: String) async throws -> Principal? {
      while script.silent.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
      return bearerToken == "good" ? Principal(userID: 1, isAdministrator: false) : nil
    }
  }

  /// Every attempt so far.
  var attempts: [Attempt] { script.attempts }

  /// A server on a free port that follows `steps`.
  static func start(_ steps: [Step], rounds: [Round] = []) async throws -> ScriptedServer {
    var logger = Logger(label: "test.client.scripted")
    logger.logLevel = .critical
    let script = Script(steps, rounds: rounds)
    let rpc = RPCServer(
      configuration: ServerConfiguration(port: 0), services: [Service(script: script)],
      authenticator: OneToken(script: script), logger: logger)
    let task = Task { try await rpc.run() }
    let port = try await rpc.localAddress().port!
    return ScriptedServer(script: script, port: port, serving: task)
  }

  func stop() async {
    serving.cancel()
    _ = await serving.result
  }
}

@Suite("Write retries")
struct RetryTests {
  static func session(
    port: Int, folder: TemporaryFolder, sleeper: RecordingSleeper,
    callTimeout: Duration = .milliseconds(300), events: Bool = false,
    heartbeat: Duration? = nil
  ) throws -> BadmintonSession {
    var configuration = configuration(port: port, folder: folder, sleeper: sleeper)
    configuration.tokenStore = InMemoryTokenStore(
      StoredSession(token: "good", userID: 1, expiresAtUnixMs: .max, lastEventSequence: 0))
    configuration.subscribesToEvents = events
    configuration.callTimeout = callTimeout
    configuration.heartbeatInterval = heartbeat
    return try BadmintonSession(configuration: configuration)
  }

  static let request = SendMessageRequest(recipientID: 2, clientMessageID: "c", text: "hi")

  @Test("a write is tried again with the same key until the answer is definite")
  func notDefinite_retriedWithSameKey() async throws {
    let unavailable = RPCError(
      code: .unavailable, reason: "DATABASE_UNAVAILABLE", message: .init(verbatim: "down"))
    let busy = RPCError(
      code: .resourceExhausted, reason: "IDEMPOTENCY_KEYS_EXHAUSTED",
      message: .init(verbatim: "later"), retryAfter: .seconds(42))
    let server = try await ScriptedServer.start([
      .fail(unavailable), .fail(busy), .hang, .fail(.serverShuttingDown),
    ])
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let sleeper = RecordingSleeper()
    let session = try Self.session(port: server.port, folder: folder, sleeper: sleeper)
    let answer = try await session.write(Messages.sendMessage, Self.request)
    #expect(answer.text == "hi")
    // The four scripted answers, then the one that succeeds. Under load an answer can outlast
    // the 300 ms call timeout: such an attempt is tried again too, with the same key.
    let attempts = server.attempts
    #expect(attempts.count >= 5)
    let key = try #require(attempts.first?.key)
    #expect(attempts.allSatisfy { $0.key == key })
    // The server's hint is waited out in full.
    #expect(sleeper.pauses.contains(.seconds(42)))
    #expect(session.status.pendingWrites == 0)

    let second = try await session.write(Messages.sendMessage, Self.request)
    #expect(second.text == "hi")
    // A new write has a key of its own, the same for each of its attempts.
    let secondAttempts = server.attempts.dropFirst(attempts.count)
    #expect(!secondAttempts.isEmpty)
    #expect(Set(secondAttempts.map(\.key)).count == 1)
    #expect(secondAttempts.first?.key != key)
    await session.close()
    await server.stop()
  }

  @Test("a definite error is not tried again: IDEMPOTENCY_KEY_REUSED reaches the caller")
  func definite_notRetried() async throws {
    let reused = RPCError(
      code: .failedPrecondition, reason: "IDEMPOTENCY_KEY_REUSED", message: .init(verbatim: ""))
    let full = RPCError(
      code: .resourceExhausted, reason: "MESSAGE_QUOTA", message: .init(verbatim: ""))
    let server = try await ScriptedServer.start([.fail(reused), .fail(full)])
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let session = try Self.session(port: server.port, folder: folder, sleeper: RecordingSleeper())
    let first = await rpcError { _ = try await session.write(Messages.sendMessage, Self.request) }
    #expect(first?.reason == "IDEMPOTENCY_KEY_REUSED")
    let second = await rpcError { _ = try await session.write(Messages.sendMessage, Self.request) }
    #expect(second?.reason == "MESSAGE_QUOTA")
    #expect(server.attempts.count == 2)
    #expect(session.status.pendingWrites == 0)
    await session.close()
    await server.stop()
  }

  @Test("a caller that stops waiting leaves its write queued; its answer comes through outcomes")
  func cancelledCaller_outcomeDelivered() async throws {
    let server = try await ScriptedServer.start([.waitForGate])
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let session = try Self.session(
      port: server.port, folder: folder, sleeper: RecordingSleeper(), callTimeout: .seconds(20))
    let caller = Task { try await session.write(Messages.sendMessage, Self.request) }
    let sent = try await withLimit {
      while server.attempts.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
      return true
    }
    #expect(sent == true)
    caller.cancel()
    await #expect(throws: CancellationError.self) { _ = try await caller.value }
    #expect(session.status.pendingWrites == 1)
    server.script.openGate()
    let answered = try await outcomes(session, count: 1)
    #expect(try answered.first?.response(as: DirectMessage.self).text == "hi")
    #expect(server.attempts.count == 1)
    #expect(session.status.pendingWrites == 0)
    await session.close()
    await server.stop()
  }

  @Test("events a server sends again are dropped: each once, in order, resubscribed from the last")
  func repeatedEvents_droppedOnce() async throws {
    let tooSlow = RPCError(
      code: .resourceExhausted, reason: "SUBSCRIBER_TOO_SLOW", message: .init(verbatim: ""))
    let lost = RPCError(code: .unavailable, reason: "STREAM_LOST", message: .init(verbatim: ""))
    // Each subscription starts again from 1, whatever `after_sequence` says.
    let server = try await ScriptedServer.start(
      [],
      rounds: [
        Round(sequences: Array(1...3), end: tooSlow), Round(sequences: Array(1...6), end: lost),
        Round(sequences: Array(1...9), end: lost), Round(sequences: Array(1...12), end: nil),
      ])
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let session = try Self.session(
      port: server.port, folder: folder, sleeper: RecordingSleeper(), events: true)
    let received = try await events(session, count: 12)
    #expect(received.map(\.sequence) == Array(1...12))
    #expect(server.script.afterSequences == [0, 3, 6, 9])
    await session.close()
    await server.stop()
  }

  @Test("an event missing within a stream makes the session follow it again from the last one")
  func gapWithinStream_resubscribes() async throws {
    let server = try await ScriptedServer.start(
      [],
      rounds: [
        Round(sequences: [1, 2, 4, 5], end: nil), Round(sequences: [3, 4, 5, 6], end: nil),
      ])
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let session = try Self.session(
      port: server.port, folder: folder, sleeper: RecordingSleeper(), events: true)
    let received = try await events(session, count: 6)
    #expect(received.map(\.sequence) == Array(1...6))
    #expect(server.script.afterSequences == [0, 2])
    await session.close()
    await server.stop()
  }

  @Test("the heartbeat notices a server gone silent and reconnects once it answers again")
  func heartbeat_noticesSilence() async throws {
    let server = try await ScriptedServer.start([])
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let sleeper = RecordingSleeper()
    let session = try Self.session(
      port: server.port, folder: folder, sleeper: sleeper, heartbeat: .seconds(30))
    try await waitForStatus(session) { $0.connection == .connected }
    server.script.silent.store(true, ordering: .relaxed)
    try await waitForStatus(session) { $0.connection != .connected }
    #expect(sleeper.pauses.contains(.seconds(30)))
    server.script.silent.store(false, ordering: .relaxed)
    try await waitForStatus(session) { $0.connection == .connected }
    // Writes go through the new connection.
    let answer = try await session.write(Messages.sendMessage, Self.request)
    #expect(answer.text == "hi")
    await session.close()
    await server.stop()
  }
}
