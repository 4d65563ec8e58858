import BadmintonDomain
import BadmintonPostgres
import BadmintonStoreSQL
import GRDB
import PostgresTestCluster
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

@Suite("Commit timing on PostgreSQL")
struct PostgresCommitTimingTests {
  @Test(
    "each write transaction's COMMIT is timed once, a refused write's batch too (it commits empty)")
  func commits_areTimedOnce() async throws {
    let store = try await PostgresStore.open(
      .init(url: try PostgresTestCluster.makeDatabase(), poolSize: 4))
    let timed = Mutex<[Duration]>([])
    store.observeCommitDurations { duration in timed.withLock { $0.append(duration) } }
    _ = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000001"))
    #expect(timed.withLock { $0.count } == 1)
    // PHONE_TAKEN is found before anything is written: the write fails alone and its batch's
    // transaction still commits, with nothing in it.
    await #expect(throws: DomainError.self) {
      _ = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000001"))
    }
    #expect(timed.withLock { $0.count } == 2)
    // Reads commit nothing that is timed.
    _ = try await store.player(phone: "+8613900000001")
    _ = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000002"))
    let durations = timed.withLock { $0 }
    #expect(durations.count == 3 && durations.allSatisfy { $0 > .zero })
    await store.close()
  }
}
