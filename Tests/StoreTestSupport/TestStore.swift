import BadmintonPostgres
public import BadmintonSQLite
public import BadmintonStore
import PostgresTestCluster

/// A fresh, empty store, and how to close it.
public struct TestStore: Sendable {
  /// The store.
  public let store: any ServerStore
  /// Closes the store's connections (nothing for SQLite in memory).
  public let close: @Sendable () async -> Void

  /// An empty store of `kind`: SQLite in memory, or PostgreSQL on a database of the test cluster
  /// that no other test is using, emptied first.
  public static func make(_ kind: StoreKind) async throws -> TestStore {
    switch kind {
    case .sqlite:
      return TestStore(store: try SQLitePlayerStore.inMemory(), close: {})
    case .postgresql:
      let used = await TestDatabases.shared.turn()
      let database: TestDatabases.Database
      do {
        database = try TestDatabases.empty(used)
      } catch {
        await TestDatabases.shared.give(used)
        throw error
      }
      do {
        let store = try await PostgresStore.open(.init(url: database.url, poolSize: 6))
        return TestStore(
          store: store,
          close: {
            await store.close()
            await TestDatabases.shared.give(database)
          })
      } catch {
        await TestDatabases.shared.give(database)
        throw error
      }
    }
  }
}

/// Runs `body` on an empty store of `kind`, closing it afterwards.
public func withStore<T>(
  _ kind: StoreKind, _ body: (any ServerStore) async throws -> T
) async throws -> T {
  let test = try await TestStore.make(kind)
  do {
    let value = try await body(test.store)
    await test.close()
    return value
  } catch {
    await test.close()
    throw error
  }
}

/// The PostgreSQL databases the tests' stores are opened on: at most `limit` at once, each used
/// by one test at a time, and emptied before the next.
///
/// The tests run in parallel, and each store keeps a few connections (its change tail's two and
/// the pool's), so the bound keeps the cluster within its connections. A new database costs a
/// copy of PostgreSQL's template and every migration; emptying a used one costs one statement,
/// so the whole suite makes only `limit` databases. A test waits here for a turn; one that
/// opens two stores holds one turn while it waits for the second, which the bound leaves room
/// for.
actor TestDatabases {
  static let shared = TestDatabases(limit: 16)

  /// A database of the cluster.
  struct Database: Sendable {
    var name: String
    var url: String
  }

  private var turns: Int
  /// Databases no test is using, as their last test left them.
  private var idle: [Database] = []
  private var waiting: [CheckedContinuation<Database?, Never>] = []

  init(limit: Int) { turns = limit }

  /// Waits for a turn; then a database a test used before, if one is idle, which the caller
  /// empties (`emptying`), or nil, and the caller makes one.
  func turn() async -> Database? {
    guard turns > 0 else { return await withCheckedContinuation { waiting.append($0) } }
    turns -= 1
    return idle.popLast()
  }

  /// Ends a turn, handing `database` (nil when none was made) and the turn to the longest
  /// waiting test.
  func give(_ database: Database?) {
    if waiting.isEmpty {
      turns += 1
      if let database { idle.append(database) }
    } else {
      waiting.removeFirst().resume(returning: database)
    }
  }

  /// `used` emptied, or a new database when there is none.
  nonisolated static func empty(_ used: Database?) throws -> Database {
    if let used {
      try PostgresTestCluster.execute(emptying, in: used.name)
      return used
    }
    let name = PostgresTestCluster.newDatabaseName()
    return Database(name: name, url: try PostgresTestCluster.makeDatabase(named: name))
  }

  /// Empties the database it runs in as a new one is: ends every other session (a store closed
  /// last may still have one that is ending, and none must write after this), deletes every row
  /// but the applied migrations, and starts each identity column from its start again. The
  /// deletes run as a replica's would, without triggers, so they log no changes and need no
  /// order among the foreign keys.
  static let emptying = """
    DO $$
    DECLARE
      name text;
      counter record;
    BEGIN
      PERFORM pg_terminate_backend(pid, 60000) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid();
      PERFORM set_config('session_replication_role', 'replica', true);
      FOR name IN SELECT tablename FROM pg_tables
        WHERE schemaname = 'public' AND tablename <> 'schema_migration'
      LOOP
        EXECUTE format('DELETE FROM %I', name);
      END LOOP;
      FOR counter IN SELECT sequencename, start_value FROM pg_sequences
        WHERE schemaname = 'public'
      LOOP
        PERFORM setval(format('%I', counter.sequencename), counter.start_value, false);
      END LOOP;
    END $$
    """
}
