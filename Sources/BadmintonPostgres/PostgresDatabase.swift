import BadmintonDomain
import BadmintonStoreSQL
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// A statement's SQL, prepared once per pooled connection the first time that connection runs
/// it (postgres-nio's `PostgresPreparedStatement`) and executed by name after that: the store's
/// own statements (`StoreStatement`), and the engine's (the change tail's, the batches' locks).
typealias SQLStatement = StoreStatement

/// The prepared statement name of `sql`.
func statementName(_ sql: String) -> String {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in sql.utf8 {
    hash ^= UInt64(byte)
    hash = hash &* 0x0000_0100_0000_01b3
  }
  return "badminton_" + String(hash, radix: 16)
}

/// One leased connection, in a transaction or not: what the store's methods run their
/// statements on.
struct SQLConnection {
  let connection: PostgresConnection
  let logger: Logger
  /// Counts the statements that may change rows, in a batch of writes (`WriteBatches`).
  var modifying: ModifyingStatements? = nil

  /// The rows `Statement` returns for `values`, bound to `$1`, `$2`, … in order; nil binds
  /// NULL. Use `Data` (or `ByteBuffer`) for `BYTEA`, never `[UInt8]` (which binds an array).
  @discardableResult
  func rows<Statement: SQLStatement>(
    _ statement: Statement.Type, _ values: (any PostgresThrowingDynamicTypeEncodable)?...
  ) async throws -> [PostgresRow] {
    try await rows(statement, values: values)
  }

  /// `rows(_:_:)` with the values as an array.
  func rows<Statement: SQLStatement>(
    _ statement: Statement.Type, values: [(any PostgresThrowingDynamicTypeEncodable)?]
  ) async throws -> [PostgresRow] {
    var bindings = PostgresBindings(capacity: values.count)
    for value in values {
      if let value { try bindings.append(value) } else { bindings.appendNull() }
    }
    modifying?.notePrepared(Statement.sql)
    return try await ClosingConnections.run(on: connection) { [connection, logger, bindings] in
      var rows: [PostgresRow] = []
      for try await row in try await connection.execute(
        SharedPrepared<Statement>(bindings: bindings), logger: logger)
      {
        rows.append(row)
      }
      return rows
    }
  }

  /// The first row `Statement` returns for `values`, if any.
  func row<Statement: SQLStatement>(
    _ statement: Statement.Type, _ values: (any PostgresThrowingDynamicTypeEncodable)?...
  ) async throws -> PostgresRow? {
    try await rows(statement, values: values).first
  }

  /// Runs SQL that is not worth preparing (set-up, one-off statements), without bindings. It
  /// may hold several statements, each ending a line with `;` (outside `$$` bodies).
  func run(_ sql: String) async throws {
    for statement in Self.statements(sql) {
      modifying?.note(statement)
      try await ClosingConnections.run(on: connection) { [connection, logger] in
        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
      }
    }
  }

  /// `sql` cut into statements: a line ending in `;` ends one, unless it is inside a `$$` body.
  static func statements(_ sql: String) -> [String] {
    var statements: [String] = []
    var current: [Substring] = []
    var inBody = false
    for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("--") || (trimmed.isEmpty && current.isEmpty) { continue }
      current.append(line)
      if line.components(separatedBy: "$$").count % 2 == 0 { inBody.toggle() }
      if !inBody, trimmed.hasSuffix(";") {
        statements.append(current.joined(separator: "\n"))
        current = []
      }
    }
    let rest = current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    if !rest.isEmpty { statements.append(rest) }
    return statements
  }
}

/// Statements that end when their connection closes.
///
/// postgres-nio (1.33) never completes a statement written to a connection that has already
/// closed: the channel drops the write, and its caller waits for ever. That is what a server
/// restart does to a connection sitting idle, or between two statements of a transaction: the
/// server ends the session, and the next statement on it would hang, holding its write (and the
/// writes queued behind it) for good. So each statement runs in a task of its own, and its caller
/// waits for that task or for the connection's close, whichever comes first. One watch per open
/// connection holds the callers waiting on it.
enum ClosingConnections {
  /// The connection closed before the statement's answer came.
  struct Closed: Error, CustomStringConvertible {
    var description: String { "the connection to the database closed" }
  }

  /// The callers waiting on one connection.
  private final class Watch: Sendable {
    private struct State {
      var closed = false
      var next = 0
      var waiting: [Int: @Sendable () -> Void] = [:]
    }
    /// Kept until the connection closes, so its identifier is not reused before.
    let connection: PostgresConnection
    private let state = Mutex(State())

    init(_ connection: PostgresConnection) { self.connection = connection }

    /// Notes `fail`, called if the connection closes first; nil when it has closed already.
    func add(_ fail: @escaping @Sendable () -> Void) -> Int? {
      state.withLock { state in
        guard !state.closed else { return nil }
        state.next += 1
        state.waiting[state.next] = fail
        return state.next
      }
    }

    /// Forgets the caller `token`: its statement ended.
    func remove(_ token: Int) {
      _ = state.withLock { $0.waiting.removeValue(forKey: token) }
    }

    /// The connection closed: every caller still waiting fails.
    func close() {
      let waiting = state.withLock { state in
        state.closed = true
        defer { state.waiting = [:] }
        return Array(state.waiting.values)
      }
      for fail in waiting { fail() }
    }
  }

  /// A continuation resumed once, by whichever comes first.
  private final class Once<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>
    init(_ continuation: CheckedContinuation<T, any Error>) {
      self.continuation = Mutex(continuation)
    }
    func resume(with result: Result<T, any Error>) {
      let continuation = self.continuation.withLock { stored in
        defer { stored = nil }
        return stored
      }
      continuation?.resume(with: result)
    }
  }

  private static let watches = Mutex<[ObjectIdentifier: Watch]>([:])

  /// Runs `statement` on `connection`; throws `Closed` if the connection closes before it ends.
  static func run<T: Sendable>(
    on connection: PostgresConnection, _ statement: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    guard !connection.isClosed else { throw Closed() }
    let watch = watch(of: connection)
    return try await withCheckedThrowingContinuation { continuation in
      let once = Once(continuation)
      guard let token = watch.add({ once.resume(with: .failure(Closed())) }) else {
        once.resume(with: .failure(Closed()))
        return
      }
      Task {
        let result: Result<T, any Error>
        do {
          result = .success(try await statement())
        } catch {
          result = .failure(error)
        }
        watch.remove(token)
        once.resume(with: result)
      }
    }
  }

  /// The watch of `connection`, made (and tied to its close) the first time.
  private static func watch(of connection: PostgresConnection) -> Watch {
    let key = ObjectIdentifier(connection)
    let (watch, isNew) = watches.withLock { watches in
      if let watch = watches[key] { return (watch, false) }
      let watch = Watch(connection)
      watches[key] = watch
      return (watch, true)
    }
    if isNew {
      connection.closeFuture.whenComplete { _ in
        _ = watches.withLock { $0.removeValue(forKey: key) }
        watch.close()
      }
    }
    return watch
  }
}

/// The SQLSTATE of a PostgreSQL error, if `error` is one the server sent.
func sqlState(_ error: any Error) -> String? {
  (error as? PSQLError)?.serverInfo?[.sqlState]
}

/// Whether `error` is PostgreSQL refusing a transaction that ran against another at the same
/// time (a serialization failure or a deadlock): the transaction may be run again.
func isRetryable(_ error: any Error) -> Bool {
  switch sqlState(error) {
  case "40001", "40P01": return true
  default: return false
  }
}

/// `error` as the caller should see it: PostgreSQL's refusal of text it cannot store (U+0000,
/// SQLSTATE 22021), which the embedded store keeps, becomes a clear refusal of the request
/// rather than an internal error; a database out of reach, or a connection lost during the
/// call (its commit included), becomes `UNAVAILABLE` / `DATABASE_UNAVAILABLE` with a retry hint.
func storableError(_ error: any Error) -> any Error {
  if isDatabaseUnavailable(error) { return DomainError.databaseUnavailable }
  guard sqlState(error) == "22021" else { return error }
  return DomainError(
    .invalidArgument, "TEXT_NOT_STORABLE",
    en: "The text holds a character the database cannot store (U+0000).",
    zhCN: "文本中含有数据库无法保存的字符（U+0000）。")
}

/// Whether `error` is a unique constraint refusing a row (SQLSTATE 23505).
func isUniqueViolation(_ error: any Error) -> Bool {
  sqlState(error) == "23505"
}

/// The pool of connections to one PostgreSQL database, and the two ways the store uses them.
struct SQLDatabase: Sendable {
  let pool: DatabasePool
  let logger: Logger

  /// Attempts of a transaction that keeps meeting concurrent ones before the write fails.
  static let maximumAttempts = 32

  /// Runs `body` on a pooled connection, outside any transaction: each statement is its own.
  func read<T: Sendable>(_ body: (SQLConnection) async throws -> T) async throws -> T {
    do {
      return try await pool.withConnection { connection in
        try await body(SQLConnection(connection: connection, logger: logger))
      }
    } catch {
      throw storableError(error)
    }
  }

  /// Runs `body` in one `REPEATABLE READ` read-only transaction: every statement sees the same
  /// snapshot.
  func snapshot<T: Sendable>(_ body: (SQLConnection) async throws -> T) async throws -> T {
    do {
      return try await snapshotOnce(body)
    } catch {
      throw storableError(error)
    }
  }

  private func snapshotOnce<T: Sendable>(_ body: (SQLConnection) async throws -> T) async throws
    -> T
  {
    try await pool.withConnection { connection in
      let sql = SQLConnection(connection: connection, logger: logger)
      try await sql.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
      do {
        let value = try await body(sql)
        try await sql.run("COMMIT")
        return value
      } catch {
        try? await sql.run("ROLLBACK")
        throw storableError(error)
      }
    }
  }

  /// Takes the advisory locks of the keys, in the (sorted) order given, in one round trip.
  enum QueueLocks: SQLStatement {
    static let sql = "SELECT count(pg_advisory_lock(k)) FROM unnest($1::bigint[]) AS k"
  }

  enum TransactionID: SQLStatement {
    static let sql = "SELECT pg_current_xact_id_if_assigned()::text"
  }

  /// Runs `body` in one `SERIALIZABLE` transaction and commits it; run again from the start
  /// when PostgreSQL refuses it for a transaction that ran at the same time (on this instance
  /// or another), so `body` must only read and write through the connection it is given. If
  /// `body` throws, nothing it wrote remains. Returns `body`'s value and the id of the
  /// transaction that committed, nil when it wrote nothing. `attempts`: how many times it runs
  /// at most before the refusal is thrown.
  ///
  /// Always serializable: the change tail's order rests on it (a later writer of a row has the
  /// larger transaction id), which a weaker level would break.
  func transaction<T: Sendable>(
    queueingOn keys: [Int64] = [], attempts: Int = maximumAttempts,
    _ body: (SQLConnection) async throws -> T
  ) async throws -> (T, UInt64?) {
    var attempt = 0
    while true {
      attempt += 1
      do {
        return try await pool.withConnection { connection in
          let sql = SQLConnection(connection: connection, logger: logger)
          // Taken before the transaction begins, so its snapshot is taken once the previous
          // holder has committed: writers of one hot row take turns instead of refusing each
          // other. Session locks, released below whatever happens (or with the connection).
          do {
            if !keys.isEmpty { try await sql.rows(QueueLocks.self, Set(keys).sorted()) }
            try await sql.run("BEGIN ISOLATION LEVEL SERIALIZABLE")
            do {
              let value = try await body(sql)
              let id = try await sql.row(TransactionID.self)?.decode(String?.self)
              let committing = ContinuousClock.now
              try await sql.run("COMMIT")
              pool.commitObserver.withLock { $0 }?(ContinuousClock.now - committing)
              if !keys.isEmpty {
                // Committed: whatever happens now, the transaction must not be reported as
                // failed (its callers would make it again). A connection whose locks cannot be
                // released is closed, which releases them.
                do {
                  try await sql.run("SELECT pg_advisory_unlock_all()")
                } catch {
                  try? await connection.close()
                }
              }
              return (value, id.flatMap { UInt64($0) })
            } catch {
              try? await sql.run("ROLLBACK")
              throw error
            }
          } catch {
            if !keys.isEmpty { try? await sql.run("SELECT pg_advisory_unlock_all()") }
            throw error
          }
        }
      } catch  where isRetryable(error) && attempt < attempts {
        // A short, growing, random pause, so two transactions that keep meeting part ways.
        let pause = UInt64.random(in: 0...(UInt64(min(attempt, 8)) * 500_000))
        try await Task.sleep(nanoseconds: pause)
      } catch {
        throw storableError(error)
      }
    }
  }
}
