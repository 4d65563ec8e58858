import BadmintonDomain
import BadmintonStore
import Foundation
import PostgresNIO
import PostgresTestCluster
import Testing

@testable import BadmintonPostgres
@testable import BadmintonStoreSQL

@Suite("PostgreSQL store: message pages")
struct PostgresMessagePageTests {
  /// `sql` with its `$n` placeholders replaced by `values` (integers only), for EXPLAIN.
  private static func bound(_ sql: String, _ values: [Int64]) -> String {
    var text = sql
    for (index, value) in values.enumerated().reversed() {
      text = text.replacingOccurrences(of: "$\(index + 1)", with: "\(value)")
    }
    return text
  }

  private static func plan(_ store: PostgresStore, _ sql: String) async throws -> String {
    try await store.read { db in
      var lines: [String] = []
      for try await line in try await db.connection.query(
        PostgresQuery(unsafeSQL: "EXPLAIN " + sql), logger: db.logger
      ).decode(String.self) {
        lines.append(line)
      }
      return lines.joined(separator: "\n")
    }
  }

  @Test(
    "among 100,000 messages of 50 threads, a thread's newest 50 come from the thread index, and neither a page nor a sync scans the table"
  )
  func newestPage_usesTheThreadIndex() async throws {
    let store = try await PostgresStore.open(
      .init(url: try PostgresTestCluster.makeDatabase(), poolSize: 4))
    do {
      let ann = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000001")).id
      let bo = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000002")).id
      let thread = try await store.sendMessage(
        NewMessage(
          senderID: ann, recipientID: bo, clientMessageID: "first", text: "hi", sentAtUnixMs: 1)
      ) { _ in [] }.message.threadID
      // 2,000 messages in Ann and Bo's thread, 98,000 in 49 threads of other pairs: a planner
      // that weighs what it reads sees the thread as the small part of the table it is. Which
      // index a sync walks (the sender's and recipient's, or the player's threads') is the
      // planner's choice by the numbers; a scan of every message never is.
      try await StoreSQL.execute(
        store,
        """
        INSERT INTO player (phone, nickname, password_hash, password_salt, password_parameters,
          self_level, locale, joined_at_ms)
        SELECT '+86137' || i, 'p' || i, '\\x01', '\\x01', 'test', 5, 'zh-CN', 0
        FROM generate_series(1, 98) AS i;
        INSERT INTO message_thread (low_player_id, high_player_id, created_at_ms)
        SELECT p.id, p.id + 1, 0 FROM player AS p WHERE p.id > \(bo) AND (p.id - \(bo)) % 2 = 1;
        INSERT INTO direct_message (thread_id, sender_id, recipient_id, client_message_id, text,
          sent_at_ms)
        SELECT \(thread), CASE i % 2 WHEN 0 THEN \(ann) ELSE \(bo) END,
          CASE i % 2 WHEN 0 THEN \(bo) ELSE \(ann) END, 'bulk-' || i, 'message ' || i, i
        FROM generate_series(1, 2000) AS i;
        INSERT INTO direct_message (thread_id, sender_id, recipient_id, client_message_id, text,
          sent_at_ms)
        SELECT t.id, t.low_player_id, t.high_player_id, 'bulk-' || i, 'message ' || i, i
        FROM generate_series(1, 98000) AS i
        JOIN message_thread AS t ON t.id = \(thread) + 1 + i % 49;
        ANALYZE;
        """)
      let page = try await Self.plan(
        store,
        Self.bound(ThreadPage.sql, [thread, Int64.max, 0, ann, 51]))
      #expect(page.contains("Index Scan Backward using direct_message_thread"), "\(page)")
      #expect(!page.contains("Seq Scan on direct_message") && !page.contains("Sort"), "\(page)")
      let sync = try await Self.plan(
        store, Self.bound(SyncPage.sql, [ann, 0, 501]))
      #expect(!sync.contains("Seq Scan on direct_message"), "\(sync)")

      let newest = try await store.messages(
        threadID: thread, playerID: ann, beforeMessageID: nil, limit: 50)
      let total = try await StoreSQL.integer(
        store, "SELECT max(id) FROM direct_message WHERE thread_id = \(thread)")
      #expect(newest.map(\.id) == Array((total - 49...total).reversed()))
      let next = try await store.messages(
        threadID: thread, playerID: bo, beforeMessageID: newest.last!.id, limit: 50)
      #expect(next.map(\.id) == Array((total - 99...total - 50).reversed()))
      let synced = try await store.messages(playerID: ann, afterMessageID: 0, limit: 500)
      #expect(synced.map(\.id) == Array(synced.map(\.id).sorted().prefix(500)))
      #expect(synced.count == 500 && synced.allSatisfy { $0.threadID == thread })
    } catch {
      await store.close()
      throw error
    }
    await store.close()
  }
}
