import BadmintonDomain
import BadmintonStore
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

@Suite("Player store: login sessions")
struct SessionStoreTests {
  @Test(
    "a created session is found by its token hash and is gone after deleteSession",
    arguments: StoreKind.allCases)
  func session_createFindDelete(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let session = SessionRecord(
        tokenHash: [0xDE, 0xAD, 0x00, 0xBE, 0xEF], playerID: player.id,
        createdAtUnixMs: 1_700_000_000_000, expiresAtUnixMs: 1_702_592_000_000)
      let other = SessionRecord(
        tokenHash: [0xDE, 0xAD, 0x00, 0xBE, 0xF0], playerID: player.id,
        createdAtUnixMs: 1_700_000_500_000, expiresAtUnixMs: 1_702_592_500_000)

      #expect(try await store.session(tokenHash: session.tokenHash) == nil)
      try await store.createSession(session)
      try await store.createSession(other)
      #expect(try await store.session(tokenHash: session.tokenHash) == session)
      #expect(try await store.session(tokenHash: other.tokenHash) == other)
      // A prefix of a token hash is not the token hash.
      #expect(try await store.session(tokenHash: [0xDE, 0xAD, 0x00, 0xBE]) == nil)

      try await store.deleteSession(tokenHash: session.tokenHash)
      #expect(try await store.session(tokenHash: session.tokenHash) == nil)
      #expect(try await store.session(tokenHash: other.tokenHash) == other)

      // Ending a session that is already gone is harmless.
      try await store.deleteSession(tokenHash: session.tokenHash)
      #expect(try await store.session(tokenHash: other.tokenHash) == other)
    }
  }

  @Test("an expired session is still returned until it is removed", arguments: StoreKind.allCases)
  func session_expiredIsStillReturned(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let expired = SessionRecord(
        tokenHash: [9, 9, 9], playerID: player.id, createdAtUnixMs: 10, expiresAtUnixMs: 20)
      try await store.createSession(expired)
      #expect(try await store.session(tokenHash: [9, 9, 9]) == expired)
    }
  }

  @Test(
    "deleteSessions(expiredBefore:) removes exactly the sessions that expired before the time",
    arguments: StoreKind.allCases)
  func deleteSessions_removesExactlyExpired(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let cutoff: Int64 = 1_700_000_000_000
      let expiries: [Int64] = [
        cutoff - 86_400_000, cutoff - 1, cutoff, cutoff + 1, cutoff + 86_400_000,
      ]
      let sessions = expiries.enumerated().map { index, expiry in
        SessionRecord(
          tokenHash: [UInt8(index), 0xAA], playerID: player.id, createdAtUnixMs: expiry - 1_000,
          expiresAtUnixMs: expiry)
      }
      for session in sessions { try await store.createSession(session) }

      #expect(try await store.deleteSessions(expiredBefore: cutoff) == 2)
      #expect(try await store.session(tokenHash: sessions[0].tokenHash) == nil)
      #expect(try await store.session(tokenHash: sessions[1].tokenHash) == nil)
      for kept in sessions[2...] {
        #expect(try await store.session(tokenHash: kept.tokenHash) == kept)
      }
      // Nothing more has expired before the same time.
      #expect(try await store.deleteSessions(expiredBefore: cutoff) == 0)
    }
  }

  static let expiryLists = Gen.int(in: 0...20).array(of: 0...12)

  @Test(
    "for random expiries, deleteSessions removes and counts those below the cutoff",
    arguments: StoreKind.allCases)
  func deleteSessions_matchesOracle(kind: StoreKind) async throws {
    // Each case is a new store: a PostgreSQL database each, so fewer of them.
    await propertyCheck(
      count: kind == .sqlite ? 100 : 20, input: Self.expiryLists, Gen.int(in: 0...21)
    ) {
      expiries, cutoff in
      try await withStore(kind) { store in
        let player = try await store.createPlayer(StoreFixtures.newPlayer())
        var sessions: [SessionRecord] = []
        for (index, expiry) in expiries.enumerated() {
          let session = SessionRecord(
            tokenHash: [UInt8(index)], playerID: player.id, createdAtUnixMs: 0,
            expiresAtUnixMs: Int64(expiry))
          try await store.createSession(session)
          sessions.append(session)
        }
        let removed = try await store.deleteSessions(expiredBefore: Int64(cutoff))
        #expect(removed == expiries.filter { $0 < cutoff }.count)
        for session in sessions {
          let found = try await store.session(tokenHash: session.tokenHash)
          #expect((found != nil) == (session.expiresAtUnixMs >= Int64(cutoff)))
        }
      }
    }
  }

  @Test(
    "replaySessions gives the sessions unexpired at the time, under the row ids the feed gave them",
    arguments: StoreKind.allCases)
  func replaySessions_matchesFeed(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let recorder = StoreFixtures.FeedRecorder(store.feed)
      store.startFeed()
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      for (index, expiry) in [500, 2_000, 1_000, 3_000, 1_001].enumerated() {
        try await store.createSession(
          SessionRecord(
            tokenHash: [UInt8(index), 7], playerID: player.id, createdAtUnixMs: 0,
            expiresAtUnixMs: Int64(expiry)))
      }
      // An ended session is not replayed.
      try await store.deleteSession(tokenHash: [3, 7])
      var live: [Int64: SessionRecord] = [:]
      for case .session(let rowID, let session) in recorder.recorded { live[rowID] = session }
      let expected = live.keys.sorted().compactMap { rowID -> StoreChange? in
        guard let session = live[rowID], session.expiresAtUnixMs > 1_000 else { return nil }
        return .session(rowID: rowID, session)
      }
      #expect(expected.count == 2)

      let replayed = Mutex<[StoreChange]>([])
      try await store.replaySessions(nowUnixMs: 1_000) { change in
        replayed.withLock { $0.append(change) }
      }
      #expect(replayed.withLock { $0 } == expected)
    }
  }
}
