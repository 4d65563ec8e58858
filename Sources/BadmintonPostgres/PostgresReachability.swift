import BadmintonDomain
import Foundation
public import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Why a database named by URL cannot be served from, in words an operator can act on.
public struct DatabaseUnreachable: Error, CustomStringConvertible {
  /// The problem: the URL's form, the server that cannot be reached, or what the server said
  /// (an unknown database, a refused login). Never holds the URL's password.
  public var description: String
}

extension PostgresStore {
  /// Connects once to the database at `url`, without a pool, and disconnects: throws
  /// `DatabaseUnreachable` naming the problem when the URL is not a PostgreSQL URL, the server
  /// cannot be reached within `timeout`, or it refuses the login or the database. A pool retries
  /// a failing connection until it gives up without saying why; this says why, at once.
  public static func checkReachable(
    url: String, timeout: Duration = .seconds(10),
    logger: Logger = Logger(label: "badminton.postgres")
  ) async throws {
    let client: PostgresClient.Configuration
    do {
      client = try clientConfiguration(url: url)
    } catch {
      throw DatabaseUnreachable(description: notAURL)
    }
    let (configuration, place) = connectionConfiguration(client, connectTimeout: timeout)
    do {
      let connection = try await PostgresConnection.connect(
        configuration: configuration, id: 0, logger: logger)
      try await connection.close()
    } catch let error as PSQLError {
      throw DatabaseUnreachable(description: Self.problem(error, place: place))
    } catch {
      throw DatabaseUnreachable(description: "cannot connect to \(place): \(error)")
    }
  }

  /// A single connection's configuration for the database `client` names, with `connectTimeout`;
  /// and the place it names, for messages.
  static func connectionConfiguration(
    _ client: PostgresClient.Configuration, connectTimeout: Duration
  ) -> (PostgresConnection.Configuration, place: String) {
    var configuration: PostgresConnection.Configuration
    let place: String
    if let socket = client.unixSocketPath {
      configuration = PostgresConnection.Configuration(
        unixSocketPath: socket, username: client.username, password: client.password,
        database: client.database)
      place = "the socket \(socket)"
    } else {
      let host = client.host ?? "localhost"
      let port = client.port ?? 5432
      configuration = PostgresConnection.Configuration(
        host: host, port: port, username: client.username, password: client.password,
        database: client.database, tls: .disable)
      place = "\(host):\(port)"
    }
    configuration.options.connectTimeout = TimeAmount.nanoseconds(
      connectTimeout.components.seconds * 1_000_000_000
        + connectTimeout.components.attoseconds / 1_000_000_000)
    configuration.options.additionalStartupParameters = client.options.additionalStartupParameters
    return (configuration, place)
  }

  static let notAURL =
    "not a PostgreSQL URL (postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?host=/socket/folder])"

  /// What `error`, thrown by `checkReachable` or `open`, says in words, never with the URL's
  /// password (PostgresNIO's own errors describe themselves as a generic text on purpose).
  public static func describe(openError error: any Error) -> String {
    switch error {
    case let error as DatabaseUnreachable: error.description
    case OpenError.badURL: notAURL
    case let error as PSQLError: problem(error, place: "the database")
    default: "\(error)"
    }
  }

  /// What `error` says in words: the server's own message when it sent one, else the failure
  /// to connect to `place`.
  static func problem(_ error: PSQLError, place: String) -> String {
    if let message = error.serverInfo?[.message] {
      return message
    }
    if let underlying = error.underlying {
      return "cannot connect to \(place): \(underlying)"
    }
    return "cannot connect to \(place): \(error.code)"
  }
}

/// The store's pool of connections, and whether the database can be reached.
///
/// While the change tail cannot reach the database, the pool is closed: writes and reads waiting
/// for one of its connections, and every later one, fail at once with `DATABASE_UNAVAILABLE`
/// instead of waiting for a database that may be away for minutes. Once the tail reaches the
/// database again, a new pool takes their place: postgres-nio's pool waits longer and longer
/// between attempts while the database is away (up to a minute), and a fresh one connects at
/// once.
final class DatabasePool: Sendable {
  /// The pool's states.
  private enum State {
    /// Serving from `client`. Becomes `unreachable` when the tail cannot reach the database,
    /// `closed` on `close()`.
    case reachable(client: PostgresClient, running: Task<Void, Never>)
    /// The database cannot be reached; no pool. Becomes `reachable` (with a new pool) when the
    /// tail reaches it again, `closed` on `close()`.
    case unreachable
    /// Closed for good.
    case closed
  }

  private let configuration: PostgresClient.Configuration
  private let logger: Logger
  private let state: Mutex<State>
  /// Connections the pool keeps at most.
  var maximumConnections: Int { configuration.options.maximumConnections }
  /// The tasks running closed pools, awaited by `close()`.
  private let retired = Mutex<[Task<Void, Never>]>([])
  /// Told the time of each write transaction's `COMMIT` (`PostgresStore.observeCommitDurations`).
  let commitObserver = Mutex<(@Sendable (Duration) -> Void)?>(nil)

  /// A pool for the database `configuration` names, running at once.
  init(configuration: PostgresClient.Configuration, logger: Logger) {
    self.configuration = configuration
    self.logger = logger
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    state = Mutex(.reachable(client: client, running: Task { await client.run() }))
  }

  /// The configuration of the pool's connections.
  var clientConfiguration: PostgresClient.Configuration { configuration }

  /// Whether the database was reachable the last time the tail tried.
  var isReachable: Bool {
    state.withLock { if case .reachable = $0 { true } else { false } }
  }

  /// Runs `body` on a pooled connection; throws `DATABASE_UNAVAILABLE` at once while the database
  /// cannot be reached.
  func withConnection<T: Sendable>(
    _ body: (PostgresConnection) async throws -> T
  ) async throws -> T {
    let client = state.withLock { state -> PostgresClient? in
      if case .reachable(let client, _) = state { return client }
      return nil
    }
    guard let client else { throw DomainError.databaseUnavailable }
    return try await client.withConnection { connection in try await body(connection) }
  }

  /// The tail could not reach the database: the pool closes, failing every caller waiting for one
  /// of its connections.
  func markUnreachable() {
    let running = state.withLock { state -> Task<Void, Never>? in
      guard case .reachable(_, let running) = state else { return nil }
      state = .unreachable
      return running
    }
    guard let running else { return }
    logger.warning("the database cannot be reached; refusing calls until it can")
    retire(running)
  }

  /// The tail reached the database again: a new pool serves.
  func markReachable() {
    let started = state.withLock { state -> Bool in
      guard case .unreachable = state else { return false }
      let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
      state = .reachable(client: client, running: Task { await client.run() })
      return true
    }
    if started { logger.notice("the database can be reached again; serving") }
  }

  /// Closes the pool for good and waits until every connection is closed.
  func close() async {
    let running = state.withLock { state -> Task<Void, Never>? in
      defer { state = .closed }
      if case .reachable(_, let running) = state { return running }
      return nil
    }
    if let running { retire(running) }
    for task in retired.withLock({ $0 }) { _ = await task.value }
  }

  /// Cancels `running`, which closes its pool (postgres-nio's forced shutdown: waiting callers
  /// fail, connections close).
  private func retire(_ running: Task<Void, Never>) {
    running.cancel()
    retired.withLock { $0.append(running) }
  }
}

extension DomainError {
  /// The database cannot be reached, or was lost during the call: the call may or may not have
  /// taken effect (a write whose commit was cut off may have committed, and is then served once
  /// the instance catches up), and making it again later is safe where the method is idempotent.
  static let databaseUnavailable = DomainError(
    .unavailable, "DATABASE_UNAVAILABLE",
    en: "The service cannot reach its database right now; try again shortly.",
    zhCN: "服务暂时无法连接数据库，请稍后再试。",
    retryAfterMs: databaseRetryAfterMs)

  /// The retry hint of `DATABASE_UNAVAILABLE`: 1 s.
  static let databaseRetryAfterMs: Int64 = 1000
}

/// Whether `error` means the database cannot be reached or the connection to it was lost: a
/// connection closed or broken, PostgreSQL ending the session for its own shutdown or restart
/// (SQLSTATE class 08, 57P01, 57P02, 57P03), or a pool that cannot connect.
func isDatabaseUnavailable(_ error: any Error) -> Bool {
  if let error = error as? DomainError {
    return error.reason == DomainError.databaseUnavailable.reason
  }
  if error is ClosingConnections.Closed { return true }
  if let error = error as? PSQLError {
    switch error.code {
    case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown,
      .poolClosed:
      return true
    case .server:
      guard let state = error.serverInfo?[.sqlState] else { return false }
      return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
    default:
      return false
    }
  }
  // postgres-nio's pool refuses with its own error type (a tripped circuit breaker: it has failed
  // to connect for a minute), from a module this one does not import.
  if String(describing: type(of: error)) == "ConnectionPoolError" { return true }
  return error is IOError || error is ChannelError
}
