public import BadmintonStore
import BadmintonStoreSQL
import Foundation
public import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The store on PostgreSQL: the same interface as the embedded store, for several server
/// instances on one database.
///
/// - Writes run as `SERIALIZABLE` transactions on a bounded pool of connections; one that meets
///   a concurrent transaction (here or on another instance) is run again, so the database
///   decides every race, not a process's memory.
/// - Every committed change of the tables the in-memory state is made of is noted in the
///   database with its transaction's id (`PostgresSchema.changeCapture`). Each instance tails
///   those notes from its own cursor and hands each transaction's changes to `feed`, its own
///   writes and every other instance's alike (`ChangeTail`); a write returns only once the feed
///   has them, so its caller sees its change in every projection.
/// - Statements are prepared once per pooled connection.
public final class PostgresStore: Sendable {
  /// Every committed change, this instance's and the others', in commit order.
  public let feed = ChangeFeed()
  let database: SQLDatabase
  let tail: ChangeTail
  /// This instance's turns on the players' event queues.
  let turns = KeyedTurns()
  /// This instance's writes, committed together.
  let batches: WriteBatches
  /// The threads the store's operations run on, each waiting for its statements' answers
  /// (`PostgresSession`): one per pooled connection and one per connection of the tail, so that
  /// every connection can be used at once.
  let threads: NIOThreadPool

  /// How to reach the database and how many connections to keep.
  public struct Configuration: Sendable {
    /// The database, as `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    public var url: String
    /// Connections in the pool at most, the tail's two among them.
    public var poolSize: Int

    /// The database at `url` with at most `poolSize` connections.
    public init(url: String, poolSize: Int = 16) {
      self.url = url
      self.poolSize = poolSize
    }
  }

  /// Why a store could not be opened.
  public enum OpenError: Error, CustomStringConvertible {
    /// The URL is not `postgresql://USER@HOST:PORT/DATABASE`.
    case badURL(String)
    /// The pool must hold the tail's connections and at least one for the services.
    case poolTooSmall(Int)

    public var description: String {
      switch self {
      case .badURL(let url):
        return "\(url) is not a PostgreSQL URL (postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE)"
      case .poolTooSmall(let size): return "a pool of \(size) is too small: it needs at least 3"
      }
    }
  }

  private init(
    database: SQLDatabase, cursor: UInt64, floor: UInt64, lanes: Int, logger: Logger
  ) {
    self.database = database
    // A thread for each pooled connection and for each of the tail's: the tail reads rows back
    // on this pool too, and must never wait behind the services' reads for a thread.
    threads = NIOThreadPool(
      numberOfThreads: database.pool.maximumConnections + ChangeTail.connections)
    threads.start()
    let tail = ChangeTail(
      database: database, threads: threads, feed: feed, cursor: cursor, floor: floor,
      logger: logger)
    self.tail = tail
    let turns = turns
    batches = WriteBatches(lanes: lanes) { batch in
      await PostgresStore.commit(batch, database: database, turns: turns, tail: tail)
    }
  }

  /// Batches of writes in flight at once: one. Two or more batches of one instance meet each
  /// other in PostgreSQL's serializable checks (their reads and inserts share index pages), and
  /// under load most of them are refused and split: with four, PostAvailability + Cancel fell
  /// from 2,055 to 537 acknowledged/s. One batch commits while the one before waits for the
  /// tail, so the lane is never idle while writes wait.
  static let writeLanes = 1

  enum LogEnd: SQLStatement {
    static let sql = """
      SELECT GREATEST((SELECT max(txid) FROM change_row),
        (SELECT max(through_txid) FROM change_log_pruned))::text
      """
  }

  /// How long PostgreSQL lets one of the store's connections sit idle inside a transaction before
  /// it ends the session. A store's transactions never wait on anything but the database.
  public static let idleTransactionTimeoutMs = 10_000

  /// Connects to the database, applies the migrations it lacks, and notes where the change log
  /// stands (every transaction older than the oldest one still writing has ended, and what it
  /// wrote is in the tables): the feed starts from that point once `startFeed()` is called (or the first write
  /// is made), so a projection built from the store after `open` misses nothing.
  public static func open(
    _ configuration: Configuration, logger: Logger = Logger(label: "badminton.postgres")
  ) async throws -> PostgresStore {
    guard configuration.poolSize >= 3 else { throw OpenError.poolTooSmall(configuration.poolSize) }
    var client = try clientConfiguration(url: configuration.url)
    // The tail's two connections are its own, outside the pool.
    client.options.maximumConnections = configuration.poolSize - ChangeTail.connections
    client.options.minimumConnections = 0
    // A transaction left open by an instance whose machine vanished would hold every instance's
    // change tail (and so every write) at its id until TCP noticed: the server ends it first.
    client.options.additionalStartupParameters = [
      ("idle_in_transaction_session_timeout", "\(idleTransactionTimeoutMs)")
    ]
    let pool = DatabasePool(configuration: client, logger: logger)
    let database = SQLDatabase(pool: pool, logger: logger)
    do {
      try await migrate(database)
      let cursor = try await database.read { db in
        try await ChangeTail.horizon(db)
      }
      // Read after the horizon: every transaction below it has ended, so its changes are
      // counted here, and the tail's floor is above them all.
      let last = try await database.read { db in
        try await db.row(LogEnd.self)?.decode(String?.self)
      }
      let floor = last.flatMap { UInt64($0) }.map { $0 + 1 } ?? 0
      return PostgresStore(
        database: database, cursor: cursor, floor: floor,
        lanes: writeLanes, logger: logger)
    } catch {
      await pool.close()
      throw error
    }
  }

  /// Starts handing committed changes to `feed`, from where the change log ended at `open`.
  /// Call it once the projections are built and subscribed.
  public func startFeed() {
    tail.start()
  }

  enum NewTransactionID: SQLStatement {
    static let sql = "SELECT pg_current_xact_id()::text"
  }

  /// Returns once every transaction committed before the call, on this instance or another,
  /// has been handed to `feed`. (A new transaction id is larger than that of every transaction
  /// already committed.)
  public func synchronize() async throws {
    let id = try await database.read { db in
      try await db.row(NewTransactionID.self)?.decode(String.self)
    }
    guard let id, let transaction = UInt64(id) else { throw ChangeTailError.unreadableHorizon }
    try await tail.caughtUp(through: transaction)
  }

  /// Stops tailing and closes every connection.
  public func close() async {
    await tail.stop()
    await database.pool.close()
    try? await threads.shutdownGracefully()
  }

  /// Runs `body` in a serializable transaction shared with this instance's other writes waiting
  /// at the same time (`WriteBatches`), again if it meets a concurrent one, and returns once the
  /// feed has handed its changes on. If `body` throws, none of its changes remain.
  ///
  /// `queueingEventsOf`: the players the write appends events for, when they are known before
  /// it starts. Writes that number one player's events all update that player's counter; in
  /// serializable transactions the ones waiting for it would each be refused and run again
  /// whenever one commits. Named here, they take turns (in this process, and on an advisory
  /// lock per player across instances) taken before the transaction begins, and none is
  /// refused.
  func write<T: Sendable>(
    queueingEventsOf players: [Int64] = [],
    _ body: @escaping @Sendable (SQLConnection) async throws -> T
  ) async throws -> T {
    try await batches.write(keys: players.map(Self.eventQueueKey), body)
  }

  /// The advisory lock key of `player`'s event counter: apart from the migration lock's.
  static func eventQueueKey(_ player: Int64) -> Int64 {
    0x4556_0000_0000_0000 | (player & 0x0000_FFFF_FFFF_FFFF)
  }

  /// Runs `body` on a pooled connection, each statement on its own.
  func read<T: Sendable>(_ body: (SQLConnection) async throws -> T) async throws -> T {
    try await database.read(body)
  }

  /// Runs `body` in one read-only snapshot.
  func snapshot<T: Sendable>(_ body: (SQLConnection) async throws -> T) async throws -> T {
    try await database.snapshot(body)
  }

  // MARK: Opening

  /// Applies the migrations the database lacks, holding an advisory lock so that instances
  /// starting together migrate one after the other.
  static func migrate(_ database: SQLDatabase) async throws {
    try await database.read { db in
      try await db.run("SELECT pg_advisory_lock(\(PostgresSchema.migrationLock))")
      do {
        try await db.run(
          """
          CREATE TABLE IF NOT EXISTS schema_migration (
            name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
          """)
        var applied: Set<String> = []
        for try await name in try await db.connection.query(
          "SELECT name FROM schema_migration", logger: db.logger
        ).decode(String.self) {
          applied.insert(name)
        }
        for migration in PostgresSchema.migrations where !applied.contains(migration.name) {
          try await db.run("BEGIN")
          do {
            try await db.run(migration.sql)
            try await db.connection.query(
              "INSERT INTO schema_migration (name) VALUES (\(migration.name))", logger: db.logger)
            try await db.run("COMMIT")
          } catch {
            try? await db.run("ROLLBACK")
            throw error
          }
        }
        try await db.run("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))")
      } catch {
        try? await db.run("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))")
        throw error
      }
    }
  }

  /// postgres-nio's configuration for `url`: `postgresql://USER[:PASSWORD]@HOST[:PORT]/DB`, or
  /// with `?host=/path/to/socket/folder` for a Unix socket.
  static func clientConfiguration(url: String) throws -> PostgresClient.Configuration {
    guard let components = URLComponents(string: url),
      components.scheme == "postgresql" || components.scheme == "postgres",
      let user = components.user, !user.isEmpty
    else { throw OpenError.badURL(url) }
    let database = String(components.path.drop(while: { $0 == "/" }))
    guard !database.isEmpty else { throw OpenError.badURL(url) }
    let password = components.password
    if let socketFolder = components.queryItems?.first(where: { $0.name == "host" })?.value,
      socketFolder.hasPrefix("/")
    {
      let port = components.port ?? 5432
      return PostgresClient.Configuration(
        unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password,
        database: database)
    }
    guard let host = components.host, !host.isEmpty else { throw OpenError.badURL(url) }
    return PostgresClient.Configuration(
      host: host, port: components.port ?? 5432, username: user, password: password,
      database: database, tls: .disable)
  }
}

/// One holder per key at a time, the others waiting in arrival order.
final class KeyedTurns: Sendable {
  /// The keys held, each with the writes waiting for it.
  private let state = Mutex<[Int64: [CheckedContinuation<Void, Never>]]>([:])

  /// Returns once `key` is this caller's.
  func acquire(_ key: Int64) async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { held -> Bool in
        guard held[key] != nil else {
          held[key] = []
          return true
        }
        held[key]!.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Gives `key` to the next waiting caller, or frees it.
  func release(_ key: Int64) {
    let next = state.withLock { held -> CheckedContinuation<Void, Never>? in
      guard var waiting = held[key] else { return nil }
      guard !waiting.isEmpty else {
        held[key] = nil
        return nil
      }
      let next = waiting.removeFirst()
      held[key] = waiting
      return next
    }
    next?.resume()
  }
}

extension PostgresStore {
  /// Calls `observe` with the time of every write transaction's `COMMIT` from now on: the round
  /// trip in which PostgreSQL writes and (with `synchronous_commit = on`) flushes the
  /// transaction's log; a batch of writes is one commit. It must be quick (a metric's record). A
  /// later call replaces an earlier one.
  public func observeCommitDurations(_ observe: @escaping @Sendable (Duration) -> Void) {
    database.pool.commitObserver.withLock { $0 = observe }
  }
}
