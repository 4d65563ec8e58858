import BadmintonDomain
import BadmintonStore
import Foundation
import PostgresNIO

extension PostgresStore {
  enum NextEventSequence: SQLStatement {
    static let sql = """
      UPDATE player SET last_event_sequence = last_event_sequence + 1 WHERE id = $1
      RETURNING last_event_sequence
      """
  }

  enum InsertEvent: SQLStatement {
    static let sql = """
      INSERT INTO event (player_id, sequence, created_at_ms, payload) VALUES ($1, $2, $3, $4)
      """
  }

  /// Appends `events` inside the caller's transaction.
  static func append(_ db: SQLConnection, _ events: OutgoingEvents, atUnixMs: Int64) async throws {
    for event in events {
      _ = try await appendEvent(
        db, playerID: event.playerID, payload: event.payload, atUnixMs: atUnixMs)
    }
  }

  /// Appends an event inside the caller's transaction: the player's counter gives its sequence.
  /// The counter's row lock orders one player's events across instances: a second transaction
  /// numbering the same player's event waits for the first, and a serializable one that read
  /// the old number is refused and run again.
  static func appendEvent(
    _ db: SQLConnection, playerID: Int64, payload: [UInt8], atUnixMs: Int64
  ) async throws -> UInt64 {
    guard let row = try await db.row(NextEventSequence.self, playerID) else {
      throw DomainError.playerNotFound
    }
    let sequence = try row.decode(Int64.self)
    try await db.rows(InsertEvent.self, playerID, sequence, atUnixMs, Data(payload))
    return UInt64(sequence)
  }
}
