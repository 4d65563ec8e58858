import BadmintonDomain
import BadmintonStore
import BadmintonStoreSQL
import PostgresNIO
import PostgresTestCluster
import Synchronization
import Testing

@testable import BadmintonPostgres

/// The transactions a feed published.
private final class Published: Sendable {
  let list = Mutex<[CommittedChanges]>([])
}

/// A write that waits until it is let go, holding its lane, so that the writes made meanwhile
/// queue up and are taken together.
private final class Gate: Sendable {
  private let stream: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation
  let entered = Atomic(false)

  init() {
    (stream, continuation) = AsyncStream.makeStream(of: Void.self)
  }

  /// Holds the store's only lane until `open()`; returns once the held write runs, so that
  /// every write made after it waits for the next batch.
  func hold(_ store: PostgresStore) async -> Task<Void, any Error> {
    let held = Task {
      try await store.write { _ in
        self.entered.store(true, ordering: .releasing)
        for await _ in self.stream { break }
      }
    }
    while !entered.load(ordering: .acquiring) { await Task.yield() }
    return held
  }

  func open() { continuation.yield(()) }
}

private struct PartWay: Error, Equatable {}

/// Renames a player: a modifying statement a test write runs before it throws.
private enum RenamePlayer: SQLStatement {
  static let sql = "UPDATE player SET nickname = $2 WHERE id = $1"
}

/// A statement PostgreSQL refuses (division by zero), which aborts the transaction it runs in.
private enum RefusedStatement: SQLStatement {
  static let sql = "SELECT 1 / (SELECT count(*) - count(*) FROM player)"
}

@Suite("PostgreSQL store: writes committed together")
struct PostgresWriteBatchTests {
  /// A store on a new database (one lane for writes), its feed started and recorded.
  private static func store() async throws -> (PostgresStore, Published) {
    let store = try await PostgresStore.open(
      .init(url: try PostgresTestCluster.makeDatabase(), poolSize: 4))
    #expect(PostgresStore.writeLanes == 1)
    let published = Published()
    store.feed.subscribe { committed in published.list.withLock { $0.append(committed) } }
    store.startFeed()
    return (store, published)
  }

  private static func player(_ store: PostgresStore, _ phone: String) async throws -> Int64 {
    try await store.createPlayer(StoreFixtures.newPlayer(phone: phone)).id
  }

  /// Waits until `count` writes wait behind the held one.
  private static func waitUntilQueued(_ store: PostgresStore, _ gate: Gate, _ count: Int) async {
    while store.batches.queuedCount < count { await Task.yield() }
  }

  @Test("writes of every kind waiting together share one transaction, a refused one alone")
  func waitingWrites_shareOneTransaction() async throws {
    let (store, published) = try await Self.store()
    let ann = try await Self.player(store, "+8613900000101")
    let bo = try await Self.player(store, "+8613900000102")
    let carl = try await Self.player(store, "+8613900000103")
    let session = SessionRecord(
      tokenHash: [9, 9, 9], playerID: ann, createdAtUnixMs: 0, expiresAtUnixMs: 1_000)
    try await store.createSession(session)
    try await store.synchronize()
    let gate = Gate()
    let held = await gate.hold(store)
    let before = published.list.withLock { $0.count }
    // None depends on another (they queue in any order); the location update of a player who
    // does not exist is refused.
    let writes: [Task<Void, any Error>] = [
      Task { _ = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613900000104")) },
      Task { _ = try await store.updateProfile(id: ann, ProfileChanges(nickname: "Ann")) },
      Task {
        _ = try await store.updateLocation(id: bo, to: MatchingStoreTests.shanghai, atUnixMs: 1)
      },
      Task {
        _ = try await store.updateLocation(
          id: 999_999, to: MatchingStoreTests.shanghai, atUnixMs: 1)
      },
      Task { try await store.deleteSession(tokenHash: session.tokenHash) },
      Task {
        _ = try await store.createAvailability(
          MatchingStoreTests.availability(ann), activeLimit: 10, now: 0)
      },
      Task {
        _ = try await store.sendMessage(
          NewMessage(
            senderID: bo, recipientID: ann, clientMessageID: "together", text: "hi",
            sentAtUnixMs: 1_000)
        ) { [($0.recipientID, Array("message \($0.id)".utf8))] }
      },
      Task { try await store.block(blockerID: ann, blockedID: carl, now: 0) },
    ]
    await Self.waitUntilQueued(store, gate, writes.count)
    gate.open()
    try await held.value
    for (index, write) in writes.enumerated() {
      if index == 3 {
        await #expect(throws: DomainError.playerNotFound) { try await write.value }
      } else {
        try await write.value
      }
    }
    let transactions = published.list.withLock { Array($0.dropFirst(before)) }
    #expect(transactions.count == 1)
    #expect(try await store.player(id: ann)?.nickname == "Ann")
    #expect(try await store.player(id: bo)?.location == MatchingStoreTests.shanghai)
    #expect(try await store.player(phone: "+8613900000104") != nil)
    #expect(try await store.session(tokenHash: session.tokenHash) == nil)
    #expect(try await store.activeAvailability(playerID: ann, now: 0).count == 1)
    #expect(try await store.hasBlocked(ann, carl))
    #expect(try await store.events(playerID: ann, after: 0, limit: 10).count == 1)
    await store.close()
  }

  @Test(
    "a write that fails after changing rows, or whose statement PostgreSQL refuses, leaves nothing and fails alone"
  )
  func failingWrites_failAlone() async throws {
    let (store, _) = try await Self.store()
    let ann = try await Self.player(store, "+8613900000111")
    let bo = try await Self.player(store, "+8613900000112")
    let carl = try await Self.player(store, "+8613900000113")
    let gate = Gate()
    let held = await gate.hold(store)
    let renameBo = Task {
      _ = try await store.updateProfile(id: bo, ProfileChanges(nickname: "Bo"))
    }
    let partWay = Task {
      try await store.write { db in
        try await db.rows(RenamePlayer.self, ann, "Never")
        throw PartWay()
      }
    }
    let refused = Task {
      try await store.write { db in
        try await db.rows(RenamePlayer.self, carl, "Never")
        try await db.rows(RefusedStatement.self)
      }
    }
    let renameCarl = Task {
      _ = try await store.updateProfile(id: carl, ProfileChanges(nickname: "Carl"))
    }
    await Self.waitUntilQueued(store, gate, 4)
    gate.open()
    try await held.value
    try await renameBo.value
    try await renameCarl.value
    await #expect(throws: PartWay.self) { try await partWay.value }
    let refusal = await #expect(throws: PSQLError.self) { try await refused.value }
    #expect(refusal.map(sqlState) == "22012")
    #expect(try await store.player(id: ann)?.nickname == StoreFixtures.newPlayer().nickname)
    #expect(try await store.player(id: bo)?.nickname == "Bo")
    #expect(try await store.player(id: carl)?.nickname == "Carl")
    await store.close()
  }

  @Test(
    "two instances moving the same players at once: every move is applied once, however the batches meet"
  )
  func contendedBatches_applyEveryWriteOnce() async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let first = try await PostgresStore.open(.init(url: url, poolSize: 6))
    let second = try await PostgresStore.open(.init(url: url, poolSize: 6))
    first.startFeed()
    second.startFeed()
    var players: [Int64] = []
    for index in 0..<8 {
      players.append(try await Self.player(first, "+86139000002\(index)"))
    }
    let rounds = 6
    try await withThrowingTaskGroup(of: Void.self) { group in
      for store in [first, second] {
        for player in players {
          group.addTask {
            for round in 0..<rounds {
              _ = try await store.updateLocation(
                id: player, to: MatchingStoreTests.shanghai, atUnixMs: Int64(round))
            }
          }
        }
      }
      try await group.waitForAll()
    }
    for player in players {
      // Each move adds one to the player's location revision.
      let revision = try await first.allLocations().first { $0.playerID == player }?.revision
      #expect(revision == Int64(2 * rounds))
    }
    await first.close()
    await second.close()
  }
}
