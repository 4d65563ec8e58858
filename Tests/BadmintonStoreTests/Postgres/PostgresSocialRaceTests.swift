import BadmintonDomain
import BadmintonStore
import BadmintonStoreSQL
import PostgresTestCluster
import Testing

@testable import BadmintonPostgres

/// Two instances on one database answering the same players at the same moment: the database
/// decides, and the end is what one store gives for the calls one after the other.
@Suite("PostgreSQL store: friends and messages across instances")
struct PostgresSocialRaceTests {
  /// Races in one test, so that the two calls meet inside their transactions.
  static let rounds = 30

  /// Two stores on one new database, closed after `body`.
  private static func withTwoInstances(
    _ body: (PostgresStore, PostgresStore) async throws -> Void
  ) async throws {
    let url = try PostgresTestCluster.makeDatabase()
    let first = try await PostgresStore.open(.init(url: url, poolSize: 4))
    let second = try await PostgresStore.open(.init(url: url, poolSize: 4))
    do {
      try await body(first, second)
    } catch {
      await first.close()
      await second.close()
      throw error
    }
    await first.close()
    await second.close()
  }

  /// `count` pairs of new players.
  private static func pairs(_ store: PostgresStore, _ count: Int) async throws -> [(Int64, Int64)] {
    var pairs: [(Int64, Int64)] = []
    for index in 0..<count {
      let one = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+861371\(index)0"))
      let other = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+861371\(index)1"))
      pairs.append((one.id, other.id))
    }
    return pairs
  }

  @Test("the same message sent through two instances at once is stored once, one id for both")
  func sameMessage_storedOnce() async throws {
    try await Self.withTwoInstances { first, second in
      let pairs = try await Self.pairs(first, Self.rounds)
      let notify: @Sendable (MessageRecord) -> OutgoingEvents = {
        [($0.recipientID, Array("message \($0.id)".utf8))]
      }
      for (round, (sender, recipient)) in pairs.enumerated() {
        // The first race is also one for the pair's new thread; the second is in that thread.
        for attempt in 1...2 {
          let message = NewMessage(
            senderID: sender, recipientID: recipient, clientMessageID: "race-\(attempt)",
            text: "on my way", sentAtUnixMs: 1_000 + Int64(round))
          async let one = first.sendMessage(message, notify: notify)
          async let other = second.sendMessage(message, notify: notify)
          let (a, b) = try await (one, other)
          #expect(a.message == b.message)
          #expect([a.created, b.created].filter { $0 }.count == 1)
          #expect(try await first.events(playerID: recipient, after: 0, limit: 10).count == attempt)
        }
      }
      let counts = (
        try await StoreSQL.integer(first, "SELECT count(*) FROM direct_message"),
        try await StoreSQL.integer(first, "SELECT count(*) FROM message_thread"),
        try await StoreSQL.integer(first, "SELECT count(*) FROM message_thread_member")
      )
      #expect(counts == (Int64(2 * Self.rounds), Int64(Self.rounds), Int64(2 * Self.rounds)))
    }
  }

  @Test("two players asking each other through two instances at once end friends, once")
  func crossingRequests_endFriendsOnce() async throws {
    try await Self.withTwoInstances { first, second in
      let pairs = try await Self.pairs(first, Self.rounds)
      for (round, (ann, bo)) in pairs.enumerated() {
        let notify: @Sendable (FriendRequestRecord) -> OutgoingEvents = { _ in [] }
        async let one = first.sendFriendRequest(
          from: ann, to: bo, now: Int64(round), notify: notify)
        async let other = second.sendFriendRequest(
          from: bo, to: ann, now: Int64(round), notify: notify)
        let (a, b) = try await (one, other)
        // One after the other: the first is stored pending, the second accepts it.
        #expect(a.id == b.id)
        #expect(Set([a.state, b.state]) == [.pending, .accepted])
        #expect(try await first.areFriends(ann, bo))
        #expect(try await second.areFriends(bo, ann))
      }
      let counts = (
        try await StoreSQL.integer(first, "SELECT count(*) FROM friend_request"),
        try await StoreSQL.integer(first, "SELECT count(*) FROM friend_request WHERE state = 1"),
        try await StoreSQL.integer(first, "SELECT count(*) FROM friendship")
      )
      #expect(counts == (Int64(Self.rounds), 0, Int64(2 * Self.rounds)))
    }
  }

  @Test("the same request sent through two instances at once is stored once; the other is refused")
  func sameRequest_pendingOnce() async throws {
    try await Self.withTwoInstances { first, second in
      let pairs = try await Self.pairs(first, Self.rounds)
      for (round, (ann, bo)) in pairs.enumerated() {
        let notify: @Sendable (FriendRequestRecord) -> OutgoingEvents = {
          [($0.recipientID, [1])]
        }
        async let one = outcome {
          try await first.sendFriendRequest(from: ann, to: bo, now: Int64(round), notify: notify)
        }
        async let other = outcome {
          try await second.sendFriendRequest(from: ann, to: bo, now: Int64(round), notify: notify)
        }
        let results = await [one, other]
        let sent = results.compactMap { try? $0.get() }
        #expect(sent.count == 1 && sent.first?.state == .pending)
        for case .failure(let error) in results {
          #expect(
            error as? DomainError == SocialErrors.requestPending, "\(String(reflecting: error))")
        }
        #expect(try await first.events(playerID: bo, after: 0, limit: 10).count == 1)
      }
      #expect(
        try await StoreSQL.integer(first, "SELECT count(*) FROM friend_request WHERE state = 1")
          == Int64(Self.rounds))
    }
  }
}

extension PostgresSocialRaceTests {
  @Test("many players sending at once through two instances all commit, each message once")
  func manySenders_allCommit() async throws {
    try await Self.withTwoInstances { first, second in
      let pairs = try await Self.pairs(first, 16)
      let perPair = 20
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, (sender, recipient)) in pairs.enumerated() {
          group.addTask {
            for number in 0..<perPair {
              let store = (index + number) % 2 == 0 ? first : second
              let sent = try await store.sendMessage(
                NewMessage(
                  senderID: number % 3 == 0 ? recipient : sender,
                  recipientID: number % 3 == 0 ? sender : recipient,
                  clientMessageID: "m\(number)", text: "hi", sentAtUnixMs: Int64(number))
              ) { [($0.recipientID, [1])] }
              #expect(sent.created)
            }
          }
        }
        try await group.waitForAll()
      }
      #expect(
        try await StoreSQL.integer(first, "SELECT count(*) FROM direct_message")
          == Int64(pairs.count * perPair))
    }
  }
}

extension PostgresSocialRaceTests {
  @Test(
    "a sync cursor that follows a player's messages while they send through two instances misses none"
  )
  func syncCursor_missesNone() async throws {
    try await Self.withTwoInstances { first, second in
      let pairs = try await Self.pairs(first, 3)
      let player = pairs[0].0
      let others = [pairs[0].1, pairs[1].0, pairs[1].1, pairs[2].0]
      let perOther = 40
      let notify: @Sendable (MessageRecord) -> OutgoingEvents = {
        [($0.recipientID, [1])]
      }
      let seen = try await withThrowingTaskGroup(of: [Int64].self) { group in
        // The player sends to four others at once, through both instances.
        for (index, other) in others.enumerated() {
          group.addTask {
            for number in 0..<perOther {
              _ = try await (index % 2 == 0 ? first : second).sendMessage(
                NewMessage(
                  senderID: player, recipientID: other, clientMessageID: "\(other)-\(number)",
                  text: "hi", sentAtUnixMs: Int64(number)),
                notify: notify)
            }
            return []
          }
        }
        // Another of the player's devices catches up all the while, from its cursor.
        group.addTask {
          var cursor: Int64 = 0
          var seen: [Int64] = []
          while seen.count < others.count * perOther {
            let page = try await first.messages(playerID: player, afterMessageID: cursor, limit: 50)
            seen += page.map(\.id)
            cursor = page.last?.id ?? cursor
            if page.isEmpty { await Task.yield() }
            let stored = try await StoreSQL.integer(first, "SELECT count(*) FROM direct_message")
            if stored == Int64(others.count * perOther) {
              // Everything is stored: one last page, then what it missed is missed for good.
              seen += try await first.messages(playerID: player, afterMessageID: cursor, limit: 500)
                .map(\.id)
              break
            }
          }
          return seen
        }
        var seen: [Int64] = []
        for try await ids in group { seen += ids }
        return seen
      }
      #expect(seen.count == others.count * perOther)
      #expect(Set(seen).count == seen.count)
    }
  }
}

/// The outcome of `body`: its value, or the error it threw.
private func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
  do {
    return .success(try await body())
  } catch {
    return .failure(error)
  }
}
