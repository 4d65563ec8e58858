import BadmintonDomain
import BadmintonStoreSQL
import Dispatch
import GRDB
import Synchronization
import Testing

@testable import BadmintonSQLite
@testable import BadmintonStore

/// The transactions a feed published, and the times grouped writes ran.
private final class Published: Sendable {
  let list = Mutex<[CommittedChanges]>([])
  let runs = Mutex(0)
}

@Suite("Group commit")
struct GroupCommitTests {
  /// A store on a queue the test can also hold and query directly, and every transaction its
  /// feed published.
  private static func store() throws -> (SQLitePlayerStore, DatabaseQueue, Published) {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
    let queue = try DatabaseQueue(configuration: configuration)
    let store = try SQLitePlayerStore(writer: queue)
    let published = Published()
    store.feed.subscribe { committed in published.list.withLock { $0.append(committed) } }
    return (store, queue, published)
  }

  private static func players(_ store: SQLitePlayerStore) async throws -> (Int64, Int64) {
    let ann = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000001"))
    let bo = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000002"))
    return (ann.id, bo.id)
  }

  private static func send(_ store: SQLitePlayerStore, _ from: Int64, _ to: Int64, id: String)
    async throws -> MessageSendOutcome
  {
    try await store.sendMessage(
      NewMessage(
        senderID: from, recipientID: to, clientMessageID: id, text: "hi", sentAtUnixMs: 1_000)
    ) { [($0.recipientID, Array("message \($0.id)".utf8))] }
  }

  /// Holds the store's writer until the returned gate is opened, so that the writes made
  /// meanwhile queue up and are taken together.
  private static func holdWriter(_ queue: DatabaseQueue) -> DispatchSemaphore {
    let gate = DispatchSemaphore(value: 0)
    queue.asyncWriteWithoutTransaction { _ in gate.wait() }
    return gate
  }

  /// Waits until `count` writes are queued.
  private static func waitUntilQueued(_ store: SQLitePlayerStore, _ count: Int) async {
    while store.grouped.queuedCount < count { await Task.yield() }
  }

  @Test("many concurrent sends all commit, and each failing one fails alone with its own error")
  func concurrentWrites_commitAndFailAlone() async throws {
    let (store, queue, _) = try Self.store()
    let (ann, bo) = try await Self.players(store)
    let outcomes = try await withThrowingTaskGroup(of: (Int, Result<Int64, DomainError>).self) {
      group in
      for index in 0..<300 {
        group.addTask {
          // Every tenth is to the sender, every tenth and fifth to nobody: both refused.
          let recipient = index % 10 == 0 ? ann : index % 10 == 5 ? 999_999 : bo
          do {
            return (
              index,
              .success(try await Self.send(store, ann, recipient, id: "m\(index)").message.id)
            )
          } catch let error as DomainError {
            return (index, .failure(error))
          }
        }
      }
      return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
    }
    for (index, outcome) in outcomes {
      switch index % 10 {
      case 0: #expect(throws: MessageErrors.notYourself) { try outcome.get() }
      case 5: #expect(throws: DomainError.playerNotFound) { try outcome.get() }
      default: #expect((try? outcome.get()) != nil)
      }
    }
    let sent = Set(outcomes.values.compactMap { try? $0.get() })
    #expect(sent.count == 240)
    let (stored, sequences) = try await queue.read { db in
      (
        try Int64.fetchSet(db, sql: "SELECT id FROM direct_message"),
        try Int64.fetchAll(
          db, sql: "SELECT sequence FROM event WHERE player_id = ? ORDER BY sequence",
          arguments: [bo])
      )
    }
    #expect(stored == sent)
    // One event per message, numbered without a gap.
    #expect(sequences == Array(1...240))
  }

  @Test("writes waiting together commit in one transaction, published once, a failing one alone")
  func waitingWrites_shareOneTransaction() async throws {
    let (store, queue, published) = try Self.store()
    let (ann, bo) = try await Self.players(store)
    let before = published.list.withLock { $0.count }
    let gate = Self.holdWriter(queue)
    let sends = (0..<10).map { index in
      Task { try await Self.send(store, ann, index == 4 ? ann : bo, id: "m\(index)") }
    }
    await Self.waitUntilQueued(store, 10)
    gate.signal()
    for (index, send) in sends.enumerated() {
      if index == 4 {
        await #expect(throws: MessageErrors.notYourself) { try await send.value }
      } else {
        #expect(try await send.value.created)
      }
    }
    let transactions = published.list.withLock { Array($0.dropFirst(before)) }
    #expect(transactions.count == 1)
    let events = transactions.flatMap(\.changes).compactMap { change -> UInt64? in
      if case .event(let record) = change { return record.sequence }
      return nil
    }
    #expect(events == Array(1...9))
    // Numbering the events changes no player record: the feed gives none.
    #expect(
      !transactions.flatMap(\.changes).contains { change in
        if case .player = change { return true }
        return false
      })
    #expect(
      try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM direct_message")
      } == 9)
  }

  @Test("writes of every kind waiting together share one transaction, a refused one alone")
  func everyKindOfWrite_sharesOneTransaction() async throws {
    let (store, queue, published) = try Self.store()
    let (ann, bo) = try await Self.players(store)
    let session = SessionRecord(
      tokenHash: [9, 9, 9], playerID: ann, createdAtUnixMs: 0, expiresAtUnixMs: 1_000)
    try await store.createSession(session)
    let carl = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000004")).id
    let before = published.list.withLock { $0.count }
    let gate = Self.holdWriter(queue)
    // One write of each area of the store, none depending on another (they queue in any
    // order); the location update of a player who does not exist is refused.
    let writes: [Task<Void, any Error>] = [
      Task { _ = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000003")) },
      Task { _ = try await store.updateProfile(id: ann, ProfileChanges(nickname: "Ann")) },
      Task {
        _ = try await store.updateLocation(
          id: bo, to: MatchingStoreTests.shanghai, atUnixMs: 1_000)
      },
      Task {
        _ = try await store.updateLocation(
          id: 999_999, to: MatchingStoreTests.shanghai, atUnixMs: 1_000)
      },
      Task { try await store.deleteSession(tokenHash: session.tokenHash) },
      Task {
        _ = try await store.createAvailability(
          MatchingStoreTests.availability(ann), activeLimit: 10, now: 0)
      },
      Task { _ = try await Self.send(store, bo, ann, id: "together") },
      Task { try await store.block(blockerID: ann, blockedID: carl, now: 0) },
      Task {
        try await store.setDayStatus(
          DayStatusRecord(
            playerID: ann, date: LocalDate(year: 2027, month: 1, day: 15), status: 1, note: "",
            updatedAtUnixMs: 0))
      },
      Task {
        _ = try await store.createRoom(
          ownerID: ann, mode: .singles, now: 0, code: { "ABCDEF" }, notify: { _ in [] })
      },
    ]
    await Self.waitUntilQueued(store, writes.count)
    gate.signal()
    for (index, write) in writes.enumerated() {
      if index == 3 {
        await #expect(throws: DomainError.playerNotFound) { try await write.value }
      } else {
        try await write.value
      }
    }
    let transactions = published.list.withLock { Array($0.dropFirst(before)) }
    #expect(transactions.count == 1)
    let counts = try await queue.read { db in
      try [
        "player", "session", "availability", "direct_message", "block", "day_status", "room",
      ].map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)")! }
    }
    #expect(counts == [4, 0, 1, 1, 1, 1, 1])
  }

  @Test("when the shared transaction fails to commit, every write in it fails and none remains")
  func failedCommit_failsEveryCaller() async throws {
    let (store, queue, published) = try Self.store()
    let (ann, bo) = try await Self.players(store)
    let before = published.list.withLock { $0.count }
    let gate = Self.holdWriter(queue)
    let sends = (0..<5).map { index in Task { try await Self.send(store, ann, bo, id: "m\(index)") }
    }
    // A write whose own savepoint succeeds but which leaves a broken reference that only the
    // commit checks: the commit fails.
    let breaking = Task {
      try await store.grouped.write { db in
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        try db.execute(
          sql:
            "INSERT INTO event (player_id, sequence, created_at_ms, payload) VALUES (999999, 1, 0, x'00')"
        )
      }
    }
    await Self.waitUntilQueued(store, 6)
    gate.signal()
    for send in sends {
      let error = await #expect(throws: DatabaseError.self) { try await send.value }
      #expect(error?.resultCode == .SQLITE_CONSTRAINT)
    }
    await #expect(throws: DatabaseError.self) { try await breaking.value }
    #expect(published.list.withLock { $0.count } == before)
    let (messages, events) = try await queue.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM direct_message"),
        try Int.fetchOne(db, sql: "SELECT count(*) FROM event")
      )
    }
    #expect(messages == 0)
    #expect(events == 0)
    // The store goes on: the next write commits.
    #expect(try await Self.send(store, ann, bo, id: "after").created)
  }

  /// A write that changes a row, then throws.
  private struct PartWay: Error {}

  @Test("a write that throws after changing rows keeps none of them, and the others commit")
  func partWrittenFailure_isUndoneAlone() async throws {
    let (store, queue, published) = try Self.store()
    let (ann, bo) = try await Self.players(store)
    let before = published.list.withLock { $0.count }
    let gate = Self.holdWriter(queue)
    let first = (0..<3).map { index in Task { try await Self.send(store, ann, bo, id: "a\(index)") }
    }
    await Self.waitUntilQueued(store, 3)
    let failing = Task {
      try await store.grouped.write { db in
        try db.execute(
          sql: "UPDATE player SET nickname = 'Never' WHERE id = ?", arguments: [ann])
        try db.execute(
          sql:
            "INSERT INTO event (player_id, sequence, created_at_ms, payload) VALUES (?, 77, 0, x'00')",
          arguments: [ann])
        throw PartWay()
      }
    }
    await Self.waitUntilQueued(store, 4)
    let last = (3..<6).map { index in Task { try await Self.send(store, ann, bo, id: "a\(index)") }
    }
    await Self.waitUntilQueued(store, 7)
    gate.signal()
    await #expect(throws: PartWay.self) { try await failing.value }
    var ids: [Int64] = []
    for send in first + last { ids.append(try await send.value.message.id) }
    #expect(ids == ids.sorted())
    let transactions = published.list.withLock { Array($0.dropFirst(before)) }
    #expect(transactions.count == 1)
    let changes = transactions.flatMap(\.changes)
    // Only the six messages' events: the failing write's player change and event are gone.
    #expect(
      changes.map { change -> Int64? in
        if case .event(let record) = change { return record.playerID }
        return nil
      } == Array(repeating: bo, count: 6))
    let (nickname, annEvents, messages) = try await queue.read { db in
      (
        try String.fetchOne(db, sql: "SELECT nickname FROM player WHERE id = ?", arguments: [ann]),
        try Int.fetchOne(
          db, sql: "SELECT count(*) FROM event WHERE player_id = ?", arguments: [ann]),
        try Int64.fetchAll(db, sql: "SELECT id FROM direct_message ORDER BY id")
      )
    }
    #expect(nickname != "Never")
    #expect(annEvents == 0)
    #expect(messages == ids)
  }

  @Test("a write refused before it changes anything costs the group no second run")
  func cleanRefusal_runsEachWriteOnce() async throws {
    let (store, queue, _) = try Self.store()
    let (ann, bo) = try await Self.players(store)
    let runs = Published()
    let gate = Self.holdWriter(queue)
    let writes = (0..<6).map { index in
      Task {
        try await store.grouped.write { db in
          runs.runs.withLock { $0 += 1 }
          // The third is refused by a read, before it writes.
          if index == 2,
            try Int.fetchOne(db, sql: "SELECT count(*) FROM player WHERE id = ?", arguments: [ann])
              == 1
          {
            throw PartWay()
          }
          try db.execute(
            sql:
              "INSERT INTO event (player_id, sequence, created_at_ms, payload) VALUES (?, ?, 0, x'00')",
            arguments: [bo, index])
        }
      }
    }
    await Self.waitUntilQueued(store, 6)
    gate.signal()
    for (index, write) in writes.enumerated() {
      if index == 2 {
        await #expect(throws: PartWay.self) { try await write.value }
      } else {
        try await write.value
      }
    }
    #expect(runs.runs.withLock { $0 } == 6)
    #expect(
      try await queue.read { db in
        try Int.fetchOne(db, sql: "SELECT count(*) FROM event WHERE player_id = ?", arguments: [bo])
      } == 5)
  }
}
