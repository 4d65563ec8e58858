import BadmintonDomain
import GRDB
import PropertyBased
import StoreTestSupport
import Testing

@testable import BadmintonSQLite
@testable import BadmintonStore
@testable import BadmintonStoreSQL

@Suite("Message store")
struct MessageStoreTests {
  /// A store on a queue the test can also query directly.
  private static func store() throws -> (SQLitePlayerStore, DatabaseQueue) {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
    let queue = try DatabaseQueue(configuration: configuration)
    return (try SQLitePlayerStore(writer: queue), queue)
  }

  private static func players(_ store: any ServerStore) async throws -> (Int64, Int64) {
    let ann = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000001"))
    let bo = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000002"))
    return (ann.id, bo.id)
  }

  private static func send(
    _ store: any ServerStore, _ from: Int64, _ to: Int64, id: String, text: String = "hi"
  ) async throws -> MessageSendOutcome {
    try await store.sendMessage(
      NewMessage(
        senderID: from, recipientID: to, clientMessageID: id, text: text, sentAtUnixMs: 1_000)
    ) { [($0.recipientID, Array("message \($0.id)".utf8))] }
  }

  @Test("the newest 50 of a thread of 100,000 messages come from the thread index, not a scan")
  func newestPage_usesTheThreadIndex() async throws {
    let (store, queue) = try Self.store()
    let (ann, bo) = try await Self.players(store)
    let thread = try await Self.send(store, ann, bo, id: "first").message.threadID
    // Another thread, so that the index has something to skip.
    let cy = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000003"))
    _ = try await Self.send(store, cy.id, bo, id: "elsewhere")
    try await queue.write { db in
      try db.execute(
        sql: """
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
          INSERT INTO direct_message (thread_id, sender_id, recipient_id, client_message_id, text,
            sent_at_ms)
          SELECT ?, CASE i % 2 WHEN 0 THEN ? ELSE ? END, CASE i % 2 WHEN 0 THEN ? ELSE ? END,
            'bulk-' || i, 'message ' || i, i FROM n
          """,
        arguments: [thread, ann, bo, bo, ann])
    }
    let plan = try await queue.read { db in
      try Row.fetchAll(
        db, sql: "EXPLAIN QUERY PLAN " + ThreadPage.sqlite,
        arguments: [thread, Int64.max, 0, ann, 51]
      ).map { $0["detail"] as String }
    }
    #expect(plan.count == 1)
    #expect(
      plan.contains { $0.hasPrefix("SEARCH direct_message USING INDEX direct_message_thread") })
    #expect(!plan.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") })

    // SyncMessages walks the sender and recipient indexes and stops at the page.
    let syncPlan = try await queue.read { db in
      try Row.fetchAll(
        db, sql: "EXPLAIN QUERY PLAN " + SyncPage.sqlite,
        arguments: [ann, 0, 501]
      ).map { $0["detail"] as String }
    }
    #expect(syncPlan.contains { $0.contains("USING INDEX direct_message_sender (sender_id=? AND") })
    #expect(
      syncPlan.contains { $0.contains("USING INDEX direct_message_recipient (recipient_id=? AND") })
    #expect(!syncPlan.contains { $0.hasPrefix("SCAN direct_message") })
    let synced = try await store.messages(playerID: ann, afterMessageID: 0, limit: 500)
    #expect(synced.map(\.id) == synced.map(\.id).sorted() && synced.count == 500)

    let newest = try await store.messages(
      threadID: thread, playerID: ann, beforeMessageID: nil, limit: 50)
    let total = try await queue.read { db in
      try Int64.fetchOne(
        db, sql: "SELECT max(id) FROM direct_message WHERE thread_id = ?", arguments: [thread])!
    }
    #expect(newest.map(\.id) == Array((total - 49...total).reversed()))
    let next = try await store.messages(
      threadID: thread, playerID: bo, beforeMessageID: newest.last!.id, limit: 50)
    #expect(next.map(\.id) == Array((total - 99...total - 50).reversed()))
  }

  @Test(
    "one thread per pair, one message per client message id, and the event with the message",
    arguments: StoreKind.allCases)
  func send_idempotentWithOneThread(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.sendIdempotentWithOneThread(store) }
  }

  private static func sendIdempotentWithOneThread(_ store: any ServerStore) async throws {
    let (ann, bo) = try await Self.players(store)
    let first = try await Self.send(store, ann, bo, id: "a")
    let again = try await Self.send(store, ann, bo, id: "a")
    let reply = try await Self.send(store, bo, ann, id: "a")
    #expect(first.created && !again.created && reply.created)
    #expect(again.message == first.message)
    #expect(reply.message.threadID == first.message.threadID)
    let counts = (
      try await StoreSQL.integer(store, "SELECT count(*) FROM message_thread"),
      try await StoreSQL.integer(store, "SELECT count(*) FROM direct_message")
    )
    #expect(counts == (1, 2))
    #expect(try await store.events(playerID: bo, after: 0, limit: 10).count == 1)
    await #expect(throws: MessageErrors.clientMessageIDReused) {
      _ = try await Self.send(store, ann, bo, id: "a", text: "other")
    }
    // The pair's thread cannot be made twice, whatever the order of its players.
    await #expect(throws: (any Error).self) {
      try await StoreSQL.execute(
        store,
        """
        INSERT INTO message_thread (low_player_id, high_player_id, created_at_ms)
        VALUES (\(min(ann, bo)), \(max(ann, bo)), 0)
        """)
    }
  }

  @Test(
    "for any text and client message id, the message a send returns is the row as stored",
    arguments: StoreKind.allCases)
  func sentMessage_isTheStoredRow(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.sentMessageIsTheStoredRow(store) }
  }

  private static func sentMessageIsTheStoredRow(_ store: any ServerStore) async throws {
    let (ann, bo) = try await Self.players(store)
    let characters = Gen.character(in: "\u{1}"..."\u{D7FF}")
    await propertyCheck(
      count: 60, input: characters.string(of: 1...64), characters.string(of: 1...300),
      Gen.bool
    ) { clientMessageID, text, reply in
      let (from, to) = reply ? (bo, ann) : (ann, bo)
      let sent = try await store.sendMessage(
        NewMessage(
          senderID: from, recipientID: to, clientMessageID: clientMessageID, text: text,
          sentAtUnixMs: 1_234)
      ) { [($0.recipientID, [1])] }
      let stored = try await store.messages(
        threadID: sent.message.threadID, playerID: from, beforeMessageID: nil, limit: 1)
      #expect(stored == [sent.message])
      let earlier = try await store.messages(
        playerID: from, afterMessageID: sent.message.id - 1, limit: 1)
      #expect(earlier == [sent.message])
    }
  }

  @Test("a write that fails part-way leaves nothing behind", arguments: StoreKind.allCases)
  func failedWrite_isAtomic(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.failedWriteIsAtomic(store) }
  }

  private static func failedWriteIsAtomic(_ store: any ServerStore) async throws {
    let (ann, bo) = try await Self.players(store)
    // An event for a player who does not exist fails the transaction after the insert.
    await #expect(throws: DomainError.playerNotFound) {
      _ = try await store.sendMessage(
        NewMessage(
          senderID: ann, recipientID: bo, clientMessageID: "x", text: "hi", sentAtUnixMs: 0)
      ) { _ in [(999_999, [1])] }
    }
    let rows = try await StoreSQL.integer(
      store,
      """
      SELECT (SELECT count(*) FROM direct_message) + (SELECT count(*) FROM message_thread)
        + (SELECT count(*) FROM message_thread_member)
      """)
    #expect(rows == 0)
  }

  @Test(
    "thread pages of any size, each below the last cursor, make the whole list with one badge",
    arguments: StoreKind.allCases)
  func threadPages_concatenate(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.threadPagesConcatenate(store) }
  }

  private static func threadPagesConcatenate(_ store: any ServerStore) async throws {
    let (ann, _) = try await Self.players(store)
    var others: [Int64] = []
    for index in 0..<6 {
      others.append(
        try await store.createPlayer(StoreFixtures.newPlayer(phone: "+861390000010\(index)")).id)
    }
    // Messages to and from ann in a shuffled order of threads, so threads move to the top.
    var newest: [Int64: Int64] = [:]
    var unread = 0
    for step in 0..<30 {
      let other = others[(step * 7 + step / 4) % others.count]
      let toAnn = step % 3 != 0
      let sent = try await Self.send(
        store, toAnn ? other : ann, toAnn ? ann : other, id: "s\(step)")
      newest[sent.message.threadID] = sent.message.id
      unread += toAnn ? 1 : 0
    }
    // Oracle: the threads by their newest message, newest first.
    let expected = newest.sorted { $0.value > $1.value }.map(\.key)
    for limit in 1...7 {
      var listed: [Int64] = []
      var before: Int64? = nil
      while true {
        let page = try await store.threads(playerID: ann, beforeLastMessageID: before, limit: limit)
        #expect(page.totalUnread == unread)
        #expect(page.threads.count <= limit)
        listed += page.threads.map(\.threadID)
        guard page.threads.count == limit, let last = page.threads.last else { break }
        before = last.lastMessage.id
      }
      #expect(listed == expected)
    }
  }
}
