import BadmintonStore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Follows the database's commit log from this instance's cursor and hands each commit's
/// changes to the feed, in commit order.
///
/// It reads when woken: by a write of this instance that wants its change handed on before it
/// returns (`caughtUp`), by PostgreSQL's notification on `badminton_changes` that another
/// instance committed, and once a second in case a notification was lost while reconnecting.
/// Each read takes up to `batch` commits in one snapshot, with every row they changed as it
/// stands in that snapshot; a row changed again by a later commit is read in its later state,
/// which that commit then hands on once more, so the projections end where the database is.
final class ChangeTail: Sendable {
  /// Commits read in one snapshot at most.
  static let batch = 256
  /// How long the commit log is kept: an instance that falls further behind than this stops.
  static let retention: Duration = .seconds(3600)

  private struct State {
    var cursor: Int64
    /// Bumped by every request to read; a read that started at `requested` = n answers every
    /// waiter with a number up to n.
    var requested: UInt64 = 0
    var waiters: [(number: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    var started = false
    var tasks: [Task<Void, Never>] = []
    var lastPrune: ContinuousClock.Instant?
  }

  private let database: SQLDatabase
  private let feed: ChangeFeed
  private let logger: Logger
  private let state: Mutex<State>
  private let wake: AsyncStream<Void>.Continuation
  private let wakes: AsyncStream<Void>

  init(database: SQLDatabase, feed: ChangeFeed, cursor: Int64, logger: Logger) {
    self.database = database
    self.feed = feed
    self.logger = logger
    state = Mutex(State(cursor: cursor))
    (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  /// The number of the last commit handed to the feed.
  var cursor: Int64 { state.withLock { $0.cursor } }

  /// Starts reading (once).
  func start() {
    let start = state.withLock { state in
      defer { state.started = true }
      return !state.started
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

  /// Stops reading; writes waiting for the feed fail.
  func stop() {
    let (tasks, waiters) = state.withLock { state in
      defer {
        state.tasks = []
        state.waiters = []
      }
      return (state.tasks, state.waiters)
    }
    for task in tasks { task.cancel() }
    wake.finish()
    for waiter in waiters { waiter.continuation.resume(throwing: CancellationError()) }
  }

  /// Returns once every commit made before the call has been handed to the feed.
  func caughtUp() async throws {
    start()
    try await withCheckedThrowingContinuation { continuation in
      state.withLock { state in
        state.requested += 1
        state.waiters.append((state.requested, continuation))
      }
      wake.yield()
    }
  }

  private func readLoop() async {
    for await _ in wakes {
      let number = state.withLock { $0.requested }
      do {
        while try await readOnce() {}
        let ready = state.withLock { state in
          let ready = state.waiters.filter { $0.number <= number }
          state.waiters.removeAll { $0.number <= number }
          return ready
        }
        for waiter in ready { waiter.continuation.resume() }
        try await pruneIfDue()
      } catch is CancellationError {
        return
      } catch {
        if Task.isCancelled { return }
        logger.warning("cannot read the change log; trying again", metadata: ["error": "\(error)"])
        try? await Task.sleep(for: .milliseconds(100))
        wake.yield()
      }
    }
  }

  /// Listens for other instances' commits on a connection of its own, connecting again when it
  /// is lost.
  private func listenLoop() async {
    while !Task.isCancelled {
      do {
        try await database.client.withConnection { connection in
          let notifications = try await connection.listen("badminton_changes")
          // Commits made while no one listened are read now.
          self.wake.yield()
          for try await _ in notifications { self.wake.yield() }
        }
      } catch {
        if Task.isCancelled { return }
        logger.warning(
          "lost the change notifications; listening again",
          metadata: ["error": "\(error)"])
        try? await Task.sleep(for: .milliseconds(200))
      }
    }
  }

  enum ChangesAfter: SQLStatement {
    static let sql = """
      WITH c AS (SELECT seq, txid FROM commit_log WHERE seq > $1 ORDER BY seq LIMIT $2)
      SELECT c.seq, r.tbl, r.row_key, r.deleted FROM c JOIN change_row r ON r.txid = c.txid
      ORDER BY c.seq, r.ord
      """
  }

  enum PrunedThrough: SQLStatement {
    static let sql = "SELECT COALESCE(max(through_seq), 0)::bigint FROM change_log_pruned"
  }

  /// Reads and hands on the next commits; true when there may be more.
  private func readOnce() async throws -> Bool {
    let cursor = state.withLock { $0.cursor }
    let commits = try await database.snapshot { db -> [(Int64, [StoreChange])] in
      let pruned = try await db.row(PrunedThrough.self)?.decode(Int64.self) ?? 0
      if pruned > cursor {
        // The changes this instance has not seen are gone: its projections cannot be brought
        // up to date from the log, only rebuilt. Stop, and let the restart rebuild them.
        fatalError(
          "this instance fell more than \(Self.retention) behind the change log (at \(cursor), "
            + "pruned through \(pruned)); restart it to rebuild its state")
      }
      var order: [Int64] = []
      var rows: [Int64: [ChangedRow]] = [:]
      for row in try await db.rows(ChangesAfter.self, cursor, Int64(Self.batch)) {
        let (seq, table, key, deleted) = try row.decode((Int64, String, Int64, Bool).self)
        if rows[seq] == nil { order.append(seq) }
        rows[seq, default: []].append(ChangedRow(table: table, key: key, deleted: deleted))
      }
      guard !order.isEmpty else { return [] }
      let all = order.flatMap { rows[$0]! }
      let read = try await ReadBack.read(db, all)
      return order.map { seq in (seq, read.changes(rows[seq]!)) }
    }
    for (seq, changes) in commits {
      if !changes.isEmpty { feed.publish(changes) }
      state.withLock { $0.cursor = seq }
    }
    return commits.count == Self.batch
  }

  /// Once a minute, removes the log older than `retention`.
  private func pruneIfDue() async throws {
    let now = ContinuousClock.now
    let due = state.withLock { state in
      if let last = state.lastPrune, now - last < .seconds(60) { return false }
      state.lastPrune = now
      return true
    }
    guard due else { return }
    try await database.transaction { db in
      try await db.rows(PruneChangeLog.self, "\(Self.retention.components.seconds) seconds")
    }
  }

  enum PruneChangeLog: SQLStatement {
    static let sql = """
      WITH old AS (
        DELETE FROM commit_log WHERE committed_at < clock_timestamp() - $1::interval
        RETURNING seq, txid),
      rows AS (DELETE FROM change_row WHERE txid IN (SELECT txid FROM old))
      INSERT INTO change_log_pruned (through_seq)
        SELECT max(seq) FROM old HAVING max(seq) IS NOT NULL
      """
  }
}

/// One row a commit changed, as the log names it.
struct ChangedRow: Hashable {
  var table: String
  var key: Int64
  var deleted: Bool
}

/// The rows a batch of commits changed, read back in one snapshot, by table and key.
struct ReadBack {
  var players: [Int64: PlayerRecord] = [:]
  var sessions: [Int64: SessionRecord] = [:]
  var availabilities: [Int64: AvailabilityRecord] = [:]
  var matches: [Int64: MatchRecord] = [:]
  var blocks: [Int64: BlockChange] = [:]
  var events: [Int64: EventRecord] = [:]

  static func read(_ db: SQLConnection, _ rows: [ChangedRow]) async throws -> ReadBack {
    var keys: [String: Set<Int64>] = [:]
    for row in rows { keys[row.table, default: []].insert(row.key) }
    func ids(_ table: String...) -> [Int64] {
      Array(table.reduce(into: Set<Int64>()) { $0.formUnion(keys[$1] ?? []) })
    }
    var read = ReadBack()
    if let players = keys["player"] {
      read.players = try await PostgresStore.players(db, ids: Array(players))
    }
    if let sessions = keys["session"] {
      for row in try await db.rows(SessionsByRowID.self, Array(sessions)) {
        let (rowID, hash, playerID, created, expires) = try row.decode(
          (Int64, ByteBuffer, Int64, Int64, Int64).self)
        read.sessions[rowID] = SessionRecord(
          tokenHash: Array(buffer: hash), playerID: playerID, createdAtUnixMs: created,
          expiresAtUnixMs: expires)
      }
    }
    if let availability = keys["availability"] {
      read.availabilities = try await PostgresStore.availabilities(db, ids: Array(availability))
    }
    let games = ids("game", "game_participant")
    if !games.isEmpty {
      read.matches = try await PostgresStore.matches(db, ids: games)
    }
    if let blocks = keys["block"] {
      for row in try await db.rows(BlocksByRowID.self, Array(blocks)) {
        let (rowID, blocker, blocked) = try row.decode((Int64, Int64, Int64).self)
        read.blocks[rowID] = BlockChange(blockerID: blocker, blockedID: blocked)
      }
    }
    if let events = keys["event"] {
      for row in try await db.rows(EventsByRowID.self, Array(events)) {
        let (rowID, playerID, sequence, created, payload) = try row.decode(
          (Int64, Int64, Int64, Int64, ByteBuffer).self)
        read.events[rowID] = EventRecord(
          playerID: playerID, sequence: UInt64(sequence), createdAtUnixMs: created,
          payload: Array(buffer: payload))
      }
    }
    return read
  }

  /// One commit's changes, each row once, in the order the commit first changed it.
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
      default:
        continue
      }
    }
    return changes
  }

  enum SessionsByRowID: SQLStatement {
    static let sql = """
      SELECT row_id, token_hash, player_id, created_at_ms, expires_at_ms FROM session
      WHERE row_id = ANY($1)
      """
  }
  enum BlocksByRowID: SQLStatement {
    static let sql = "SELECT row_id, blocker_id, blocked_id FROM block WHERE row_id = ANY($1)"
  }
  enum EventsByRowID: SQLStatement {
    static let sql = """
      SELECT row_id, player_id, sequence, created_at_ms, payload FROM event
      WHERE row_id = ANY($1)
      """
  }
}
