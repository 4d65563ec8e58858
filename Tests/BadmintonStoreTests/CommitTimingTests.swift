import BadmintonStoreSQL
import GRDB
import Synchronization
import Testing

@testable import BadmintonSQLite
@testable import BadmintonStore

@Suite("Commit timing")
struct CommitTimingTests {
  @Test("each committed transaction is timed once; a rolled-back one is not")
  func commits_areTimedOnce() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let timed = Mutex<[Duration]>([])
    store.observeCommitDurations { duration in timed.withLock { $0.append(duration) } }

    _ = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000001"))
    #expect(timed.withLock { $0.count } == 1)

    struct Abandon: Error {}
    await #expect(throws: Abandon.self) {
      try await store.writer.write { db in
        try db.execute(sql: "UPDATE player SET nickname = 'x'")
        throw Abandon()
      }
    }
    #expect(timed.withLock { $0.count } == 1)

    _ = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000002"))
    let durations = timed.withLock { $0 }
    #expect(durations.count == 2)
    #expect(durations.allSatisfy { $0 >= .zero })
  }
}
