import BadmintonDomain
import BadmintonPostgres
import BadmintonStore
import BadmintonStoreSQL
import PostgresTestCluster
import Synchronization
import Testing

extension StoreFixtures {
  /// Everything one store's feed handed on, in order.
  final class FeedRecorder: Sendable {
    private let changes = Mutex<[StoreChange]>([])

    /// A recorder subscribed to `feed`.
    init(_ feed: ChangeFeed) {
      feed.subscribe { committed in
        self.changes.withLock { $0 += committed.changes }
      }
    }

    /// The changes handed on so far.
    var recorded: [StoreChange] { changes.withLock { $0 } }

    /// The sequences of `playerID`'s events handed on so far, in the order they came.
    func eventSequences(of playerID: Int64) -> [UInt64] {
      recorded.compactMap { change in
        if case .event(let event) = change, event.playerID == playerID { return event.sequence }
        return nil
      }
    }
  }
}

@Suite("PostgreSQL store: players on several instances")
struct PostgresPlayerInstancesTests {
  /// Two stores on one new database, feeds started, recorded from the start.
  static func withTwoInstances(
    poolSize: Int = 4,
    _ body: (PostgresStore, StoreFixtures.FeedRecorder, PostgresStore, StoreFixtures.FeedRecorder)
      async throws -> Void
  ) async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let a = try await PostgresStore.open(.init(url: url, poolSize: poolSize))
    let b = try await PostgresStore.open(.init(url: url, poolSize: poolSize))
    let recorderA = StoreFixtures.FeedRecorder(a.feed)
    let recorderB = StoreFixtures.FeedRecorder(b.feed)
    a.startFeed()
    b.startFeed()
    do {
      try await body(a, recorderA, b, recorderB)
    } catch {
      await a.close()
      await b.close()
      throw error
    }
    await a.close()
    await b.close()
  }

  /// Returns once `store`'s feed has handed on every commit made before the call, on either
  /// instance.
  static func catchUp(_ store: PostgresStore) async throws {
    try await store.synchronize()
  }

  /// A registration of `phone` on `store`, refused or not.
  static func register(_ phone: String, on store: PostgresStore) async -> Result<
    PlayerRecord, any Error
  > {
    do {
      return .success(try await store.createPlayer(StoreFixtures.newPlayer(phone: phone)))
    } catch {
      return .failure(error)
    }
  }

  @Test(
    "a session created on one instance reaches the other's feed with the row id its replay gives")
  func sessionReachesOtherInstance() async throws {
    try await Self.withTwoInstances { a, _, b, recorderB in
      let player = try await a.createPlayer(StoreFixtures.newPlayer())
      let session = SessionRecord(
        tokenHash: [0xC0, 0xFF, 0xEE], playerID: player.id, createdAtUnixMs: 1_000,
        expiresAtUnixMs: 9_000)
      try await a.createSession(session)
      try await b.synchronize()

      let handed = recorderB.recorded
      #expect(handed.contains(.player(player)))
      let rowIDs = handed.compactMap { change -> Int64? in
        if case .session(let rowID, session?) = change { return rowID }
        return nil
      }
      #expect(rowIDs.count == 1)
      let rowID = try #require(rowIDs.first)

      let replayed = Mutex<[StoreChange]>([])
      try await b.replaySessions(nowUnixMs: 2_000) { change in
        replayed.withLock { $0.append(change) }
      }
      #expect(replayed.withLock { $0 } == [.session(rowID: rowID, session)])
      #expect(try await b.session(tokenHash: session.tokenHash) == session)

      // Ended on the first instance: the second's feed hands on the same row id, gone.
      try await a.deleteSession(tokenHash: session.tokenHash)
      try await b.synchronize()
      #expect(recorderB.recorded.last == .session(rowID: rowID, nil))
    }
  }

  @Test(
    "two instances appending events for one player at once number them 1 to 100, and each feed hands them in order"
  )
  func concurrentEventsAcrossInstances() async throws {
    try await Self.withTwoInstances { a, recorderA, b, recorderB in
      let player = try await a.createPlayer(StoreFixtures.newPlayer())
      let sequences = try await withThrowingTaskGroup(of: UInt64.self) { group in
        for index in 0..<100 {
          let store = index.isMultiple(of: 2) ? a : b
          group.addTask {
            try await store.appendEvent(
              playerID: player.id, payload: [UInt8(index)], atUnixMs: Int64(index))
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(sequences.sorted() == Array(1...100))

      let stored = try await b.events(playerID: player.id, after: 0, limit: 200)
      #expect(stored.map(\.sequence) == Array(1...100))
      #expect(Set(stored.map(\.payload)) == Set((0..<100).map { [UInt8($0)] }))

      try await Self.catchUp(a)
      try await b.synchronize()
      #expect(recorderA.eventSequences(of: player.id) == Array(1...100))
      #expect(recorderB.eventSequences(of: player.id) == Array(1...100))
    }
  }

  @Test("a busy player's events from many writers at once on two instances all commit, each once")
  func busyInboxAcrossInstances() async throws {
    try await Self.withTwoInstances(poolSize: 24) { a, _, b, _ in
      let player = try await a.createPlayer(StoreFixtures.newPlayer())
      let count = 400
      let sequences = try await withThrowingTaskGroup(of: UInt64.self) { group in
        for index in 0..<count {
          let store = index.isMultiple(of: 2) ? a : b
          group.addTask {
            try await store.appendEvent(
              playerID: player.id, payload: [UInt8(index % 256), UInt8(index / 256)],
              atUnixMs: Int64(index))
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(sequences.sorted() == Array(1...UInt64(count)))
    }
  }

  @Test("two instances registering one phone at once store one player; the other is PHONE_TAKEN")
  func concurrentRegistrationsAcrossInstances() async throws {
    try await Self.withTwoInstances { a, _, b, _ in
      for round in 0..<24 {
        let phone = "+86138000\(String(round + 10_000).suffix(5))"
        async let first = Self.register(phone, on: a)
        async let second = Self.register(phone, on: b)
        let results = await [first, second]
        let stored = results.compactMap { try? $0.get() }
        #expect(stored.count == 1, "round \(round)")
        let refusals = results.compactMap { result -> String? in
          guard case .failure(let error) = result else { return nil }
          return (error as? DomainError)?.reason ?? "\(error)"
        }
        #expect(refusals == ["PHONE_TAKEN"], "round \(round)")
        let kept = try await b.player(phone: phone)
        #expect(kept == stored.first)
      }
    }
  }

  @Test(
    "two instances submitting one player's requests at once store no more than may be pending")
  func concurrentRequestsAcrossInstances() async throws {
    try await Self.withTwoInstances { a, _, b, _ in
      for round in 0..<12 {
        let player = try await a.createPlayer(
          StoreFixtures.newPlayer(phone: "+86139000\(String(round + 10_000).suffix(5))"))
        let reasons = await withTaskGroup(of: String.self) { group in
          for index in 0..<(2 * VerificationRules.maximumPending) {
            let store = index.isMultiple(of: 2) ? a : b
            group.addTask {
              do {
                _ = try await store.createVerification(
                  playerID: player.id, kind: .regional, contentType: "image/png",
                  document: StoreFixtures.pngDocument, atUnixMs: Int64(index))
                return "STORED"
              } catch {
                return (error as? DomainError)?.reason ?? "\(error)"
              }
            }
          }
          return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        let maximum = VerificationRules.maximumPending
        #expect(
          reasons == ["STORED": maximum, "VERIFICATION_PENDING_LIMIT": maximum], "round \(round)")
        let stored = try await b.verifications(playerID: player.id)
        #expect(stored.count == maximum)
      }
    }
  }

  @Test("the same piece sent to two instances at once is stored once and both are answered")
  func samePieceAcrossInstances() async throws {
    try await Self.withTwoInstances { a, _, b, _ in
      let player = try await a.createPlayer(StoreFixtures.newPlayer())
      let signature = EvidenceDocument.ContentType.png.signature
      let pieces = 8
      let document = signature + (0..<(pieces * 10 - signature.count)).map { UInt8($0 % 251) }
      let upload = try await a.startDocumentUpload(
        playerID: player.id, contentType: "image/png", totalSize: Int64(document.count),
        firstPiece: Array(document[0..<10]), atUnixMs: 0, openBytesLimit: 1 << 20)
      for piece in 1..<pieces {
        let range = (piece * 10)..<(piece * 10 + 10)
        let answers = try await withThrowingTaskGroup(of: Int64.self) { group in
          for store in [a, b] {
            group.addTask {
              try await store.appendDocumentPiece(
                playerID: player.id, uploadID: upload.id, offset: Int64(range.lowerBound),
                statedTotal: 0, data: Array(document[range]), atUnixMs: 1,
                openBytesLimit: 1 << 20
              ).received
            }
          }
          return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == [Int64(range.upperBound), Int64(range.upperBound)], "piece \(piece)")
      }
      let request = try await b.createVerification(
        playerID: player.id, kind: .regional, uploadID: upload.id, atUnixMs: 2)
      #expect(try await a.verificationDocument(id: request.id) == document)
    }
  }
}
