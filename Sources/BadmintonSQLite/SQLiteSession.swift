public import BadmintonStoreSQL
import Foundation
import GRDB
import GRDBSQLite

/// The store's operations on the embedded store: each statement runs on GRDB's connection,
/// prepared once and cached by its text.
struct SQLiteSession: StoreSession {
  let db: Database

  var kind: StoreEngineKind { .sqlite }

  func rows<Statement: StoreStatement>(_ statement: Statement.Type, values: [StoreValue]) throws
    -> [StoreRow]
  {
    let prepared = try db.cachedStatement(sql: Statement.sqlite)
    let arguments = StatementArguments(values.map(Self.databaseValue))
    // Each row's columns are read from SQLite's statement as it steps, into the store's values
    // at once: no row of GRDB's is copied out first (the replays at start read tens of millions).
    let cursor = try Row.fetchCursor(prepared, arguments: arguments)
    let statement = prepared.sqliteStatement
    let columns = Int32(prepared.columnCount)
    var rows: [StoreRow] = []
    while try cursor.next() != nil {
      var values: [StoreValue] = []
      values.reserveCapacity(Int(columns))
      for column in 0..<columns {
        values.append(Self.storeValue(statement, column))
      }
      rows.append(StoreRow(values))
    }
    return rows
  }

  /// Column `column` of the row `statement` stands on.
  private static func storeValue(_ statement: SQLiteStatement, _ column: Int32) -> StoreValue {
    switch sqlite3_column_type(statement, column) {
    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
    case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
    case SQLITE_TEXT:
      // The text first, then its length in bytes, as SQLite asks.
      guard let text = sqlite3_column_text(statement, column) else { return .text("") }
      let count = Int(sqlite3_column_bytes(statement, column))
      return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
    case SQLITE_BLOB:
      guard let blob = sqlite3_column_blob(statement, column) else { return .blob([]) }
      let count = Int(sqlite3_column_bytes(statement, column))
      return .blob([UInt8](UnsafeRawBufferPointer(start: blob, count: count)))
    default: return .null
    }
  }

  func savepoint<T>(_ body: () throws -> T) throws -> T {
    var result: T?
    try db.inSavepoint {
      result = try body()
      return .commit
    }
    return result!
  }

  static func databaseValue(_ value: StoreValue) -> DatabaseValue {
    switch value {
    case .null: .null
    case .integer(let value): value.databaseValue
    case .real(let value): value.databaseValue
    case .text(let value): value.databaseValue
    case .blob(let bytes): Data(bytes).databaseValue
    // A list is read with `json_each(?n)`.
    case .integers(let values): "[\(values.map(String.init).joined(separator: ","))]".databaseValue
    case .texts(let values): Self.jsonArray(values).databaseValue
    }
  }

  private static func jsonArray(_ values: [String]) -> String {
    let data = try! JSONSerialization.data(withJSONObject: values)
    return String(decoding: data, as: UTF8.self)
  }
}

extension SQLitePlayerStore: StoreEngine {
  /// Every write goes through the group commit: it shares a transaction and a flush with the
  /// writes waiting at the same time, and fails alone. SQLite has one writer, so the players
  /// whose events a write appends need no turns of their own.
  public func writeTransaction<T: Sendable>(
    queueingEventsOf players: [Int64],
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T {
    try await WriteKeyRows.keyed(body) { body in
      try await grouped.write { db in try body(SQLiteSession(db: db)) }
    }
  }

  public func readSnapshot<T: Sendable>(
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T {
    try await writer.read { db in try body(SQLiteSession(db: db)) }
  }
}
