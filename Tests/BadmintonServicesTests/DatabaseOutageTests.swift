import BadmintonAPI
import BadmintonRPC
import Foundation
import PostgresTestCluster
import Synchronization
import Testing

/// Two `badminton-server` processes on a PostgreSQL cluster of the test's own, under a write
/// load, while the database restarts at once (`pg_ctl restart -m immediate`) or stops for a
/// while and starts again.
///
/// What must hold whatever the timing: every acknowledged write is stored exactly once; every
/// call that failed failed with `UNAVAILABLE` / `DATABASE_UNAVAILABLE` and a retry hint (never
/// `INTERNAL`, never unanswered: each call carries a deadline, and one that expires fails the
/// test); both instances take writes again once the database is back, without being restarted;
/// and a subscriber that subscribes again from its last sequence has every event once, in order.
/// Waits are bounded only so that a broken build fails instead of hanging.
///
/// The stopped database stays down `BADMINTON_OUTAGE_SECONDS` seconds (default 7, longer than the
/// tail's longest wait between attempts to reconnect); `scripts/database-outage` runs it
/// with a full minute.
@Suite("Instances through a database restart or outage", .serialized)
struct DatabaseOutageTests {
  /// How the database goes away.
  enum Outage: CustomStringConvertible {
    /// `pg_ctl restart -m immediate`: back within a fraction of a second.
    case restart
    /// `pg_ctl stop -m immediate`, then `pg_ctl start` after `seconds`.
    case stop(seconds: Double)

    var description: String {
      switch self {
      case .restart: "an immediate restart"
      case .stop(let seconds): "a stop of \(seconds) s"
      }
    }
  }

  /// How long the stopped database stays down: `BADMINTON_OUTAGE_SECONDS`, else 7 s.
  static var outageSeconds: Double {
    ProcessInfo.processInfo.environment["BADMINTON_OUTAGE_SECONDS"].flatMap(Double.init) ?? 7
  }

  /// The deadline of every call: far longer than any answer takes, so an expiry means a call
  /// was left unanswered.
  static let callTimeout: Duration = .seconds(30)
  /// How long the test waits for what must happen before it gives up (never a pass condition).
  static let patience: Duration = .seconds(120)

  @Test(
    "an immediate restart under load: acknowledged writes stay, failures are DATABASE_UNAVAILABLE with a hint, both instances write again, a resubscriber gets every event once"
  )
  func immediateRestart_recovers() async throws {
    try await Self.run(.restart)
  }

  @Test(
    "a database stopped for a while and started again: the same, once it is back"
  )
  func stoppedDatabase_recovers() async throws {
    try await Self.run(.stop(seconds: Self.outageSeconds))
  }

  // MARK: The scenario

  /// A registered, logged-in player.
  struct Player {
    let id: Int64
    let token: String
    func options(timeout: Duration = DatabaseOutageTests.callTimeout) -> CallOptions {
      CallOptions(timeout: timeout, bearerToken: token)
    }
  }

  /// What the senders saw.
  struct Outcomes {
    /// Acknowledged sends: message id -> client message id.
    var acknowledged: [Int64: String] = [:]
    /// Every client message id sent.
    var sent: Set<String> = []
    /// Failed sends that did not fail as they should: what each one was.
    var wrongFailures: [String] = []
    /// Sends that failed as they should.
    var unavailable = 0
    /// Per instance, the first send started after the database was back that was acknowledged:
    /// how long after it was back it was answered.
    var recovered: [Int: Duration] = [:]
    /// When the database was back (`pg_ctl` returned); nil before.
    var backAt: ContinuousClock.Instant?
    /// Set to stop the senders.
    var done = false
  }

  /// The outcomes, shared by the senders and the test.
  final class Shared: Sendable {
    let state = Mutex(Outcomes())
  }

  static func run(_ outage: Outage) async throws {
    let cluster = try PostgresTestCluster.makePrivate()
    defer { cluster.remove() }
    let database = try cluster.makeDatabase()
    let servers = [
      try ServerProcess.start(["--database", database]),
      try ServerProcess.start(["--database", database]),
    ]
    defer { for server in servers { server.kill() } }
    let clients = servers.map {
      RPCClient(
        host: "127.0.0.1", port: $0.port, configuration: ClientConfiguration(retry: .none))
    }
    do {
      try await scenario(outage, cluster: cluster, clients: clients)
    } catch {
      for client in clients { await client.close() }
      throw error
    }
    for client in clients { await client.close() }
  }

  private static func scenario(
    _ outage: Outage, cluster: PostgresTestCluster.Cluster, clients: [RPCClient]
  ) async throws {
    let recipient = try await player("Rae", through: clients[1])
    var senders: [Player] = []
    for index in 0..<4 {
      senders.append(try await player("Sender \(index)", through: clients[index % 2]))
    }
    // A write through an instance returns once it has every change committed before: each
    // instance then knows every player and session.
    for index in 0..<2 {
      _ = try await clients[index].players.updateProfile(
        UpdateProfileRequest(nickname: "Sender \(index)"), options: senders[index].options())
    }

    // The recipient's events, from the first, on instance 1, until the load is over.
    let firstSubscription = Task { try await collectEvents(recipient, through: clients[0]) }

    let outcomes = Shared()
    let clock = ContinuousClock()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, sender) in senders.enumerated() {
        group.addTask {
          try await send(
            from: index, sender, to: recipient, through: clients, outcomes: outcomes, clock: clock)
        }
      }
      group.addTask {
        try await waitUntil("20 acknowledged sends before the outage") {
          outcomes.state.withLock { $0.acknowledged.count >= 20 }
        }
        try await makeOutage(outage, cluster)
        outcomes.state.withLock { $0.backAt = clock.now }
        try await waitUntil("both instances acknowledging sends made after the database was back") {
          outcomes.state.withLock { $0.recovered.count == 2 }
        }
        outcomes.state.withLock { $0.done = true }
      }
      try await group.waitForAll()
    }
    firstSubscription.cancel()
    let firstEvents = await firstSubscription.result
    let outcome = outcomes.state.withLock { $0 }
    print(
      "database outage (\(outage)): \(outcome.acknowledged.count) acknowledged, "
        + "\(outcome.unavailable) DATABASE_UNAVAILABLE; first acknowledged write after the "
        + "database was back: instance 1 after \(outcome.recovered[0].map { "\($0)" } ?? "-"), "
        + "instance 2 after \(outcome.recovered[1].map { "\($0)" } ?? "-")")

    #expect(outcome.wrongFailures.isEmpty, "\(outcome.wrongFailures)")
    #expect(outcome.recovered.count == 2)

    // Every acknowledged message is stored, each client message id at most once, read back
    // through both instances.
    for client in clients {
      let stored = try await allMessages(of: recipient, through: client)
      var byClientID: [String: Int] = [:]
      for message in stored { byClientID[message.clientMessageID, default: 0] += 1 }
      #expect(byClientID.values.allSatisfy { $0 == 1 }, "stored twice: \(byClientID)")
      #expect(Set(byClientID.keys).isSubset(of: outcome.sent))
      let storedIDs = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.clientMessageID) })
      for (id, clientID) in outcome.acknowledged {
        #expect(storedIDs[id] == clientID, "acknowledged \(clientID) (\(id)) is missing")
      }
    }
    let stored = try await allMessages(of: recipient, through: clients[0])

    // The first subscription's events, then a new subscription on instance 2 from its last
    // sequence: together every event once, in order, one for each stored message.
    let (first, firstError) = firstEvents.partialResult
    #expect(firstError == nil, "the first subscription failed: \(String(describing: firstError))")
    let last = first.last?.sequence ?? 0
    let rest = try await collectEvents(
      recipient, through: clients[1], after: last,
      until: { Int(last) + $0.count >= stored.count }
    )
    let events = first + rest.events
    #expect(events.map(\.sequence) == (0..<events.count).map { UInt64($0 + 1) })
    let received: [Int64] = events.compactMap {
      if case .messageReceived(let message)? = $0.body { message.id } else { nil }
    }
    #expect(received.count == Set(received).count)
    #expect(Set(received) == Set(stored.map(\.id)))
  }

  /// Sends messages from `sender` to `recipient`, through both instances in turn, until told to
  /// stop; notes each outcome.
  private static func send(
    from index: Int, _ sender: Player, to recipient: Player, through clients: [RPCClient],
    outcomes: Shared, clock: ContinuousClock
  ) async throws {
    var step = 0
    while !outcomes.state.withLock({ $0.done }) && !Task.isCancelled {
      step += 1
      guard step <= 5_000 else { throw Stuck(what: "sender \(index) sent 5,000 messages") }
      let via = (step + index) % 2
      let id = "sender-\(index)-\(step)"
      let started = clock.now
      outcomes.state.withLock { _ = $0.sent.insert(id) }
      do {
        let sent = try await clients[via].messages.sendMessage(
          .init(recipientID: recipient.id, clientMessageID: id, text: "message \(id)"),
          options: sender.options())
        outcomes.state.withLock {
          $0.acknowledged[sent.id] = id
          if let back = $0.backAt, started >= back, $0.recovered[via] == nil {
            $0.recovered[via] = clock.now - back
          }
        }
      } catch let error as RPCError
        where error.code == .unavailable && error.reason == "DATABASE_UNAVAILABLE"
        && error.retryAfter != nil
      {
        outcomes.state.withLock { $0.unavailable += 1 }
        // The hint, as a client should.
        try await Task.sleep(for: error.retryAfter!)
      } catch {
        outcomes.state.withLock { $0.wrongFailures.append("\(id) through \(via + 1): \(error)") }
      }
    }
  }

  /// Takes the database away as `outage` says, and returns once it is back.
  private static func makeOutage(_ outage: Outage, _ cluster: PostgresTestCluster.Cluster)
    async throws
  {
    switch outage {
    case .restart:
      try await blocking { try cluster.restart() }
    case .stop(let seconds):
      try await blocking { try cluster.stop() }
      try await Task.sleep(for: .seconds(seconds))
      try await blocking { try cluster.start() }
    }
  }

  /// The events of `player` after `after`, through `client`, until `until` holds for those read
  /// (or, without it, until the task is cancelled); subscribes again from the last one read when
  /// the stream fails with `UNAVAILABLE`.
  private static func collectEvents(
    _ player: Player, through client: RPCClient, after: UInt64 = 0,
    until: (@Sendable ([Event]) -> Bool)? = nil
  ) async throws -> (events: [Event], error: (any Error)?) {
    var events: [Event] = []
    let deadline = ContinuousClock.now + patience
    while !Task.isCancelled {
      if let until, until(events) { return (events, nil) }
      if ContinuousClock.now > deadline {
        throw Stuck(what: "events: \(events.count) read after \(after)")
      }
      do {
        let stream = try await client.events.subscribe(
          SubscribeRequest(afterSequence: events.last?.sequence ?? after),
          options: player.options(timeout: .seconds(600)))
        for try await event in stream {
          events.append(event)
          if let until, until(events) { return (events, nil) }
        }
      } catch let error as RPCError where error.code == .unavailable {
        try? await Task.sleep(for: error.retryAfter ?? .seconds(1))
      } catch let error as RPCError where error.code == .cancelled {
        break
      } catch is CancellationError {
        break
      } catch {
        return (events, error)
      }
    }
    return (events, nil)
  }

  /// Every message sent to `player`, read through `client`.
  private static func allMessages(of player: Player, through client: RPCClient) async throws
    -> [DirectMessage]
  {
    var messages: [DirectMessage] = []
    var after: Int64 = 0
    while true {
      let page = try await client.messages.syncMessages(
        .init(afterMessageID: after, limit: 500), options: player.options())
      messages += page.messages
      guard page.more else { return messages }
      after = page.nextAfterMessageID
    }
  }

  private static let phones = Atomic<Int>(0)

  /// Registers and logs in a player through `client`.
  private static func player(_ nickname: String, through client: RPCClient) async throws
    -> Player
  {
    let number = phones.add(1, ordering: .relaxed).newValue
    let phone = "+86139" + String(format: "%08d", number)
    let registered = try await client.accounts.register(
      RegisterRequest(phone: phone, nickname: nickname, password: "correct horse", selfLevel: 5))
    let login = try await client.accounts.login(
      LoginRequest(phone: phone, password: "correct horse"))
    return Player(id: registered.userID, token: login.token)
  }

  /// A wait that ran out: what was awaited.
  struct Stuck: Error, CustomStringConvertible {
    var what: String
    var description: String { "gave up waiting for \(what)" }
  }

  /// Returns once `condition` holds, looking every 50 ms; throws after `patience`.
  private static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + patience
    while !condition() {
      guard ContinuousClock.now < deadline else { throw Stuck(what: what) }
      try await Task.sleep(for: .milliseconds(50))
    }
  }

  /// Runs `body` (which blocks: it waits for a program) on a thread of its own, not one of the
  /// few the tasks share.
  private static func blocking(_ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      Thread.detachNewThread {
        continuation.resume(with: Result { try body() })
      }
    }
  }
}

extension Result where Success == (events: [Event], error: (any Error)?) {
  /// The events read, and the error that ended the reading, if any.
  fileprivate var partialResult: ([Event], (any Error)?) {
    switch self {
    case .success(let read): (read.events, read.error)
    case .failure(let error): ([], error)
    }
  }
}
