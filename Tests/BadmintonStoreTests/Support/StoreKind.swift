import BadmintonPostgres
import BadmintonStore
import PostgresTestCluster
import Testing

/// The two stores every store test runs against: the embedded SQLite store, and the PostgreSQL
/// store on a database of its own in the throwaway test cluster (`PostgresTestCluster`).
///
/// Run only the PostgreSQL half with `swift test --filter postgresql` (the argument's name is
/// in each test case's name).
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case sqlite
  case postgresql

  var testDescription: String { rawValue }
}

/// A fresh, empty store, and how to close it.
struct TestStore: Sendable {
  let store: any ServerStore
  let close: @Sendable () async -> Void

  /// An empty store of `kind`: SQLite in memory, or PostgreSQL on a new database.
  static func make(_ kind: StoreKind) async throws -> TestStore {
    switch kind {
    case .sqlite:
      return TestStore(store: try SQLitePlayerStore.inMemory(), close: {})
    case .postgresql:
      let store = try await PostgresStore.open(
        .init(url: try PostgresTestCluster.makeDatabase(), poolSize: 6))
      return TestStore(store: store, close: { await store.close() })
    }
  }
}

/// Runs `body` on an empty store of `kind`, closing it afterwards.
func withStore<T>(
  _ kind: StoreKind, _ body: (any ServerStore) async throws -> T
) async throws -> T {
  let test = try await TestStore.make(kind)
  do {
    let value = try await body(test.store)
    await test.close()
    return value
  } catch {
    await test.close()
    throw error
  }
}
