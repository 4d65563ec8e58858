import BadmintonDomain
import BadmintonStore
import BadmintonStoreSQL
import Foundation
import Logging
import PostgresNIO
import PostgresTestCluster
import Synchronization
import Testing

@testable import BadmintonPostgres

/// The store when its database restarts at once (`pg_ctl restart -m immediate`), on a cluster of
/// the test's own. Each wait is bounded by a generous deadline only so that a hang fails the test
/// instead of stopping the run.
@Suite("PostgreSQL store: the database restarting", .serialized)
struct PostgresRestartTests {
  /// The outcome of `body`, or nil when it has not ended after `patience` (it is left running).
  static func outcome<T: Sendable>(
    within patience: Duration = .seconds(60),
    _ body: @escaping @Sendable () async throws -> T
  ) async -> Result<T, any Error>? {
    let first = Mutex<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)
    return await withCheckedContinuation { continuation in
      first.withLock { $0 = continuation }
      let resume = { @Sendable (value: Result<T, any Error>?) in
        first.withLock { stored in
          stored?.resume(returning: value)
          stored = nil
        }
      }
      Task {
        do {
          resume(.success(try await body()))
        } catch {
          resume(.failure(error))
        }
      }
      Task {
        try? await Task.sleep(for: patience)
        resume(nil)
      }
    }
  }

  /// Runs `body`, which waits for a program, on a thread of its own.
  static func blocking(_ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
  }

  @Test("a statement on a connection the restart ended fails as DATABASE_UNAVAILABLE, at once")
  func statementOnEndedConnection_failsInsteadOfHanging() async throws {
    let cluster = try PostgresTestCluster.makePrivate()
    defer { cluster.remove() }
    let url = try cluster.makeDatabase()
    let (configuration, _) = PostgresStore.connectionConfiguration(
      try PostgresStore.clientConfiguration(url: url), connectTimeout: .seconds(10))
    let logger = Logger(label: "test")
    let connection = try await PostgresConnection.connect(
      configuration: configuration, id: 1, logger: logger)
    let db = SQLConnection(connection: connection, logger: logger)
    #expect(try await db.row(ChangeTail.Horizon.self) != nil)

    try await Self.blocking { try cluster.restart() }
    // The server ended the session while the connection sat idle.
    let closed = await Self.outcome { try await connection.closeFuture.get() }
    #expect(closed != nil)

    // postgres-nio alone never answers a statement written to a closed connection.
    let outcome = await Self.outcome { try await db.row(ChangeTail.Horizon.self) != nil }
    let result = try #require(outcome, "the statement was never answered")
    #expect(throws: (any Error).self) { try result.get() }
    if case .failure(let error) = result {
      #expect(isDatabaseUnavailable(error))
      let shown = storableError(error) as? DomainError
      #expect(shown?.kind == .unavailable)
      #expect(shown?.reason == "DATABASE_UNAVAILABLE")
      #expect(shown?.retryAfterMs == 1000)
    }
  }

  @Test(
    "after a crash that hands transaction ids out again, a write through the store reaches its feed before it returns"
  )
  func reusedTransactionIDs_reachTheFeed() async throws {
    // The WAL writer waits 10 s: the ends of the transactions that wrote nothing stay unwritten
    // until the restart, so PostgreSQL hands their ids out again after it.
    let cluster = try PostgresTestCluster.makePrivate(settings: ["wal_writer_delay": "10s"])
    defer { cluster.remove() }
    let url = try cluster.makeDatabase()
    let store = try await PostgresStore.open(.init(url: url, poolSize: 4))
    let events = Mutex<[UInt64]>([])
    store.feed.subscribe { changes in
      for case .event(let event) in changes.changes {
        events.withLock { $0.append(event.sequence) }
      }
    }
    store.startFeed()
    let player = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800138000"))
    _ = try await store.appendEvent(playerID: player.id, payload: [1], atUnixMs: 1)
    // Transactions that take an id and write nothing: the tail's cursor moves past them.
    for _ in 0..<5 { try await store.synchronize() }

    try await Self.blocking { try cluster.restart() }

    // Until the store has found the database again its calls fail as DATABASE_UNAVAILABLE.
    let appended = await Self.outcome {
      while true {
        do {
          return try await store.appendEvent(playerID: player.id, payload: [2], atUnixMs: 2)
        } catch let error as DomainError where error.reason == "DATABASE_UNAVAILABLE" {
          try await Task.sleep(for: .milliseconds(100))
        }
      }
    }
    let sequence = try #require(appended, "the store never served again").get()
    #expect(sequence == 2)
    // The write returned once the feed had it, whatever id it was given.
    #expect(events.withLock { $0 } == [1, 2])
    let after = await Self.outcome { try await store.synchronize() }
    #expect(after != nil)
    #expect(events.withLock { $0 } == [1, 2])
    #expect(store.database.pool.isReachable)
    await store.close()
  }
}
