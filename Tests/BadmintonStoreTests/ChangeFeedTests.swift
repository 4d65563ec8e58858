import BadmintonDomain
import BadmintonStoreSQL
import GRDB
import Synchronization
import Testing

@testable import BadmintonSQLite
@testable import BadmintonStore

/// Everything a feed published, in the order it arrived.
private final class Recorder: Sendable {
  private let received = Mutex<[CommittedChanges]>([])

  var all: [CommittedChanges] { received.withLock { $0 } }

  func record(_ committed: CommittedChanges) { received.withLock { $0.append(committed) } }
}

@Suite("The change feed")
struct ChangeFeedTests {
  static func session(_ byte: UInt8, playerID: Int64) -> SessionRecord {
    SessionRecord(
      tokenHash: [byte, 1, 2], playerID: playerID, createdAtUnixMs: 1_000,
      expiresAtUnixMs: 10_000)
  }

  @Test("changes arrive numbered in commit order, each before its write returns")
  func changes_arriveInCommitOrder() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let recorder = Recorder()
    store.feed.subscribe(recorder.record)
    let player = try await store.createPlayer(StoreFixtures.newPlayer())
    #expect(recorder.all.last?.changes == [.player(player)])
    let renamed = try await store.updateProfile(id: player.id, ProfileChanges(nickname: "New"))
    #expect(recorder.all.last?.changes == [.player(renamed)])
    try await store.createSession(Self.session(7, playerID: player.id))
    guard case .session(_, let created)? = recorder.all.last?.changes.first else {
      Issue.record("no session change")
      return
    }
    #expect(created == Self.session(7, playerID: player.id))
    #expect(recorder.all.map(\.sequence) == [1, 2, 3])
    #expect(store.feed.sequence == 3)
  }

  @Test("a transaction's new events are given in order, whatever their rowids, and no others")
  func newEvents_givenWhateverTheirRowIDs() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let player = try await store.createPlayer(StoreFixtures.newPlayer())
    let recorder = Recorder()
    store.feed.subscribe(recorder.record)
    @Sendable func insert(_ db: Database, rowID: Int64, sequence: Int64) throws {
      try db.execute(
        sql: """
          INSERT INTO event (rowid, player_id, sequence, created_at_ms, payload)
          VALUES (?, ?, ?, 7, x'0102')
          """,
        arguments: [rowID, player.id, sequence])
    }
    // An earlier event between the next transaction's two neighbours, and one far away.
    try await store.writer.write { db in try insert(db, rowID: 5, sequence: 1) }
    try await store.writer.write { db in
      try insert(db, rowID: 6, sequence: 3)
      try insert(db, rowID: 4, sequence: 2)
      try insert(db, rowID: 9_000_000, sequence: 4)
    }
    let sequences = recorder.all.map { committed in
      committed.changes.map { change -> UInt64 in
        guard case .event(let record) = change else { return 0 }
        #expect(record.playerID == player.id && record.payload == [1, 2])
        return record.sequence
      }
    }
    #expect(sequences == [[1], [3, 2, 4]])
  }

  @Test("a rolled-back transaction publishes nothing")
  func rollback_publishesNothing() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let player = try await store.createPlayer(StoreFixtures.newPlayer())
    let recorder = Recorder()
    store.feed.subscribe(recorder.record)
    struct Abandoned: Error {}
    await #expect(throws: Abandoned.self) {
      try await store.writer.write { db in
        try db.execute(
          sql: "UPDATE player SET nickname = 'Never' WHERE id = ?", arguments: [player.id])
        throw Abandoned()
      }
    }
    // A refusal decided inside the store's own transaction publishes nothing either.
    await #expect(throws: DomainError.self) {
      _ = try await store.updateProfile(id: player.id, ProfileChanges(selfLevel: 9))
    }
    #expect(recorder.all.isEmpty)
    #expect(try await store.player(id: player.id)?.nickname == player.nickname)
  }

  @Test("a deleted session or lifted block is given as nil under the row id it was made with")
  func delete_givesNil() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let a = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800138001"))
    let b = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800138002"))
    let recorder = Recorder()
    store.feed.subscribe(recorder.record)
    try await store.createSession(Self.session(9, playerID: a.id))
    try await store.block(blockerID: a.id, blockedID: b.id, now: 5)
    try await store.deleteSession(tokenHash: Self.session(9, playerID: a.id).tokenHash)
    #expect(try await store.unblock(blockerID: a.id, blockedID: b.id))
    let changes = recorder.all.map(\.changes)
    guard changes.count == 4, case .session(let sessionRow, _)? = changes[0].first,
      case .block(let blockRow, let block)? = changes[1].first
    else {
      Issue.record("unexpected changes \(changes)")
      return
    }
    #expect(block == BlockChange(blockerID: a.id, blockedID: b.id))
    #expect(changes[2] == [.session(rowID: sessionRow, nil)])
    #expect(changes[3] == [.block(rowID: blockRow, nil)])
  }

  @Test("the replays give the stored rows as the changes the feed gave for them, in chunks")
  func replay_matchesFeed() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let recorder = Recorder()
    store.feed.subscribe(recorder.record)
    // More players than one chunk, so the replay reads several.
    var players: [PlayerRecord] = []
    for index in 0..<(PlayerRows.replayChunk + 5) {
      players.append(
        try await store.createPlayer(
          StoreFixtures.newPlayer(phone: "+86139\(String(10_000_000 + index))")))
    }
    try await store.createSession(Self.session(1, playerID: players[0].id))
    try await store.createSession(
      SessionRecord(
        tokenHash: [2], playerID: players[1].id, createdAtUnixMs: 0, expiresAtUnixMs: 500))
    try await store.block(blockerID: players[0].id, blockedID: players[1].id, now: 5)
    let replayed = Recorder()
    try await store.replayPlayers { replayed.record(CommittedChanges(sequence: 0, changes: [$0])) }
    try await store.replaySessions(nowUnixMs: 1_000) {
      replayed.record(CommittedChanges(sequence: 0, changes: [$0]))
    }
    try await store.replayBlocks { replayed.record(CommittedChanges(sequence: 0, changes: [$0])) }
    let fed = recorder.all.flatMap(\.changes)
    let expected = fed.filter {
      // The session expired at 1,000 is left out.
      if case .session(_, let session?) = $0 { return session.expiresAtUnixMs > 1_000 }
      return true
    }
    #expect(replayed.all.flatMap(\.changes) == expected)
  }
}
