public import BadmintonAPI
public import BadmintonRPC
import Synchronization

/// One player's session with the server, for an app: it logs in and keeps the token in a
/// `TokenStore`, reconnects by itself with full-jitter exponential backoff, follows the event
/// stream and resumes it after every reconnect from the last event it delivered, and sends every
/// write through a durable FIFO queue with an idempotency key, again and again with that key
/// until the server's answer is definite.
///
/// Four loops run while the session is open: one reaches the server (`Health/CheckSession`)
/// whenever the session is signed in and not connected, backing off between failed attempts;
/// one sends the queue's first write whenever connected; one follows `Events/Subscribe`; one
/// checks the connection every `heartbeatInterval`. A write's, a stream's or a heartbeat's lost
/// connection sends the first loop back to work. Call `close()` when done: the loops hold the
/// session.
public actor BadmintonSession {
  /// Where the session connects, where it keeps its files, and its limits.
  public nonisolated let configuration: SessionConfiguration

  /// The RPC client: replaced by a new one (a new connection) when a call on it got no answer
  /// in time, since a connection that went silent is never noticed as lost otherwise.
  private var rpc: RPCClient
  private let queue: WriteQueue
  private let environment: SessionEnvironment
  private let broadcast: StatusBroadcast
  private let loops = Mutex<[Task<Void, Never>]>([])

  /// The token, its player and the delivered-event cursor, as the token store holds them.
  private var stored: StoredSession?
  private var connection: ConnectionState
  /// Connection attempts that failed in a row since the last success.
  private var failures = 0
  /// One more every time the session reaches the server: a loss reported for an older
  /// connection is ignored.
  private var epoch = 0
  private var closed = false
  /// Loops waiting for the state to change.
  private var waiters: [CheckedContinuation<Void, Never>] = []
  /// The callers of `write` waiting for their answer, by key.
  private var callers: [String: CheckedContinuation<[UInt8], any Error>] = [:]
  /// Events received and not yet taken by the app, in sequence order.
  private var buffered: [Event] = []
  /// The highest sequence received (buffered or delivered): the stream resumes after it.
  private var lastReceived: UInt64
  /// The app's `events` iterator waiting for the next event.
  private var eventWaiter: CheckedContinuation<Event?, Never>?
  /// Answers no caller waited for, not yet taken from `outcomes`.
  private var unclaimed: [WriteOutcome] = []
  /// The app's `outcomes` iterator waiting for the next one.
  private var outcomeWaiter: CheckedContinuation<WriteOutcome?, Never>?

  /// Opens a session: reads the token store (a token past its end counts as none) and the queue
  /// file, then starts reaching the server when there is a token. Throws when a file cannot be
  /// read or created, or when another session has the same queue open.
  public init(configuration: SessionConfiguration) throws {
    self.configuration = configuration
    environment = configuration.environment
    rpc = Self.makeClient(configuration)
    queue = try WriteQueue(
      path: configuration.queuePath, limit: configuration.maximumQueuedWrites)
    var stored: StoredSession?
    do {
      stored = try configuration.tokenStore.load()
      if let token = stored, token.token != nil,
        token.expiresAtUnixMs <= configuration.environment.nowUnixMs()
      {
        stored?.token = nil
        try configuration.tokenStore.save(stored)
      }
    } catch {
      queue.close()
      throw error
    }
    self.stored = stored
    lastReceived = stored?.lastEventSequence ?? 0
    connection = stored?.token == nil ? .signedOut : .connecting
    broadcast = StatusBroadcast(
      SessionStatus(
        connection: connection, pendingWrites: queue.writes.count, userID: stored?.userID))
    let started = [
      Task { await self.runConnection() },
      Task { await self.runWrites() },
      Task { await self.runEvents() },
      Task { await self.runHeartbeat() },
    ]
    loops.withLock { $0 = started }
  }

  // MARK: What the app sees

  /// The session's status now.
  public nonisolated var status: SessionStatus { broadcast.current }

  /// The status now, then every change, until the session closes.
  public nonisolated func statusUpdates() -> AsyncStream<SessionStatus> { broadcast.stream() }

  /// The player's events, each once and in sequence order, across reconnects and app restarts
  /// (the sequence of each event returned is stored as delivered). One consumer at a time; the
  /// sequence ends when the session closes.
  public nonisolated var events: SessionEvents { SessionEvents(session: self) }

  /// The answers to queued writes that no caller was waiting for: writes replayed from the
  /// queue file after an app restart, and writes whose caller's task was cancelled. They wait
  /// in the session until taken; one consumer at a time (a cancelled iteration loses nothing);
  /// the sequence ends when the session closes.
  public nonisolated var outcomes: SessionOutcomes { SessionOutcomes(session: self) }

  /// The writes waiting for a definite answer, first to be sent first.
  public func queuedWrites() -> [QueuedWrite] { queue.writes }

  // MARK: Accounts

  /// Creates an account (`Accounts/Register`), sent once and not queued: when its answer is
  /// lost, log in with the same phone and password to find out whether it was made.
  public func register(_ request: RegisterRequest) async throws -> RegisterResponse {
    guard !closed else { throw ClientError.closed }
    return try await rpc.accounts.register(
      request, options: CallOptions(timeout: configuration.callTimeout))
  }

  /// Logs in (`Accounts/Login`) and stores the token, so that a restarted app continues
  /// without the password. Queued writes are then sent under the new token. When another
  /// player than the last one logs in, the queued writes of the last one are dropped (their
  /// outcome is `RPCError.clientAccountChanged`) and the event cursor starts again.
  @discardableResult
  public func login(phone: String, password: String) async throws -> LoginResponse {
    guard !closed else { throw ClientError.closed }
    let response = try await rpc.accounts.login(
      LoginRequest(phone: phone, password: password),
      options: CallOptions(timeout: configuration.callTimeout))
    guard !closed else { throw ClientError.closed }
    var next = StoredSession(
      token: response.token, userID: response.userID,
      expiresAtUnixMs: response.expiresAtUnixMs, lastEventSequence: 0)
    if let previous = stored, previous.userID == response.userID {
      next.lastEventSequence = previous.lastEventSequence
    } else if stored != nil {
      lastReceived = 0
      buffered = []
      for write in queue.writes { finish(write, with: .failure(.clientAccountChanged)) }
    }
    stored = next
    failures = 0
    epoch += 1
    connection = .connected
    changed()
    try configuration.tokenStore.save(next)
    return response
  }

  /// Ends the session on the server (`Accounts/Logout`, best effort) and signs out here. The
  /// queue is kept: its writes are sent after the next login of the same player.
  public func logout() async {
    guard let token = stored?.token else { return }
    _ = try? await rpc.accounts.logout(
      options: CallOptions(timeout: configuration.callTimeout, bearerToken: token))
    signOut(token: token)
  }

  // MARK: Calls

  /// Sends a write (a method whose `takesIdempotencyKey` is true) through the queue and returns
  /// the server's answer. The write is stored in the queue file before anything is sent, gets a
  /// new key, and is sent after every write queued before it, again with that key until the
  /// answer is definite (see `WriteVerdict`); a definite error is thrown. Throws
  /// `ClientError.queueFull` when the queue is full and `ClientError.notAWrite` for a method
  /// that takes no key. When the caller's task is cancelled, or the session closes, the write
  /// stays queued and its answer goes to `outcomes` (of the next session, after a close).
  public func write<Request: ProtobufMessage, Response: ProtobufMessage>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request
  ) async throws -> Response {
    let write = try queuedWrite(method, request)
    let key = write.key
    let bytes = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        do {
          try self.add(write)
          self.callers[key] = continuation
        } catch {
          continuation.resume(throwing: error)
        }
      }
    } onCancel: {
      Task { await self.abandon(key: key) }
    }
    do {
      return try Response(serializedBytes: bytes)
    } catch {
      throw RPCError.responseMalformed(Response.fullName)
    }
  }

  /// Queues a write as `write` does and returns its key at once; its answer arrives on
  /// `outcomes`.
  @discardableResult
  public func enqueue<Request: ProtobufMessage, Response: ProtobufMessage>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request
  ) throws -> String {
    let write = try queuedWrite(method, request)
    try add(write)
    return write.key
  }

  /// Calls a method that is not a write straight away, with the session's token when the method
  /// needs one (a write goes through `write`). An idempotent method is tried again, at most 3
  /// times with backoff, on UNAVAILABLE; UNAUTHENTICATED signs the session out. Throws
  /// `ClientError.signedOut` when the method needs a session and there is none.
  public func call<Request: ProtobufMessage, Response: ProtobufMessage>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request
  ) async throws -> Response {
    if method.takesIdempotencyKey { return try await write(method, request) }
    guard !closed else { throw ClientError.closed }
    var options = CallOptions(timeout: configuration.callTimeout)
    if method.requiresAuthentication {
      guard let token = stored?.token else { throw ClientError.signedOut }
      options.bearerToken = token
    }
    var retries = 0
    while true {
      let epoch = self.epoch
      let client = rpc
      do {
        return try await client.unary(method, request, options: options)
      } catch let error as RPCError {
        if error.code == .unauthenticated, let token = options.bearerToken {
          signOut(token: token)
          throw error
        }
        if error.code == .deadlineExceeded { replaceClient(client) }
        if error.code == .unavailable || error.code == .deadlineExceeded {
          connectionLost(epoch: epoch)
        }
        guard RPCClient.mayRetry(error, idempotent: method.idempotent), retries < 3, !closed
        else { throw error }
        let pause = configuration.backoff.delay(
          afterFailures: retries, random: environment.random())
        retries += 1
        try await environment.sleep(max(pause, error.retryAfter ?? .zero))
      }
    }
  }

  /// Closes the session: stops its loops and its connection. Callers still waiting in `write`
  /// get `ClientError.closed`; their writes stay in the queue file for the next session.
  public func close() async {
    guard !closed else { return }
    closed = true
    let started = loops.withLock { $0 }
    for loop in started { loop.cancel() }
    changed()
    for caller in callers.values { caller.resume(throwing: ClientError.closed) }
    callers = [:]
    eventWaiter?.resume(returning: nil)
    eventWaiter = nil
    outcomeWaiter?.resume(returning: nil)
    outcomeWaiter = nil
    await rpc.close()
    for loop in started { await loop.value }
    queue.close()
    broadcast.finish()
  }

  // MARK: The queue

  private func queuedWrite<Request: ProtobufMessage, Response>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request
  ) throws -> QueuedWrite {
    guard method.takesIdempotencyKey else { throw ClientError.notAWrite(method.path) }
    let bytes = request.serializedBytes()
    // The server would refuse it unread, every time.
    guard bytes.count <= method.maximumRequestBytes else {
      throw RPCError.requestOverMethodLimit(limit: method.maximumRequestBytes)
    }
    return QueuedWrite(key: environment.makeKey(), methodPath: method.path, request: bytes)
  }

  private func add(_ write: QueuedWrite) throws {
    guard !closed else { throw ClientError.closed }
    try queue.append(write)
    changed()
  }

  /// The caller of `key` stopped waiting: its answer will go to `outcomes`.
  private func abandon(key: String) {
    callers.removeValue(forKey: key)?.resume(throwing: CancellationError())
  }

  /// Takes `write` out of the queue with its definite answer and hands that to its caller, or
  /// to `outcomes` when none waits.
  private func finish(_ write: QueuedWrite, with result: Result<[UInt8], RPCError>) {
    try? queue.remove(key: write.key)
    if let caller = callers.removeValue(forKey: write.key) {
      caller.resume(with: result.mapError { $0 as any Error })
    } else {
      let outcome = WriteOutcome(methodPath: write.methodPath, key: write.key, result: result)
      if let waiter = outcomeWaiter {
        outcomeWaiter = nil
        waiter.resume(returning: outcome)
      } else {
        unclaimed.append(outcome)
      }
    }
    changed()
  }

  /// The next unclaimed outcome for the app's iterator; nil once closed.
  func nextOutcome() async -> WriteOutcome? {
    if !unclaimed.isEmpty { return unclaimed.removeFirst() }
    guard !closed else { return nil }
    outcomeWaiter?.resume(returning: nil)
    outcomeWaiter = nil
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        self.outcomeWaiter = continuation
      }
    } onCancel: {
      Task { await self.stopWaitingForOutcome() }
    }
  }

  private func stopWaitingForOutcome() {
    outcomeWaiter?.resume(returning: nil)
    outcomeWaiter = nil
  }

  // MARK: The loops

  private static func makeClient(_ configuration: SessionConfiguration) -> RPCClient {
    RPCClient(
      host: configuration.host, port: configuration.port,
      configuration: ClientConfiguration(
        connectTimeout: configuration.backoff.minimumConnectTimeout,
        // The session alone decides what is tried again.
        retry: .none, defaultLocale: configuration.locale, tls: configuration.tls))
  }

  /// A call on `client` got no answer in time: the next calls go to a new client, and the old
  /// one is closed, which ends what still waits on it (the event stream included).
  private func replaceClient(_ client: RPCClient) {
    guard client === rpc, !closed else { return }
    rpc = Self.makeClient(configuration)
    Task { await client.close() }
  }

  /// Reaches the server whenever signed in and not connected; backs off after each failure.
  private func runConnection() async {
    while !closed {
      guard let token = stored?.token else {
        setConnection(.signedOut)
        await waitForChange()
        continue
      }
      if connection == .connected {
        await waitForChange()
        continue
      }
      if let end = stored?.expiresAtUnixMs, end <= environment.nowUnixMs() {
        // Past its end by the app's clock: the server would refuse it.
        signOut(token: token)
        continue
      }
      setConnection(.connecting)
      let client = rpc
      let result = await Self.probe(client, token: token, timeout: configuration.callTimeout)
      guard !closed else { return }
      if case .failure(let error) = result, error.code == .deadlineExceeded {
        replaceClient(client)
      }
      guard stored?.token == token, connection != .connected else { continue }
      switch result {
      case .success:
        failures = 0
        epoch += 1
        setConnection(.connected)
      case .failure(let error) where error.code == .unauthenticated:
        signOut(token: token)
      case .failure(let error):
        setConnection(.offline)
        let pause = configuration.backoff.delay(
          afterFailures: failures, random: environment.random())
        failures += 1
        do {
          try await environment.sleep(max(pause, error.retryAfter ?? .zero))
        } catch {
          return
        }
      }
    }
  }

  /// Asks the server whether the session is valid: success when it answered anything but
  /// UNAUTHENTICATED or an error that means it was not reached.
  private static func probe(_ client: RPCClient, token: String, timeout: Duration) async -> Result<
    Void, RPCError
  > {
    do {
      _ = try await client.health.checkSession(
        options: CallOptions(timeout: timeout, bearerToken: token))
      return .success(())
    } catch let error as RPCError {
      switch error.code {
      case .unavailable, .deadlineExceeded, .cancelled, .unauthenticated:
        return .failure(error)
      case .resourceExhausted where error.retryAfter != nil:
        return .failure(error)
      default:
        return .success(())
      }
    } catch {
      return .failure(.connectionLost)
    }
  }

  /// Sends the queue's first write whenever connected, until its answer is definite.
  private func runWrites() async {
    // The head write's attempts in a row that got no definite answer: each retry waits the
    // backoff of that many failures (or the server's retry_after, if longer), so that a server
    // that answers but cannot serve (its database out of reach) is not sent the write again at
    // once, however quickly the connection comes back.
    var unanswered: (key: String, attempts: Int)?
    // The pause owed before the head write is sent again, once.
    var owed: (key: String, pause: Duration)?
    while !closed {
      guard let write = queue.writes.first, let token = stored?.token, connection == .connected
      else {
        await waitForChange()
        continue
      }
      if let pause = owed, pause.key == write.key {
        owed = nil
        do {
          try await environment.sleep(pause.pause)
        } catch {
          return
        }
        continue
      }
      let epoch = self.epoch
      let client = rpc
      let result = await Self.send(
        write, on: client, token: token, timeout: configuration.callTimeout)
      guard !closed else { return }
      // A login of another player may have dropped it meanwhile.
      guard queue.writes.first?.key == write.key else { continue }
      switch result {
      case .success(let bytes):
        finish(write, with: .success(bytes))
      case .failure(let error):
        switch WriteVerdict.of(error) {
        case .definite:
          finish(write, with: .failure(error))
        case .retryAfterReconnect:
          let attempts = unanswered?.key == write.key ? (unanswered?.attempts ?? 0) : 0
          unanswered = (write.key, attempts + 1)
          owed = (
            write.key,
            max(
              configuration.backoff.delay(afterFailures: attempts, random: environment.random()),
              error.retryAfter ?? .zero)
          )
          if error.code == .deadlineExceeded { replaceClient(client) }
          connectionLost(epoch: epoch)
        case .retryAfter(let wait):
          do {
            try await environment.sleep(wait)
          } catch {
            return
          }
        case .signIn:
          signOut(token: token)
        }
      }
    }
  }

  private static func send(
    _ write: QueuedWrite, on client: RPCClient, token: String, timeout: Duration
  ) async -> Result<[UInt8], RPCError> {
    do {
      return .success(
        try await client.unary(
          path: write.methodPath, payload: write.request, idempotent: true,
          options: CallOptions(timeout: timeout, bearerToken: token, idempotencyKey: write.key)))
    } catch let error as RPCError {
      return .failure(error)
    } catch {
      return .failure(.connectionLost)
    }
  }

  /// Follows `Events/Subscribe` while connected, from the last sequence received, again after
  /// every loss and after SUBSCRIBER_TOO_SLOW.
  private func runEvents() async {
    guard configuration.subscribesToEvents else { return }
    var refusals = 0
    while !closed {
      guard let token = stored?.token, connection == .connected,
        buffered.count < configuration.maximumBufferedEvents
      else {
        await waitForChange()
        continue
      }
      let epoch = self.epoch
      do {
        let stream = try await rpc.events.subscribe(
          SubscribeRequest(afterSequence: lastReceived),
          options: CallOptions(bearerToken: token))
        // Left on purpose: the token changed, or the buffer is full (the stream is dropped
        // rather than left unread, and followed again from `lastReceived` once the app has
        // taken some).
        var leftOnPurpose = false
        var first = true
        for try await event in stream {
          guard !closed else { return }
          guard stored?.token == token else {
            leftOnPurpose = true
            break
          }
          refusals = 0
          // Within one stream sequences rise by one; only its first event may skip (events
          // removed after 30 days). A skip later means something was lost on the way:
          // follow the stream again from the last event received.
          if !first, event.sequence > lastReceived + 1 {
            connectionLost(epoch: epoch)
            leftOnPurpose = true
            break
          }
          first = false
          receive(event)
          if buffered.count >= configuration.maximumBufferedEvents {
            leftOnPurpose = true
            break
          }
        }
        if !leftOnPurpose { connectionLost(epoch: epoch) }
      } catch let error as RPCError {
        guard !closed else { return }
        switch error.code {
        case .unauthenticated:
          signOut(token: token)
        case .resourceExhausted where error.reason == "SUBSCRIBER_TOO_SLOW":
          continue
        case .unavailable, .deadlineExceeded, .cancelled:
          connectionLost(epoch: epoch)
        default:
          // Refused for a while (a suspension, load): try again after a backoff.
          let pause = configuration.backoff.delay(
            afterFailures: refusals, random: environment.random())
          refusals += 1
          do {
            try await environment.sleep(max(pause, error.retryAfter ?? .zero))
          } catch {
            return
          }
        }
      } catch {
        guard !closed else { return }
        connectionLost(epoch: epoch)
      }
    }
  }

  /// While connected, asks the server every `heartbeatInterval` whether the session is still
  /// valid, so that a connection that went silent, or a session ended elsewhere, is noticed
  /// without a call of the app's.
  private func runHeartbeat() async {
    guard let interval = configuration.heartbeatInterval else { return }
    while !closed {
      do {
        try await environment.sleep(interval)
      } catch {
        return
      }
      guard !closed, connection == .connected, let token = stored?.token else { continue }
      let epoch = self.epoch
      let client = rpc
      let result = await Self.probe(client, token: token, timeout: configuration.callTimeout)
      guard !closed, case .failure(let error) = result else { continue }
      if error.code == .unauthenticated {
        signOut(token: token)
      } else {
        if error.code == .deadlineExceeded { replaceClient(client) }
        connectionLost(epoch: epoch)
      }
    }
  }

  /// Takes an event from the stream: dropped when its sequence was received already.
  private func receive(_ event: Event) {
    guard event.sequence > lastReceived else { return }
    lastReceived = event.sequence
    if let waiter = eventWaiter {
      eventWaiter = nil
      delivered(event)
      waiter.resume(returning: event)
    } else {
      buffered.append(event)
    }
  }

  /// The next event for the app's iterator, recorded as delivered; nil once closed.
  func nextEvent() async -> Event? {
    guard !closed else { return nil }
    if !buffered.isEmpty {
      let event = buffered.removeFirst()
      delivered(event)
      changed()
      return event
    }
    // One consumer at a time: an earlier waiter ends.
    eventWaiter?.resume(returning: nil)
    eventWaiter = nil
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        self.eventWaiter = continuation
      }
    } onCancel: {
      Task { await self.stopWaitingForEvent() }
    }
  }

  private func stopWaitingForEvent() {
    eventWaiter?.resume(returning: nil)
    eventWaiter = nil
  }

  /// Stores `event`'s sequence as the cursor an app restart resumes after.
  private func delivered(_ event: Event) {
    guard var next = stored, event.sequence > next.lastEventSequence else { return }
    next.lastEventSequence = event.sequence
    stored = next
    try? configuration.tokenStore.save(next)
  }

  // MARK: State

  /// The connection of `epoch` failed: reach the server again, unless that happened already.
  private func connectionLost(epoch: Int) {
    guard epoch == self.epoch, connection == .connected else { return }
    setConnection(.offline)
  }

  /// The server ended the session of `token`: keep the player and the cursor, drop the token.
  private func signOut(token: String) {
    guard var next = stored, next.token == token else { return }
    next.token = nil
    stored = next
    try? configuration.tokenStore.save(next)
    setConnection(.signedOut)
  }

  private func setConnection(_ state: ConnectionState) {
    guard connection != state else { return }
    connection = state
    changed()
  }

  /// Wakes every loop to look at the state again, and publishes the status.
  private func changed() {
    broadcast.publish(
      SessionStatus(
        connection: connection, pendingWrites: queue.writes.count, userID: stored?.userID))
    let woken = waiters
    waiters = []
    for waiter in woken { waiter.resume() }
  }

  private func waitForChange() async {
    guard !closed else { return }
    await withCheckedContinuation { continuation in
      self.waiters.append(continuation)
    }
  }
}

/// The player's events, as `BadmintonSession.events` delivers them.
public struct SessionEvents: AsyncSequence, Sendable {
  public typealias Element = Event
  let session: BadmintonSession

  /// Takes events from the session one at a time.
  public struct AsyncIterator: AsyncIteratorProtocol {
    let session: BadmintonSession

    public mutating func next() async -> Event? {
      await session.nextEvent()
    }
  }

  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(session: session)
  }
}

/// The answers no caller waited for, as `BadmintonSession.outcomes` delivers them.
public struct SessionOutcomes: AsyncSequence, Sendable {
  public typealias Element = WriteOutcome
  let session: BadmintonSession

  /// Takes outcomes from the session one at a time.
  public struct AsyncIterator: AsyncIteratorProtocol {
    let session: BadmintonSession

    public mutating func next() async -> WriteOutcome? {
      await session.nextOutcome()
    }
  }

  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(session: session)
  }
}
