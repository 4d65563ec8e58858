public import BadmintonStore
public import BadmintonStoreSQL
import Dispatch
import NIOCore
import NIOPosix
import PostgresNIO

/// A shared statement as postgres-nio prepares it: once per pooled connection, by a name made
/// from its text.
struct SharedPrepared<Statement: StoreStatement>: PostgresPreparedStatement {
  typealias Row = PostgresRow
  static var sql: String { Statement.sql }
  static var name: String { statementName(Statement.sql) }

  let bindings: PostgresBindings

  func makeBindings() throws -> PostgresBindings { bindings }
  func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// The store's operations on PostgreSQL. An operation's body is synchronous (as GRDB's are on
/// the embedded store), so it runs on a thread of the store's own pool, which waits for each
/// statement's answer from postgres-nio's event loops; the event loops themselves never wait.
struct PostgresSession: StoreSession {
  let db: SQLConnection

  var kind: StoreEngineKind { .postgres }

  func rows<Statement: StoreStatement>(_ statement: Statement.Type, values: [StoreValue]) throws
    -> [StoreRow]
  {
    var bindings = PostgresBindings(capacity: values.count)
    for value in values { try Self.bind(value, to: &bindings) }
    db.modifying?.notePrepared(Statement.sql)
    let (connection, logger) = (db.connection, db.logger)
    let rows = try Blocking.wait { [bindings] in
      try await ClosingConnections.run(on: connection) {
        var rows: [PostgresRow] = []
        for try await row in try await connection.execute(
          SharedPrepared<Statement>(bindings: bindings), logger: logger)
        {
          rows.append(row)
        }
        return rows
      }
    }
    return try rows.map(Self.storeRow)
  }

  func savepoint<T>(_ body: () throws -> T) throws -> T {
    try run("SAVEPOINT store_operation")
    do {
      let value = try body()
      try run("RELEASE SAVEPOINT store_operation")
      return value
    } catch {
      // A connection that failed has no transaction left to roll back to.
      if !isDatabaseUnavailable(error) {
        try run("ROLLBACK TO SAVEPOINT store_operation")
        try run("RELEASE SAVEPOINT store_operation")
      }
      throw error
    }
  }

  private func run(_ sql: String) throws {
    let db = db
    try Blocking.wait { try await db.run(sql) }
  }

  static func bind(_ value: StoreValue, to bindings: inout PostgresBindings) throws {
    switch value {
    case .null: bindings.appendNull()
    case .integer(let value): bindings.append(value)
    case .real(let value): bindings.append(value)
    case .text(let value): bindings.append(value)
    case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
    case .integers(let values): bindings.append(values)
    case .texts(let values): bindings.append(values)
    }
  }

  static func storeRow(_ row: PostgresRow) throws -> StoreRow {
    var values: [StoreValue] = []
    values.reserveCapacity(row.count)
    for cell in row {
      guard cell.bytes != nil else {
        values.append(.null)
        continue
      }
      switch cell.dataType {
      case .int2, .int4, .int8: values.append(.integer(try cell.decode(Int64.self)))
      case .bool: values.append(.integer(try cell.decode(Bool.self) ? 1 : 0))
      case .float4, .float8: values.append(.real(try cell.decode(Double.self)))
      case .bytea:
        values.append(.blob(Array(buffer: try cell.decode(ByteBuffer.self))))
      default: values.append(.text(try cell.decode(String.self)))
      }
    }
    return StoreRow(values)
  }
}

/// Waits, on a thread of the store's pool, for work done on postgres-nio's event loops.
enum Blocking {
  private final class Box<T: Sendable>: @unchecked Sendable {
    // Written by the task before it signals, read by the waiting thread after: never at once.
    var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
  }

  /// The answer of `operation`, run as a task while this thread waits.
  static func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws
    -> T
  {
    let box = Box<T>()
    Task {
      do { box.result = .success(try await operation()) } catch { box.result = .failure(error) }
      box.done.signal()
    }
    box.done.wait()
    return try box.result!.get()
  }
}

extension PostgresStore: StoreEngine {
  /// The write runs in this instance's current batch (`WriteBatches`), its body on a thread of
  /// the store's pool.
  public func writeTransaction<T: Sendable>(
    queueingEventsOf players: [Int64],
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T {
    try await WriteKeyRows.keyed(body) { body in
      try await write(queueingEventsOf: players) { [threads] db in
        try await threads.runIfActive { try body(PostgresSession(db: db)) }
      }
    }
  }

  /// Each statement on its own, outside a transaction.
  public func readEach<T: Sendable>(
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T {
    try await read { [threads] db in
      try await threads.runIfActive { try body(PostgresSession(db: db)) }
    }
  }

  public func readSnapshot<T: Sendable>(
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T {
    try await snapshot { [threads] db in
      try await threads.runIfActive { try body(PostgresSession(db: db)) }
    }
  }
}

/// Game rooms run the operations written once in `BadmintonStoreSQL` (Rooms.swift).
extension PostgresStore: RoomStore {}

/// Friends, friend requests and blocks run the operations written once in `BadmintonStoreSQL`
/// (Social.swift).
extension PostgresStore: SocialStore {}

/// Direct messages run the operations written once in `BadmintonStoreSQL` (Messages.swift).
extension PostgresStore: MessageStore {}

/// Availability and recurring availability run the operations written once in
/// `BadmintonStoreSQL` (Matching.swift), proposals and matches those in Proposals.swift.
extension PostgresStore: MatchingStore, ProposalStore {}

/// Surveys run the operations written once in `BadmintonStoreSQL` (Surveys.swift).
extension PostgresStore: SurveyStore {}

/// Weekly schedules run the operations written once in `BadmintonStoreSQL` (Schedules.swift).
extension PostgresStore: ScheduleStore {}

/// Players, sessions, verifications and events run the operations written once in
/// `BadmintonStoreSQL` (Players.swift, Documents.swift).
extension PostgresStore: PlayerStore {}

/// Suspensions and the audit log run the operations written once in `BadmintonStoreSQL`
/// (Administration.swift).
extension PostgresStore: AdministrationStore {}

/// Idempotency keys run the operations written once in `BadmintonStoreSQL` (WriteKeys.swift).
extension PostgresStore: WriteKeyStore {}
