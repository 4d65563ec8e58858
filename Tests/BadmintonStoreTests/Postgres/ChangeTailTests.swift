import BadmintonDomain
import BadmintonStore
import BadmintonStoreSQL
import PostgresNIO
import PostgresTestCluster
import PropertyBased
import Synchronization
import Testing

@testable import BadmintonPostgres

/// The state a feed's changes build: the oracle the tables are compared with.
private final class FeedModel: Sendable {
  struct State {
    var sessions: [Int64: SessionRecord] = [:]
    var blocks: [Int64: BlockChange] = [:]
    var events: [Int64: [UInt64]] = [:]
    var players: [Int64: PlayerRecord] = [:]
    var suspensions: [Int64: SuspensionRecord] = [:]
  }
  private let state = Mutex(State())

  var current: State { state.withLock { $0 } }

  func apply(_ committed: CommittedChanges) {
    state.withLock { state in
      for change in committed.changes {
        switch change {
        case .session(let rowID, let session): state.sessions[rowID] = session
        case .block(let rowID, let block): state.blocks[rowID] = block
        case .event(let event): state.events[event.playerID, default: []].append(event.sequence)
        case .player(let player): state.players[player.id] = player
        case .suspension(let playerID, let suspension): state.suspensions[playerID] = suspension
        case .availability, .match: break
        }
      }
    }
  }
}

/// One write of the random workload.
private enum Step: CaseIterable {
  case login, logout, block, unblock, event, rename, suspend, lift
}

@Suite("PostgreSQL store: the change tail across instances")
struct ChangeTailTests {
  /// Two stores on one new database, with their feeds started.
  static func pair() async throws -> (PostgresStore, PostgresStore) {
    let url = try PostgresTestCluster.makeDatabase()
    let first = try await PostgresStore.open(.init(url: url, poolSize: 5))
    let second = try await PostgresStore.open(.init(url: url, poolSize: 5))
    return (first, second)
  }

  @Test(
    "for any writes made through two instances at once (suspensions too), each instance's feed builds the state the tables hold, and hands each player's events on in order, without a gap"
  )
  func feeds_followBothInstances() async throws {
    await propertyCheck(
      count: 12,
      input: Gen.int(in: 0..<Step.allCases.count).array(of: 10...40),
      Gen.int(in: 0..<Step.allCases.count).array(of: 10...40)
    ) { firstSteps, secondSteps in
      let (first, second) = try await Self.pair()
      let models = [FeedModel(), FeedModel()]
      for (store, model) in zip([first, second], models) {
        store.feed.subscribe(model.apply)
        store.startFeed()
      }
      var players: [Int64] = []
      for index in 0..<3 {
        players.append(
          try await first.createPlayer(StoreFixtures.newPlayer(phone: "+861380013800\(index)")).id)
      }
      let ids = players
      @Sendable func run(_ store: PostgresStore, _ steps: [Int], tag: UInt8) async throws {
        for (index, raw) in steps.enumerated() {
          let player = ids[index % ids.count]
          let other = ids[(index + 1) % ids.count]
          let token: [UInt8] = [tag, UInt8(index % 4)]
          switch Step.allCases[raw] {
          case .login:
            try? await store.createSession(
              SessionRecord(
                tokenHash: token, playerID: player, createdAtUnixMs: 1,
                expiresAtUnixMs: 9_000_000_000_000))
          case .logout:
            try await store.deleteSession(tokenHash: token)
          case .block:
            try? await store.block(blockerID: player, blockedID: other, now: 1)
          case .unblock:
            _ = try await store.unblock(blockerID: player, blockedID: other)
          case .event:
            _ = try await store.appendEvent(playerID: player, payload: [tag], atUnixMs: 1)
          case .rename:
            _ = try await store.updateProfile(
              id: player, ProfileChanges(nickname: "n\(tag)-\(index)"))
          case .suspend:
            try await store.suspend(
              SuspensionRecord(
                playerID: player, untilUnixMs: 9_000_000_000_000 + Int64(index),
                reason: "r\(tag)", administratorID: other, atUnixMs: 1))
          case .lift:
            try? await store.liftSuspension(
              playerID: player, note: "", administratorID: other, atUnixMs: 1)
          }
        }
      }
      async let a: Void = run(first, firstSteps, tag: 1)
      async let b: Void = run(second, secondSteps, tag: 2)
      _ = try await (a, b)
      try await first.synchronize()
      try await second.synchronize()

      // The tables, read fresh.
      let sessions = Mutex<[Int64: SessionRecord]>([:])
      try await first.replaySessions(nowUnixMs: 0) { change in
        if case .session(let rowID, let session?) = change {
          sessions.withLock { $0[rowID] = session }
        }
      }
      let blocks = Mutex<[Int64: BlockChange]>([:])
      try await first.replayBlocks { change in
        if case .block(let rowID, let block?) = change { blocks.withLock { $0[rowID] = block } }
      }
      let suspensions = Mutex<[Int64: SuspensionRecord]>([:])
      try await first.replaySuspensions { change in
        if case .suspension(let playerID, let suspension?) = change {
          suspensions.withLock { $0[playerID] = suspension }
        }
      }
      var events: [Int64: [UInt64]] = [:]
      var stored: [Int64: PlayerRecord] = [:]
      for player in ids {
        let sequences = try await first.events(playerID: player, after: 0, limit: 1000).map(
          \.sequence)
        if !sequences.isEmpty { events[player] = sequences }
        stored[player] = try await first.player(id: player)
      }
      for model in models {
        let state = model.current
        #expect(state.sessions.compactMapValues { $0 } == sessions.withLock { $0 })
        #expect(state.blocks.compactMapValues { $0 } == blocks.withLock { $0 })
        #expect(state.suspensions.compactMapValues { $0 } == suspensions.withLock { $0 })
        #expect(state.events == events)
        #expect(state.players == stored)
        for sequences in state.events.values {
          #expect(sequences == Array(1...UInt64(sequences.count)))
        }
      }
      await first.close()
      await second.close()
    }
  }

  @Test("an instance whose feed starts after others wrote hands on everything since it opened")
  func lateStart_handsOnEverythingSinceOpen() async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let writer = try await PostgresStore.open(.init(url: url, poolSize: 4))
    let player = try await writer.createPlayer(StoreFixtures.newPlayer())
    let late = try await PostgresStore.open(.init(url: url, poolSize: 4))
    // Written after `late` opened but before its feed started: a projection built from the
    // tables now could have missed them, so the feed must give them.
    let first = try await writer.appendEvent(playerID: player.id, payload: [1], atUnixMs: 1)
    let second = try await writer.appendEvent(playerID: player.id, payload: [2], atUnixMs: 1)
    let model = FeedModel()
    late.feed.subscribe(model.apply)
    late.startFeed()
    try await late.synchronize()
    #expect(model.current.events[player.id] == [first, second])
    await writer.close()
    await late.close()
  }

  @Test("a write that changed nothing the feed follows returns without waiting for the tail")
  func readOnlyWrite_doesNotWait() async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let store = try await PostgresStore.open(.init(url: url, poolSize: 4))
    // The tail is stopped: a write that had to wait for it would fail.
    await store.tail.stop()
    let value = try await store.write { db in
      try await db.row(ChangeTail.Horizon.self) != nil
    }
    #expect(value)
    await store.close()
  }

  @Test(
    "pruning removes the log older than its age and below the oldest open transaction, and notes where it pruned"
  )
  func prune_removesOnlyWhatEveryInstanceRead() async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let store = try await PostgresStore.open(.init(url: url, poolSize: 4))
    let player = try await store.createPlayer(StoreFixtures.newPlayer())
    _ = try await store.appendEvent(playerID: player.id, payload: [1], atUnixMs: 1)
    try await store.synchronize()
    let (before, after, pruned) = try await store.read { db in
      let count = "SELECT count(*)::bigint FROM change_row"
      let before = try await db.connection.query(.init(unsafeSQL: count), logger: db.logger)
        .decode(Int64.self).reduce(0, +)
      // Everything is older than no time at all: all of it goes.
      try await db.rows(ChangeTail.PruneChangeLog.self, "0 seconds")
      let after = try await db.connection.query(.init(unsafeSQL: count), logger: db.logger)
        .decode(Int64.self).reduce(0, +)
      let pruned = try await db.row(ChangeTail.PrunedThrough.self)?.decode(String?.self)
      return (before, after, pruned)
    }
    #expect(before >= 2)
    #expect(after == 0)
    #expect(pruned.flatMap { UInt64($0) }.map { $0 < store.tail.cursor } == true)
    await store.close()
  }
}
