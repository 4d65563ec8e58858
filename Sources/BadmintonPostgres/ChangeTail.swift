import BadmintonDomain
import BadmintonStore
import BadmintonStoreSQL
import Foundation
import Logging
import NIOPosix
import PostgresNIO
import Synchronization

/// Follows the database's change log from this instance's cursor and hands each transaction's
/// changes to the feed.
///
/// **The order.** The cursor is a transaction id: every transaction below it has been handed on.
/// A read takes one snapshot and hands on the changes of the transactions from the cursor up to
/// the oldest transaction still running when the snapshot was taken (its `xmin`): every one of
/// those has ended, so whatever they committed is visible and none can be added later. They are
/// handed on in transaction id order, one transaction's changes at a time. That order is commit
/// order for any one row: a serializable transaction that changes a row another has changed
/// must have started after that one committed, so its id is the larger. It is the order of each
/// player's events too, which are numbered by a counter on the player's row.
///
/// **What is handed on.** Each changed row as it stands in the read's snapshot. A row changed
/// again by a later transaction is read in its later state, which that transaction hands on once
/// more, so every projection ends where the database is.
///
/// **When it reads.** When a write of this instance wants its change handed on before it
/// returns (`caughtUp(through:)`), when PostgreSQL notifies it that another instance committed a
/// change (`badminton_changes`), and once a second in case a notification was lost while it
/// reconnected. While a write waits behind a transaction still running, it reads again shortly.
/// The reads run on a connection of their own, outside the pool, so a pool busy with writes
/// never holds them up.
///
/// **When the database goes away.** Both connections are made again with a capped, jittered
/// backoff (`ReconnectBackoff.changeTail`), and reading goes on from the cursor, so nothing
/// committed meanwhile (a write whose caller saw its commit cut off included) is missed. While
/// the tail cannot connect, the store counts the database as unreachable (`DatabasePool`).
///
/// **After a crash.** PostgreSQL hands out again, after a crash or an immediate stop, the ids
/// of transactions whose end never reached its write-ahead log: ones that wrote nothing, or were
/// cut off. The cursor may already be past such ids (it moves to the oldest running transaction,
/// whatever later ones wrote), and a new transaction given one of them would be skipped. So the
/// tail also keeps a floor, one more than the largest id it has handed on: every transaction
/// that changed a followed row and ended durably below the cursor is below the floor, and no
/// transaction after a crash gets an id below it. Each time the tail connects, the cursor goes
/// back to the floor; between the two there is nothing it has handed on, so nothing is handed on
/// twice.
final class ChangeTail: Sendable {
  /// Changed rows read in one snapshot at most (more when one transaction changed more).
  static let batch = 20_000
  /// How long the change log is kept: an instance that falls further behind than this stops.
  static let retention: Duration = .seconds(3600)
  /// The connections the tail holds: one to read, one to listen.
  static let connections = 2
  /// Ids for the tail's connections, apart from the pool's (which count up from 0).
  private static let nextConnectionID = Atomic<Int>(1 << 40)

  private struct State {
    /// Every transaction with a smaller id has been handed on.
    var cursor: UInt64
    /// One more than the largest transaction id handed on (at most the cursor): the cursor goes
    /// back to it on every connection, in case a crash hands its ids out again.
    var floor: UInt64
    /// Writes waiting for the cursor to pass their transaction.
    var waiters: [(transaction: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    var started = false
    var stopped = false
    var tasks: [Task<Void, Never>] = []
    var lastPrune: ContinuousClock.Instant?
    /// The tail's open connections, by id.
    var connections: [Int: PostgresConnection] = [:]
  }

  private let database: SQLDatabase
  /// The threads the rows are read back on (`PostgresSession`).
  private let threads: NIOThreadPool
  private let feed: ChangeFeed
  private let logger: Logger
  private let state: Mutex<State>
  private let wake: AsyncStream<Void>.Continuation
  private let wakes: AsyncStream<Void>

  init(
    database: SQLDatabase, threads: NIOThreadPool, feed: ChangeFeed, cursor: UInt64,
    floor: UInt64, logger: Logger
  ) {
    self.database = database
    self.threads = threads
    self.feed = feed
    self.logger = logger
    state = Mutex(State(cursor: cursor, floor: min(floor, cursor)))
    (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  /// Every transaction with a smaller id has been handed to the feed.
  var cursor: UInt64 { state.withLock { $0.cursor } }

  enum Horizon: SQLStatement {
    static let sql = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text"
  }

  /// The oldest transaction still running as `db`'s snapshot sees it: every one below it has
  /// ended.
  static func horizon(_ db: SQLConnection) async throws -> UInt64 {
    guard let text = try await db.row(Horizon.self)?.decode(String.self), let id = UInt64(text)
    else { throw ChangeTailError.unreadableHorizon }
    return id
  }

  /// Starts reading (once).
  func start() {
    let start = state.withLock { state in
      defer { state.started = true }
      return !state.started && !state.stopped
    }
    guard start else { return }
    let reader = Task { await self.readLoop() }
    let listener = Task { await self.listenLoop() }
    let ticker = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(1))
        self.wake.yield()
      }
    }
    state.withLock { $0.tasks = [reader, listener, ticker] }
    wake.yield()
  }

  /// Stops reading, closes the tail's connections and waits for its tasks to end; writes waiting
  /// for the feed fail.
  func stop() async {
    let (tasks, waiters, connections) = state.withLock { state in
      defer {
        state.tasks = []
        state.waiters = []
        state.connections = [:]
        state.stopped = true
      }
      return (state.tasks, state.waiters, Array(state.connections.values))
    }
    for task in tasks { task.cancel() }
    wake.finish()
    for waiter in waiters { waiter.continuation.resume(throwing: CancellationError()) }
    for connection in connections { try? await connection.close() }
    for task in tasks { _ = await task.value }
  }

  /// Returns once the transaction `transaction` (committed) has been handed to the feed. Throws
  /// `DATABASE_UNAVAILABLE` when the tail cannot reach the database, now or before it gets
  /// there: the transaction is handed on once it can (it is in the change log), but this caller
  /// is not kept waiting for it.
  func caughtUp(through transaction: UInt64) async throws {
    start()
    enum Now { case wait, done, stopped, unavailable }
    try await withCheckedThrowingContinuation { continuation in
      let now = state.withLock { state -> Now in
        if state.stopped { return .stopped }
        // Below the floor: handed on. Between the floor and the cursor only if it changed
        // nothing followed, unless a crash gave its id out again: one more read tells.
        if state.floor > transaction { return .done }
        // Checked under this lock, which `failWaiters` takes after the pool is marked
        // unreachable: a waiter added here is either failed there or not added at all.
        if !database.pool.isReachable { return .unavailable }
        state.waiters.append((transaction, continuation))
        return .wait
      }
      switch now {
      case .wait: wake.yield()
      case .done: continuation.resume()
      case .stopped: continuation.resume(throwing: CancellationError())
      case .unavailable: continuation.resume(throwing: DomainError.databaseUnavailable)
      }
    }
  }

  /// Fails every write waiting for the feed with `DATABASE_UNAVAILABLE`.
  private func failWaiters() {
    let waiters = state.withLock { state in
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters {
      waiter.continuation.resume(throwing: DomainError.databaseUnavailable)
    }
  }

  /// Opens one of the tail's own connections (outside the pool, so that the tail finds the
  /// database back on its own schedule, not the pool's) and notes it, so `stop()` can close it.
  private func connect() async throws -> PostgresConnection {
    let id = Self.nextConnectionID.add(1, ordering: .relaxed).newValue
    let (configuration, _) = PostgresStore.connectionConfiguration(
      database.pool.clientConfiguration, connectTimeout: ReconnectBackoff.changeTail.attemptTimeout)
    let connection = try await PostgresConnection.connect(
      configuration: configuration, id: id, logger: logger)
    let stopped = state.withLock { state in
      if !state.stopped { state.connections[id] = connection }
      return state.stopped
    }
    if stopped {
      try? await connection.close()
      throw CancellationError()
    }
    return connection
  }

  /// Closes a connection `connect()` opened.
  private func disconnect(_ connection: PostgresConnection) async {
    _ = state.withLock { $0.connections.removeValue(forKey: connection.id) }
    try? await connection.close()
  }

  /// Reads whenever woken, on a connection of its own. When the connection is lost it connects
  /// again after a wait (`ReconnectBackoff.changeTail`) and reads on from its cursor. While it
  /// cannot connect, the database counts as unreachable: the pool closes and the writes waiting
  /// for the feed fail (`DATABASE_UNAVAILABLE`); the first connection that succeeds opens a new
  /// pool.
  private func readLoop() async {
    // One iterator for the tail's whole life: an `AsyncStream` ends for good when its iterator
    // is dropped, so a loop that made one per connection would stop after the first lost one.
    var wakes = self.wakes.makeAsyncIterator()
    var backoff = ReconnectBackoff.changeTail.makeIterator()
    while !Task.isCancelled {
      let connection: PostgresConnection
      do {
        connection = try await connect()
      } catch {
        if Task.isCancelled || error is CancellationError { return }
        if isDatabaseUnavailable(error) {
          database.pool.markUnreachable()
          failWaiters()
        }
        logger.warning(
          "cannot reach the database to read the change log; trying again",
          metadata: ["error": "\(error)"])
        try? await Task.sleep(for: backoff.next())
        continue
      }
      backoff = ReconnectBackoff.changeTail.makeIterator()
      state.withLock { $0.cursor = min($0.cursor, $0.floor) }
      database.pool.markReachable()
      let db = SQLConnection(connection: connection, logger: logger)
      do {
        // What was committed while no connection read is read at once.
        wake.yield()
        while await wakes.next() != nil {
          try await readAll(db)
          try await pruneIfDue(db)
          if state.withLock({ !$0.waiters.isEmpty }) {
            // A write waits behind a transaction still running. Its end wakes this loop when
            // it was this instance's or changed a followed row; else look again shortly.
            try await Task.sleep(for: .milliseconds(2))
            wake.yield()
          }
        }
        await disconnect(connection)
        return
      } catch {
        await disconnect(connection)
        if Task.isCancelled || error is CancellationError { return }
        logger.warning(
          "lost the connection reading the change log; connecting again",
          metadata: ["error": "\(error)"])
        try? await Task.sleep(for: backoff.next())
      }
    }
  }

  /// Listens for other instances' commits on a connection of its own, connecting again after a
  /// wait (`ReconnectBackoff.changeTail`) when it is lost. The tail also reads once a second, so
  /// a notification lost meanwhile delays a read by a second at most.
  private func listenLoop() async {
    var backoff = ReconnectBackoff.changeTail.makeIterator()
    while !Task.isCancelled {
      do {
        let connection = try await connect()
        do {
          let notifications = try await connection.listen("badminton_changes")
          backoff = ReconnectBackoff.changeTail.makeIterator()
          // Commits made while no one listened are read now.
          wake.yield()
          for try await _ in notifications { wake.yield() }
          await disconnect(connection)
        } catch {
          await disconnect(connection)
          throw error
        }
      } catch {
        if Task.isCancelled || error is CancellationError { return }
        logger.warning(
          "lost the change notifications; listening again", metadata: ["error": "\(error)"])
      }
      try? await Task.sleep(for: backoff.next())
    }
  }

  enum ChangesBetween: SQLStatement {
    static let sql = """
      SELECT txid::text AS transaction, tbl, row_key, deleted FROM change_row
      WHERE txid >= $1::text::xid8 AND txid < $2::text::xid8
      ORDER BY change_row.txid, ord LIMIT $3
      """
  }

  enum ChangesOf: SQLStatement {
    static let sql = """
      SELECT txid::text, tbl, row_key, deleted FROM change_row
      WHERE txid = $1::text::xid8 ORDER BY ord
      """
  }

  enum Probe: SQLStatement {
    static let sql = """
      SELECT pg_snapshot_xmin(pg_current_snapshot())::text,
        EXISTS (SELECT 1 FROM change_row WHERE txid >= $1::text::xid8
          AND txid < pg_snapshot_xmin(pg_current_snapshot())),
        (SELECT max(through_txid) FROM change_log_pruned)::text
      """
  }

  /// Stops the process when changes this instance has not seen were pruned: its projections
  /// cannot be brought up to date from the log, only rebuilt, which a restart does.
  private static func checkNotPruned(_ prunedText: String?, cursor: UInt64) throws {
    guard let prunedText, let pruned = UInt64(prunedText), pruned >= cursor else { return }
    fatalError(
      "this instance fell more than \(retention) behind the change log (at transaction "
        + "\(cursor), pruned below \(pruned)); restart it to rebuild its state")
  }

  enum PrunedThrough: SQLStatement {
    static let sql = "SELECT max(through_txid)::text FROM change_log_pruned"
  }

  /// Reads and hands on everything up to the horizon.
  private func readAll(_ db: SQLConnection) async throws {
    while try await readOnce(db) {}
    let cursor = state.withLock { $0.cursor }
    let ready = state.withLock { state in
      let ready = state.waiters.filter { $0.transaction < cursor }
      state.waiters.removeAll { $0.transaction < cursor }
      return ready
    }
    for waiter in ready { waiter.continuation.resume() }
  }

  /// Reads and hands on the next transactions in one snapshot; true when there may be more
  /// below the horizon.
  private func readOnce(_ db: SQLConnection) async throws -> Bool {
    let cursor = state.withLock { $0.cursor }
    // One statement first: most reads find nothing new, and then need no more.
    guard let probe = try await db.row(Probe.self, String(cursor)) else { return false }
    let (horizonText, pending, prunedText) = try probe.decode((String, Bool, String?).self)
    guard let horizon = UInt64(horizonText) else { throw ChangeTailError.unreadableHorizon }
    try Self.checkNotPruned(prunedText, cursor: cursor)
    if !pending {
      // Every transaction below the horizon has ended and none of those from the cursor on
      // changed a followed row: the cursor moves past them all.
      state.withLock { $0.cursor = max($0.cursor, horizon) }
      return false
    }
    try await db.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    let read: (next: UInt64, more: Bool, last: UInt64?, transactions: [[StoreChange]])
    do {
      read = try await readSnapshot(db, from: cursor)
      try await db.run("COMMIT")
    } catch {
      try? await db.run("ROLLBACK")
      throw error
    }
    for changes in read.transactions where !changes.isEmpty { feed.publish(changes) }
    state.withLock { state in
      state.cursor = max(state.cursor, read.next)
      if let last = read.last { state.floor = max(state.floor, last + 1) }
    }
    return read.more
  }

  /// The changes of the transactions from `cursor` to the horizon, one array per transaction;
  /// where the next read starts, whether there may be more, and the last transaction read.
  private func readSnapshot(_ db: SQLConnection, from cursor: UInt64) async throws
    -> (next: UInt64, more: Bool, last: UInt64?, transactions: [[StoreChange]])
  {
    let horizon = try await Self.horizon(db)
    try Self.checkNotPruned(
      try await db.row(PrunedThrough.self)?.decode(String?.self), cursor: cursor)
    guard horizon > cursor else { return (cursor, false, nil, []) }
    var rows = try await changes(
      db.rows(ChangesBetween.self, String(cursor), String(horizon), Int64(Self.batch)))
    var next = horizon
    var more = false
    if rows.count == Self.batch, let last = rows.last?.transaction {
      // The last transaction may be cut short: read it whole, alone, if it is the only one;
      // else leave it for the next read.
      if rows.first?.transaction == last {
        rows = try await changes(db.rows(ChangesOf.self, String(last)))
        next = last + 1
      } else {
        rows.removeAll { $0.transaction == last }
        next = last
      }
      more = true
    }
    guard !rows.isEmpty else { return (next, more, nil, []) }
    let changed = rows.map(\.row)
    let readBack = try await threads.runIfActive {
      try ReadBack.read(PostgresSession(db: db), changed)
    }
    var transactions: [[StoreChange]] = []
    var start = 0
    while start < rows.count {
      var end = start
      while end < rows.count, rows[end].transaction == rows[start].transaction { end += 1 }
      transactions.append(readBack.changes(rows[start..<end].map(\.row)))
      start = end
    }
    return (next, more, rows.last?.transaction, transactions)
  }

  private func changes(_ rows: [PostgresRow]) throws -> [(transaction: UInt64, row: ChangedRow)] {
    try rows.map { row in
      let (transaction, table, key, deleted) = try row.decode((String, String, Int64, Bool).self)
      guard let id = UInt64(transaction) else { throw ChangeTailError.unreadableHorizon }
      return (id, ChangedRow(table: table, key: key, deleted: deleted))
    }
  }

  /// Once a minute, removes the log older than `retention` and below the horizon (so a
  /// transaction that stays open never has its changes pruned before every instance read them).
  private func pruneIfDue(_ db: SQLConnection) async throws {
    let now = ContinuousClock.now
    let due = state.withLock { state in
      if let last = state.lastPrune, now - last < .seconds(60) { return false }
      state.lastPrune = now
      return true
    }
    guard due else { return }
    try await db.rows(PruneChangeLog.self, "\(Self.retention.components.seconds) seconds")
  }

  enum PruneChangeLog: SQLStatement {
    static let sql = """
      WITH old AS (
        DELETE FROM change_row WHERE noted_at < clock_timestamp() - $1::text::interval
          AND txid < pg_snapshot_xmin(pg_current_snapshot())
        RETURNING txid)
      INSERT INTO change_log_pruned (through_txid)
        SELECT max(txid) FROM old HAVING max(txid) IS NOT NULL
      """
  }
}

/// Why the change log could not be read.
enum ChangeTailError: Error {
  /// PostgreSQL gave a transaction id that is not a number.
  case unreadableHorizon
}

/// One row a transaction changed, as the log names it.
struct ChangedRow: Hashable {
  var table: String
  var key: Int64
  var deleted: Bool
}

/// The rows a batch of transactions changed, read back in one snapshot, by table and key.
struct ReadBack {
  var players: [Int64: PlayerRecord] = [:]
  var sessions: [Int64: SessionRecord] = [:]
  var availabilities: [Int64: AvailabilityRecord] = [:]
  var matches: [Int64: MatchRecord] = [:]
  var blocks: [Int64: BlockChange] = [:]
  var events: [Int64: EventRecord] = [:]
  var suspensions: [Int64: SuspensionRecord] = [:]

  static func read(_ db: any StoreSession, _ rows: [ChangedRow]) throws -> ReadBack {
    var keys: [String: Set<Int64>] = [:]
    for row in rows { keys[row.table, default: []].insert(row.key) }
    func ids(_ table: String...) -> [Int64] {
      Array(table.reduce(into: Set<Int64>()) { $0.formUnion(keys[$1] ?? []) })
    }
    var read = ReadBack()
    if let players = keys["player"] {
      read.players = try Shared.players(db, ids: Array(players))
    }
    if let sessions = keys["session"] {
      for row in try db.rows(SessionsByRowID.self, Array(sessions)) {
        let (rowID, hash, playerID, created, expires) = try row.decode(
          (Int64, [UInt8], Int64, Int64, Int64).self)
        read.sessions[rowID] = SessionRecord(
          tokenHash: hash, playerID: playerID, createdAtUnixMs: created,
          expiresAtUnixMs: expires)
      }
    }
    if let availability = keys["availability"] {
      read.availabilities = try MatchRows.availabilities(db, ids: Array(availability))
    }
    let games = ids("game", "game_participant")
    if !games.isEmpty {
      read.matches = try MatchRows.matches(db, ids: games)
    }
    if let blocks = keys["block"] {
      for row in try db.rows(BlocksByRowID.self, Array(blocks)) {
        let (rowID, blocker, blocked) = try row.decode((Int64, Int64, Int64).self)
        read.blocks[rowID] = BlockChange(blockerID: blocker, blockedID: blocked)
      }
    }
    if let events = keys["event"] {
      for row in try db.rows(EventsByRowID.self, Array(events)) {
        let (rowID, playerID, sequence, created, payload) = try row.decode(
          (Int64, Int64, Int64, Int64, [UInt8]).self)
        read.events[rowID] = EventRecord(
          playerID: playerID, sequence: UInt64(sequence), createdAtUnixMs: created,
          payload: payload)
      }
    }
    if let suspensions = keys["suspension"] {
      read.suspensions = try AdministrationRows.suspensions(db, ids: Array(suspensions))
    }
    return read
  }

  /// One transaction's changes, each row once, in the order it first changed them.
  func changes(_ rows: [ChangedRow]) -> [StoreChange] {
    var seen: Set<String> = []
    var changes: [StoreChange] = []
    for row in rows {
      // A match is one change however many of its rows (the game, its participants) moved.
      let table = row.table == "game_participant" ? "game" : row.table
      guard seen.insert("\(table):\(row.key)").inserted else { continue }
      switch table {
      case "player":
        if let player = players[row.key] { changes.append(.player(player)) }
      case "session":
        changes.append(.session(rowID: row.key, sessions[row.key]))
      case "availability":
        changes.append(.availability(id: row.key, availabilities[row.key]))
      case "game":
        changes.append(.match(id: row.key, matches[row.key]))
      case "block":
        changes.append(.block(rowID: row.key, blocks[row.key]))
      case "event":
        if let event = events[row.key] { changes.append(.event(event)) }
      case "suspension":
        changes.append(.suspension(playerID: row.key, suspensions[row.key]))
      default:
        continue
      }
    }
    return changes
  }

  enum SessionsByRowID: StoreStatement {
    static let sql = """
      SELECT row_id, token_hash, player_id, created_at_ms, expires_at_ms FROM session
      WHERE row_id = ANY($1)
      """
  }
  enum BlocksByRowID: StoreStatement {
    static let sql = "SELECT row_id, blocker_id, blocked_id FROM block WHERE row_id = ANY($1)"
  }
  enum EventsByRowID: StoreStatement {
    static let sql = """
      SELECT row_id, player_id, sequence, created_at_ms, payload FROM event
      WHERE row_id = ANY($1)
      """
  }
}
