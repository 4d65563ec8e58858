import BadmintonDomain
import BadmintonStore
import BadmintonStoreSQL
import Foundation
import GRDB
import Synchronization

/// Watches the writer: notes each changed row of the watched tables while a transaction runs,
/// and once it commits reads those rows back (still on the writer, before any other write) and
/// publishes them to the feed.
final class ChangeObserver: TransactionObserver, @unchecked Sendable {
  /// The tables the feed is made of.
  enum Table: String, CaseIterable {
    case player, session, availability, game, block, event, suspension
  }

  private let feed: ChangeFeed
  /// Used on the writer's queue only.
  private var pending: [(table: Table, rowID: Int64, deleted: Bool)] = []
  private var seen: [Table: [Int64: Int]] = [:]

  init(feed: ChangeFeed) { self.feed = feed }

  func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
    guard let table = Table(rawValue: eventKind.tableName) else { return false }
    switch (table, eventKind) {
    // Events are pruned by age; only a new one matters.
    case (.event, .insert): return true
    case (.event, _): return false
    // Numbering a player's next event changes nothing a player record holds.
    case (.player, .update(_, let columns)): return columns != ["last_event_sequence"]
    default: return true
    }
  }

  func databaseDidChange(with event: DatabaseEvent) {
    guard let table = Table(rawValue: event.tableName) else { return }
    let deleted = event.kind == .delete
    if let position = seen[table]?[event.rowID] {
      pending[position].deleted = deleted
    } else {
      seen[table, default: [:]][event.rowID] = pending.count
      pending.append((table, event.rowID, deleted))
    }
  }

  func databaseDidCommit(_ db: Database) {
    let rows = pending
    pending = []
    seen = [:]
    guard !rows.isEmpty else { return }
    do {
      // A group of messages appends many events: they are read back in one statement.
      let events = try Self.events(db, rowIDs: rows.filter { $0.table == .event }.map(\.rowID))
      let changes = try rows.compactMap { row in
        if row.table == .event { return events[row.rowID].map(StoreChange.event) }
        return try Self.change(db, row.table, rowID: row.rowID, deleted: row.deleted)
      }
      if !changes.isEmpty { feed.publish(changes) }
    } catch {
      // Reading back rows just committed on the writer cannot fail short of the database
      // breaking; a projection that missed them would be wrong, so stop rather than serve it.
      fatalError("cannot read back committed rows: \(error)")
    }
  }

  func databaseDidRollback(_ db: Database) {
    pending = []
    seen = [:]
  }

  private static func change(_ db: Database, _ table: Table, rowID: Int64, deleted: Bool)
    throws -> StoreChange?
  {
    switch table {
    case .player:
      return try Shared.fetchPlayer(SQLiteSession(db: db), id: rowID).map(StoreChange.player)
    case .session:
      guard !deleted else { return .session(rowID: rowID, nil) }
      let session = try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM session WHERE rowid = ?"), arguments: [rowID]
      ).map { row in
        SessionRecord(
          tokenHash: [UInt8](row["token_hash"] as Data), playerID: row["player_id"],
          createdAtUnixMs: row["created_at_ms"], expiresAtUnixMs: row["expires_at_ms"])
      }
      return .session(rowID: rowID, session)
    case .availability:
      guard !deleted else { return .availability(id: rowID, nil) }
      let record = try MatchRows.availabilities(SQLiteSession(db: db), ids: [rowID])[rowID]
      return .availability(id: rowID, record)
    case .game:
      guard !deleted else { return .match(id: rowID, nil) }
      return .match(id: rowID, try MatchRows.fetchMatch(SQLiteSession(db: db), id: rowID))
    case .block:
      guard !deleted else { return .block(rowID: rowID, nil) }
      let block = try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT blocker_id, blocked_id FROM block WHERE rowid = ?"),
        arguments: [rowID]
      ).map { BlockChange(blockerID: $0["blocker_id"], blockedID: $0["blocked_id"]) }
      return .block(rowID: rowID, block)
    case .event:
      return try events(db, rowIDs: [rowID])[rowID].map(StoreChange.event)
    case .suspension:
      // The row id is the player's id.
      guard !deleted else { return .suspension(playerID: rowID, nil) }
      let suspension = try AdministrationRows.suspensions(SQLiteSession(db: db), ids: [rowID])
      return .suspension(playerID: rowID, suspension[rowID])
    }
  }

  /// The events of `rowIDs` (inserted, so never deleted: only a new event is watched), by row
  /// id. One transaction's new rows have neighbouring rowids, so they are read as one range;
  /// should they be far apart, one by one.
  private static func events(_ db: Database, rowIDs: [Int64]) throws -> [Int64: EventRecord] {
    guard let low = rowIDs.min(), let high = rowIDs.max() else { return [:] }
    let wanted = Set(rowIDs)
    var events: [Int64: EventRecord] = [:]
    events.reserveCapacity(rowIDs.count)
    let ranges =
      high - low < Int64(rowIDs.count) * 4 + 64 ? [(low, high)] : rowIDs.map { ($0, $0) }
    for (from, to) in ranges {
      try read(db, from: from, to: to, wanted: wanted, into: &events)
    }
    return events
  }

  /// Reads the events with rowids from `from` through `to` that are `wanted` into `events`.
  private static func read(
    _ db: Database, from: Int64, to: Int64, wanted: Set<Int64>,
    into events: inout [Int64: EventRecord]
  ) throws {
    let rows = try Row.fetchCursor(
      db.cachedStatement(
        sql: """
          SELECT rowid, player_id, sequence, created_at_ms, payload FROM event
          WHERE rowid BETWEEN ? AND ?
          """),
      arguments: [from, to])
    while let row = try rows.next() {
      // By position: one of these per event sent, and a lookup by name costs more.
      let rowID: Int64 = row[0]
      guard wanted.contains(rowID) else { continue }
      events[rowID] = EventRecord(
        playerID: row[1], sequence: UInt64(row[2] as Int64), createdAtUnixMs: row[3],
        payload: [UInt8](row[4] as Data))
    }
  }
}
