import Foundation
import GRDB
import PostgresTestCluster

/// The rows the audit reads, from the store the server served: the SQLite file itself, or, on
/// PostgreSQL, a SQLite copy of those columns made with `COPY ... TO` files.
enum ChaosSnapshot {
  /// The columns the audit reads, by table.
  static let columns: [(table: String, columns: [String], text: Set<String>)] = [
    (
      "availability", ["id", "player_id", "local_date", "start_minute", "end_minute", "state"],
      ["local_date"]
    ),
    ("direct_message", ["id", "text"], ["text"]),
    ("friend_request", ["id", "sender_id", "recipient_id", "state"], []),
    ("friendship", ["player_id", "friend_id"], []),
    ("day_status", ["player_id", "date", "note"], ["date", "note"]),
    ("event", ["player_id", "sequence"], []),
  ]

  /// A SQLite file holding what the audit reads of PostgreSQL database `database`, written at
  /// `path`.
  static func copy(postgresDatabase database: String, to path: String) throws -> String {
    let cluster = try PostgresTestCluster.shared()
    try? FileManager.default.removeItem(atPath: path)
    let copy = try DatabaseQueue(path: path)
    defer { try? copy.close() }
    for (table, columns, text) in columns {
      let file = cluster.folder + "/chaos-\(table)-\(UUID().uuidString).tsv"
      try PostgresTestCluster.execute(
        "COPY (SELECT \(columns.joined(separator: ", ")) FROM \(table)) TO '\(file)'",
        in: database)
      let content = try String(contentsOfFile: file, encoding: .utf8)
      try? FileManager.default.removeItem(atPath: file)
      try copy.write { db in
        try db.execute(
          sql:
            "CREATE TABLE \(table) (\(columns.map { "\($0) \(text.contains($0) ? "TEXT" : "INTEGER")" }.joined(separator: ", ")))"
        )
        let insert = try db.makeStatement(
          sql:
            "INSERT INTO \(table) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
        for line in content.split(separator: "\n") {
          let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
          let values: [(any DatabaseValueConvertible)?] = zip(columns, fields).map {
            column, field -> (any DatabaseValueConvertible)? in
            if text.contains(column) { return String(field) }
            return Int64(String(field))
          }
          try insert.execute(arguments: StatementArguments(values))
        }
      }
    }
    return path
  }
}
