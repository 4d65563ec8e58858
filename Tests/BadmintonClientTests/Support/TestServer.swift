import BadmintonAPI
import BadmintonClient
import BadmintonRPC
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import ChaosSupport
import Foundation
import Logging
import NIOCore
import Synchronization
import Testing

/// A real server in this process, with the player services on an SQLite store in memory, on a
/// port that stays the same when the test stops and starts it again (the store and the
/// services outlive each stop, as a restarted server's database does).
final class TestServer: Sendable {
  let services: PlayerServices
  let port: Int
  /// A client for the test's own calls (registering players, sending them messages).
  let client: RPCClient
  private let serving: Mutex<Task<Void, any Error>?>

  private static let phones = Atomic<Int>(0)

  private init(services: PlayerServices, port: Int, serving: Task<Void, any Error>) {
    self.services = services
    self.port = port
    self.serving = Mutex(serving)
    client = RPCClient(
      host: "127.0.0.1", port: port, configuration: ClientConfiguration(retry: .none))
  }

  /// A server listening on a free port.
  static func start(maximumBufferedEvents: Int = 256) async throws -> TestServer {
    let store = try SQLitePlayerStore.inMemory()
    let services = try await PlayerServices.start(
      store: store,
      configuration: PlayerServicesConfiguration(
        passwordCost: .testing, maximumBufferedEvents: maximumBufferedEvents,
        loginPolicyPerPhone: .unlimited, loginPolicyPerAddress: .unlimited,
        registrationsPerAddressPerHour: 0, uploadsPerAddressPerHour: 0))
    // Below the ephemeral range, where the other tests' port 0 never lands: the port is still
    // free when a test starts the server again on it. One taken by another process is drawn
    // again.
    var attempts = 0
    while true {
      do {
        let (task, port) = try await serve(
          services, port: ChaosProxy.portOutsideEphemeralRange())
        return TestServer(services: services, port: port, serving: task)
      } catch  where attempts < 20 {
        attempts += 1
      }
    }
  }

  private static func serve(_ services: PlayerServices, port: Int) async throws -> (
    Task<Void, any Error>, Int
  ) {
    var logger = Logger(label: "test.client.server")
    logger.logLevel = .critical
    let server = RPCServer(
      configuration: ServerConfiguration(port: port), services: services.services,
      authenticator: services.authenticator, logger: logger)
    let task = Task { try await server.run() }
    let bound = try await server.localAddress().port!
    return (task, bound)
  }

  /// Closes the listener and every connection at once, as a crash would.
  func stop() async {
    let task = serving.withLock { task in
      defer { task = nil }
      return task
    }
    task?.cancel()
    _ = await task?.result
  }

  /// Serves again on the same port.
  func restart() async throws {
    await stop()
    var attempts = 0
    while true {
      do {
        let (task, _) = try await Self.serve(services, port: port)
        serving.withLock { $0 = task }
        break
      } catch  where attempts < 100 {
        // The port the listener just closed may take a moment to be free again.
        attempts += 1
        try await Task.sleep(for: .milliseconds(20))
      }
    }
    // The test's own client may not have seen its connection to the stopped server close yet:
    // a Health/Check moves it to the new one before the test's next call, which may be a write
    // it must not retry. A check the client wrote to the old connection before it saw the close
    // is lost with it (the client has no retry policy): the check is made again until one is
    // answered.
    var lost = 0
    while true {
      do {
        _ = try await client.health.check()
        break
      } catch let error as RPCError where error.reason == "CONNECTION_LOST" && lost < 10 {
        lost += 1
      }
    }
  }

  /// Stops the server and the test's client.
  func shutdown() async {
    await client.close()
    await stop()
  }

  /// A registered player.
  struct Player {
    let id: Int64
    let phone: String
    let password: String
    let token: String

    var options: CallOptions { CallOptions(bearerToken: token) }
  }

  /// Registers a player and logs it in through the test's client.
  func player(nickname: String = "Player") async throws -> Player {
    let number = Self.phones.wrappingAdd(1, ordering: .relaxed).oldValue
    let phone = "+86137" + String(format: "%08d", number)
    let password = "correct horse"
    let registered = try await client.accounts.register(
      RegisterRequest(phone: phone, nickname: nickname, password: password, selfLevel: 4))
    let login = try await client.accounts.login(LoginRequest(phone: phone, password: password))
    return Player(id: registered.userID, phone: phone, password: password, token: login.token)
  }

  /// The stored session of `player`, as a token store would hold it after a login.
  func storedSession(of player: Player) -> StoredSession {
    StoredSession(
      token: player.token, userID: player.id, expiresAtUnixMs: Int64.max, lastEventSequence: 0)
  }

  /// The texts of the messages between `player` and `other`, oldest first.
  func messageTexts(of player: Player, with other: Player) async throws -> [String] {
    let threads = try await client.messages.listThreads(
      ListThreadsRequest(), options: player.options)
    guard let thread = threads.threads.first(where: { $0.other.userID == other.id })
    else { return [] }
    let page = try await client.messages.loadMessages(
      LoadMessagesRequest(threadID: thread.id), options: player.options)
    return page.messages.reversed().map(\.text)
  }
}

/// A folder of its own under the temporary folder, removed by `remove()`.
struct TemporaryFolder {
  let path: String

  init() {
    path = NSTemporaryDirectory() + "badminton-client-" + UUID().uuidString
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// Records every pause a session asks for and sleeps `real` instead, so that a test never waits
/// out a backoff; a pause of nil real time parks the session until it is cancelled.
final class RecordingSleeper: Sendable {
  private let recorded = Mutex<[Duration]>([])
  private let real: Duration?

  init(real: Duration? = .milliseconds(2)) {
    self.real = real
  }

  var pauses: [Duration] { recorded.withLock { $0 } }

  @Sendable func sleep(_ pause: Duration) async throws {
    recorded.withLock { $0.append(pause) }
    if let real {
      try await Task.sleep(for: real)
    } else {
      while true { try await Task.sleep(for: .seconds(3600)) }
    }
  }
}

/// A configuration for a session of `server`'s port with its files in `folder`.
func configuration(
  port: Int, folder: TemporaryFolder, sleeper: RecordingSleeper = RecordingSleeper(),
  random: @escaping @Sendable () -> Double = { 1 }
) -> SessionConfiguration {
  var configuration = SessionConfiguration(host: "127.0.0.1", port: port, directory: folder.path)
  configuration.callTimeout = .seconds(20)
  // The heartbeat's pauses would mix with the backoff's; it has a test of its own.
  configuration.heartbeatInterval = nil
  configuration.environment = SessionEnvironment(sleep: sleeper.sleep, random: random)
  return configuration
}

/// Waits until `session`'s status satisfies `condition`, failing after a generous limit that
/// only a broken session reaches.
func waitForStatus(
  _ session: BadmintonSession, sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: @escaping @Sendable (SessionStatus) -> Bool
) async throws {
  let reached = try await withLimit {
    for await status in session.statusUpdates() where condition(status) { return true }
    return false
  }
  #expect(reached == true, "status now: \(session.status)", sourceLocation: sourceLocation)
}

/// The value `body` returns, or nil after 30 seconds, a limit no passing test comes near.
func withLimit<T: Sendable>(
  _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: .seconds(30))
      return nil
    }
    let first = try await group.next()!
    group.cancelAll()
    return first
  }
}

/// The next `count` outcomes of `session`.
func outcomes(_ session: BadmintonSession, count: Int) async throws -> [WriteOutcome] {
  try await withLimit {
    var collected: [WriteOutcome] = []
    for await outcome in session.outcomes {
      collected.append(outcome)
      if collected.count == count { break }
    }
    return collected
  } ?? []
}

/// The next `count` events of `session`.
func events(_ session: BadmintonSession, count: Int) async throws -> [Event] {
  try await withLimit {
    var collected: [Event] = []
    for await event in session.events {
      collected.append(event)
      if collected.count == count { break }
    }
    return collected
  } ?? []
}

/// The `RPCError` that `body` threw, or nil.
func rpcError(_ body: () async throws -> Void) async -> RPCError? {
  do {
    try await body()
    return nil
  } catch let error as RPCError {
    return error
  } catch {
    return RPCError(
      code: .unknown, reason: "NOT_AN_RPC_ERROR", message: .init(verbatim: "\(error)"))
  }
}
