public import BadmintonStoreSQL
import Foundation
import GRDB

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
    return try Row.fetchAll(prepared, arguments: arguments).map { row in
      StoreRow(row.databaseValues.map(Self.storeValue))
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

  static func storeValue(_ value: DatabaseValue) -> StoreValue {
    switch value.storage {
    case .null: .null
    case .int64(let value): .integer(value)
    case .double(let value): .real(value)
    case .string(let value): .text(value)
    case .blob(let data): .blob([UInt8](data))
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
