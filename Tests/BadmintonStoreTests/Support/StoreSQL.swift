import BadmintonStoreSQL
import GRDB
import PostgresNIO

@testable import BadmintonPostgres
@testable import BadmintonSQLite
@testable import BadmintonStore

/// SQL run directly on either store's database, outside the store's interface: for tests that
/// look at rows the interface does not show, or write rows it would refuse.
enum StoreSQL {
  /// The one integer `sql` reads (a count, a maximum).
  static func integer(_ store: any ServerStore, _ sql: String) async throws -> Int64 {
    switch store {
    case let sqlite as SQLitePlayerStore:
      return try await sqlite.writer.read { db in try Int64.fetchOne(db, sql: sql) ?? 0 }
    case let postgres as PostgresStore:
      return try await postgres.read { db in
        var rows = try await db.connection.query(PostgresQuery(unsafeSQL: sql), logger: db.logger)
          .decode(Int64?.self).makeAsyncIterator()
        return try await rows.next().flatMap { $0 } ?? 0
      }
    default:
      throw UnknownStore()
    }
  }

  /// Runs `sql`, which reads nothing, as a transaction of its own.
  static func execute(_ store: any ServerStore, _ sql: String) async throws {
    switch store {
    case let sqlite as SQLitePlayerStore:
      try await sqlite.writer.write { db in try db.execute(sql: sql) }
    case let postgres as PostgresStore:
      try await postgres.read { db in try await db.run(sql) }
    default:
      throw UnknownStore()
    }
  }

  /// A store of a kind these helpers do not know.
  struct UnknownStore: Error {}
}
