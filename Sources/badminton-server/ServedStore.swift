import BadmintonPostgres
import BadmintonSQLite
import BadmintonStore
import Foundation

/// The store the server serves from: SQLite in the data folder, or a PostgreSQL database that
/// several instances share.
enum ServedStore {
  /// The embedded store in `--data-dir`.
  case sqlite(SQLitePlayerStore)
  /// The shared store of `--database`.
  case postgresql(PostgresStore)

  /// The store the services use.
  var served: any ServerStore {
    switch self {
    case .sqlite(let store): store
    case .postgresql(let store): store
    }
  }

  /// Closes the store's connections (the embedded store closes with the process).
  func close() async {
    if case .postgresql(let store) = self {
      await store.close()
    }
  }
}

/// The `--database` URL as it may be shown: logs and messages never hold its password.
enum DatabaseURL {
  /// `url` with the password of its user part, if any, replaced by `***`.
  static func redacted(_ url: String) -> String {
    guard let schemeEnd = url.range(of: "://") else { return url }
    let rest = url[schemeEnd.upperBound...]
    // The user part ends at the last `@` before the path (a password may hold `@` or `/`).
    let authorityEnd = rest.firstIndex(of: "?") ?? rest.endIndex
    guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
      let colon = rest[..<at].firstIndex(of: ":")
    else { return url }
    return String(url[..<rest.index(after: colon)]) + "***" + String(rest[at...])
  }
}
