import Foundation
public import Testing

/// The two stores the store and service tests run on: the embedded SQLite store, and the
/// PostgreSQL store on a database of its own in the throwaway test cluster
/// (`PostgresTestCluster`).
///
/// `BADMINTON_TEST_STORES` picks the stores (`sqlite`, `postgresql`, or both, comma-separated;
/// both by default), so the PostgreSQL part alone is
/// `BADMINTON_TEST_STORES=postgresql swift test --filter BadmintonStoreTests`.
public enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// SQLite in memory.
  case sqlite
  /// PostgreSQL, a new database of the test cluster.
  case postgresql

  /// The stores the tests run on: both, or those `BADMINTON_TEST_STORES` names.
  public static var allCases: [StoreKind] {
    guard let names = ProcessInfo.processInfo.environment["BADMINTON_TEST_STORES"] else {
      return [.sqlite, .postgresql]
    }
    return names.split(separator: ",").compactMap { StoreKind(rawValue: String($0)) }
  }

  /// The engine's name, as the test report shows it.
  public var testDescription: String { rawValue }
}
