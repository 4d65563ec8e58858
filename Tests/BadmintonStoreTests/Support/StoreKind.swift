import BadmintonPostgres
import BadmintonStore
import Foundation
import PostgresTestCluster
import Testing

/// The two stores every store test runs against: the embedded SQLite store, and the PostgreSQL
/// store on a database of its own in the throwaway test cluster (`PostgresTestCluster`).
///
/// `BADMINTON_TEST_STORES` picks the stores (`sqlite`, `postgresql`, or both, comma-separated;
/// both by default), so the PostgreSQL part alone is
/// `BADMINTON_TEST_STORES=postgresql swift test --filter BadmintonStoreTests`.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case sqlite
  case postgresql

  /// The stores the tests run on: both, or those `BADMINTON_TEST_STORES` names.
  static var allCases: [StoreKind] {
    guard let names = ProcessInfo.processInfo.environment["BADMINTON_TEST_STORES"] else {
      return [.sqlite, .postgresql]
    }
    return names.split(separator: ",").compactMap { StoreKind(rawValue: String($0)) }
  }

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
