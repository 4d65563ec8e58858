import BadmintonDomain
import BadmintonStore
import StoreTestSupport
import Synchronization
import Testing

/// Every block change a feed published, in the order it arrived.
private final class BlockChanges: Sendable {
  private let received = Mutex<[StoreChange]>([])

  var all: [StoreChange] { received.withLock { $0 } }

  func record(_ change: StoreChange) {
    guard case .block = change else { return }
    received.withLock { $0.append(change) }
  }
}

@Suite("Friends, blocks and weekly schedules in the store")
struct SocialStoreTests {
  /// `count` new players' ids.
  private static func players(_ store: any ServerStore, _ count: Int) async throws -> [Int64] {
    var ids: [Int64] = []
    for index in 0..<count {
      ids.append(
        try await store.createPlayer(StoreFixtures.newPlayer(phone: "+86139000002\(index)")).id)
    }
    return ids
  }

  /// Sends a friend request whose event for the recipient names the request.
  private static func request(_ store: any ServerStore, _ from: Int64, _ to: Int64, at now: Int64)
    async throws -> FriendRequestRecord
  {
    try await store.sendFriendRequest(from: from, to: to, now: now) {
      [($0.recipientID, Array("request \($0.id)".utf8))]
    }
  }

  private static func answer(
    _ store: any ServerStore, _ id: Int64, by recipient: Int64, accept: Bool, at now: Int64
  ) async throws -> FriendRequestRecord {
    try await store.answerFriendRequest(id: id, recipientID: recipient, accept: accept, now: now) {
      [($0.senderID, Array("answer \($0.id)".utf8))]
    }
  }

  @Test(
    "a request each way makes one friendship; a second request, or one to a friend, is refused",
    arguments: StoreKind.allCases)
  func requests_eachWayMakeFriends(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, 2)
      let (ann, bo) = (ids[0], ids[1])
      let sent = try await Self.request(store, ann, bo, at: 10)
      #expect(sent.state == .pending && !sent.hidden && sent.answeredAtUnixMs == nil)
      #expect(try await store.friendRequest(id: sent.id) == sent)
      #expect(try await store.events(playerID: bo, after: 0, limit: 10).count == 1)
      await #expect(throws: SocialErrors.requestPending) {
        _ = try await Self.request(store, ann, bo, at: 11)
      }
      await #expect(throws: SocialErrors.notYourself) {
        _ = try await Self.request(store, ann, ann, at: 11)
      }
      await #expect(throws: DomainError.playerNotFound) {
        _ = try await Self.request(store, ann, 999_999, at: 11)
      }
      // Bo asking Ann back accepts Ann's request.
      let accepted = try await Self.request(store, bo, ann, at: 12)
      #expect(accepted.id == sent.id && accepted.state == .accepted)
      #expect(accepted.answeredAtUnixMs == 12)
      #expect(try await store.areFriends(ann, bo))
      #expect(try await store.areFriends(bo, ann))
      #expect(
        try await store.friends(playerID: ann) == [FriendRecord(friendID: bo, sinceUnixMs: 12)])
      #expect(
        try await store.friends(playerID: bo) == [FriendRecord(friendID: ann, sinceUnixMs: 12)])
      await #expect(throws: SocialErrors.alreadyFriends) {
        _ = try await Self.request(store, ann, bo, at: 13)
      }
      let outgoing = try await store.friendRequests(
        playerID: ann, outgoing: true, beforeID: nil, limit: 10)
      #expect(outgoing == [accepted])
      #expect(
        try await store.friendRequests(playerID: bo, outgoing: false, beforeID: nil, limit: 10) == [
          accepted
        ])
      #expect(try await store.removeFriend(playerID: bo, friendID: ann))
      #expect(try await !store.removeFriend(playerID: bo, friendID: ann))
      #expect(try await !store.areFriends(ann, bo))
    }
  }

  @Test(
    "an answer given again returns the request as it is; the other answer is refused",
    arguments: StoreKind.allCases)
  func answers_areIdempotent(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, 3)
      let sent = try await Self.request(store, ids[0], ids[1], at: 10)
      await #expect(throws: SocialErrors.requestNotFound) {
        _ = try await Self.answer(store, sent.id, by: ids[2], accept: true, at: 11)
      }
      let declined = try await Self.answer(store, sent.id, by: ids[1], accept: false, at: 11)
      #expect(declined.state == .declined && declined.answeredAtUnixMs == 11)
      #expect(try await Self.answer(store, sent.id, by: ids[1], accept: false, at: 12) == declined)
      await #expect(throws: SocialErrors.requestNotPending) {
        _ = try await Self.answer(store, sent.id, by: ids[1], accept: true, at: 13)
      }
      // One event for the request, one for the answer given once.
      #expect(try await store.events(playerID: ids[0], after: 0, limit: 10).count == 1)
      #expect(try await !store.areFriends(ids[0], ids[1]))
      let again = try await Self.request(store, ids[0], ids[1], at: 14)
      let accepted = try await Self.answer(store, again.id, by: ids[1], accept: true, at: 15)
      #expect(accepted.state == .accepted)
      #expect(
        try await store.friends(playerID: ids[1], afterID: nil, limit: 5).map(\.friendID) == [
          ids[0]
        ])
    }
  }

  @Test(
    "a block ends the friendship, withdraws the blocker's request, hides the blocked player's",
    arguments: StoreKind.allCases)
  func block_settlesRequests(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, 3)
      let (ann, bo, cy) = (ids[0], ids[1], ids[2])
      // Ann and Bo are friends, and Ann asked Cy.
      let asked = try await Self.request(store, ann, bo, at: 1)
      _ = try await Self.answer(store, asked.id, by: bo, accept: true, at: 2)
      let toCy = try await Self.request(store, ann, cy, at: 3)
      try await store.block(blockerID: ann, blockedID: bo, now: 4)
      #expect(try await !store.areFriends(ann, bo))
      try await store.block(blockerID: ann, blockedID: cy, now: 5)
      #expect(try await store.friendRequest(id: toCy.id) == nil)
      // Blocking again keeps the first time.
      try await store.block(blockerID: ann, blockedID: bo, now: 6)
      #expect(
        try await store.blocks(blockerID: ann) == [
          BlockRecord(blockedID: cy, blockedAtUnixMs: 5),
          BlockRecord(blockedID: bo, blockedAtUnixMs: 4),
        ])
      await #expect(throws: SocialErrors.notYourself) {
        try await store.block(blockerID: ann, blockedID: ann, now: 7)
      }
      await #expect(throws: DomainError.playerNotFound) {
        try await store.block(blockerID: ann, blockedID: 999_999, now: 7)
      }
      // The blocked player's request is stored hidden: pending for Cy, unseen by Ann.
      let eventsBefore = try await store.events(playerID: ann, after: 0, limit: 100).count
      let hidden = try await Self.request(store, cy, ann, at: 8)
      #expect(hidden.hidden && hidden.state == .pending)
      #expect(try await store.events(playerID: ann, after: 0, limit: 100).count == eventsBefore)
      #expect(
        try await store.friendRequests(playerID: ann, outgoing: false, beforeID: nil, limit: 10)
          .isEmpty)
      #expect(
        try await store.friendRequests(playerID: cy, outgoing: true, beforeID: nil, limit: 10) == [
          hidden
        ])
      await #expect(throws: SocialErrors.requestNotFound) {
        _ = try await Self.answer(store, hidden.id, by: ann, accept: true, at: 9)
      }
      // The blocker reaching out is told plainly.
      await #expect(throws: SocialErrors.playerBlocked) {
        _ = try await Self.request(store, ann, cy, at: 9)
      }
      #expect(try await store.playersBlocked(eitherWayWith: cy) == [ann])
      #expect(try await store.playersBlocked(eitherWayWith: ann) == [bo, cy])
      #expect(try await store.hasBlocked(ann, cy))
      #expect(try await !store.hasBlocked(cy, ann))
      let all = try await store.allBlocks().map { [$0.blockerID, $0.blockedID] }
      #expect(Set(all) == [[ann, bo], [ann, cy]])
      // Lifted, the block leaves the hidden request hidden; a friendship settles it.
      #expect(try await store.unblock(blockerID: ann, blockedID: cy))
      #expect(try await !store.unblock(blockerID: ann, blockedID: cy))
      #expect(try await store.friendRequest(id: hidden.id)?.hidden == true)
      let fresh = try await Self.request(store, ann, cy, at: 10)
      #expect(fresh.state == .pending && !fresh.hidden)
      _ = try await Self.answer(store, fresh.id, by: cy, accept: true, at: 11)
      #expect(try await store.friendRequest(id: hidden.id)?.state == .accepted)
      #expect(try await store.areFriends(ann, cy))
    }
  }

  @Test(
    "blocks reach the feed under a row id, lifted as nil, and the replay gives the same ids",
    arguments: StoreKind.allCases)
  func blocks_feedAndReplay(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, 4)
      let fed = BlockChanges()
      store.feed.subscribe { committed in
        for change in committed.changes { fed.record(change) }
      }
      try await store.block(blockerID: ids[0], blockedID: ids[1], now: 1)
      try await store.block(blockerID: ids[2], blockedID: ids[0], now: 2)
      try await store.block(blockerID: ids[3], blockedID: ids[1], now: 3)
      #expect(try await store.unblock(blockerID: ids[2], blockedID: ids[0]))
      let changes = fed.all
      guard changes.count == 4, case .block(let lifted, _) = changes[1] else {
        Issue.record("unexpected changes \(changes)")
        return
      }
      #expect(changes[3] == .block(rowID: lifted, nil))
      let replayed = BlockChanges()
      try await store.replayBlocks { replayed.record($0) }
      #expect(replayed.all == [changes[0], changes[2]])
    }
  }

  @Test(
    "friend pages of any size, each after the last friend id, make the whole list in order",
    arguments: StoreKind.allCases)
  func friendPages_concatenate(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, 6)
      for other in ids.dropFirst() {
        let sent = try await Self.request(store, other, ids[0], at: 1)
        _ = try await Self.answer(store, sent.id, by: ids[0], accept: true, at: 2)
      }
      for limit in 1...6 {
        var listed: [Int64] = []
        var after: Int64? = nil
        while true {
          let page = try await store.friends(playerID: ids[0], afterID: after, limit: limit)
          listed += page.map(\.friendID)
          guard page.count == limit, let last = page.last else { break }
          after = last.friendID
        }
        #expect(listed == Array(ids.dropFirst()).sorted())
      }
      // Requests page newest first, each below the last id.
      let all = try await store.friendRequests(
        playerID: ids[0], outgoing: false, beforeID: nil, limit: 10)
      #expect(all.map(\.id) == all.map(\.id).sorted(by: >) && all.count == 5)
      let below = try await store.friendRequests(
        playerID: ids[0], outgoing: false, beforeID: all[1].id, limit: 2)
      #expect(below == Array(all[2...3]))
    }
  }

  @Test(
    "a day set again replaces the first; days come by player, earliest first, within the range",
    arguments: StoreKind.allCases)
  func schedule_onePerDay(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, 3)
      let newYear = LocalDate(year: 2027, month: 1, day: 1)
      let eve = LocalDate(year: 2026, month: 12, day: 31)
      let earlier = LocalDate(year: 2026, month: 12, day: 30)
      try await store.setDayStatus(
        DayStatusRecord(playerID: ids[0], date: newYear, status: 1, note: "", updatedAtUnixMs: 1))
      try await store.setDayStatus(
        DayStatusRecord(playerID: ids[0], date: eve, status: 2, note: "跨年", updatedAtUnixMs: 2))
      try await store.setDayStatus(
        DayStatusRecord(playerID: ids[0], date: newYear, status: 3, note: "晚上", updatedAtUnixMs: 3))
      try await store.setDayStatus(
        DayStatusRecord(playerID: ids[1], date: earlier, status: 1, note: "a", updatedAtUnixMs: 4))
      try await store.setDayStatus(
        DayStatusRecord(playerID: ids[2], date: eve, status: 1, note: "b", updatedAtUnixMs: 5))
      let days = try await store.dayStatuses(
        playerIDs: [ids[0], ids[1]], from: eve, through: newYear)
      #expect(
        days == [
          ids[0]: [
            DayStatusRecord(playerID: ids[0], date: eve, status: 2, note: "跨年", updatedAtUnixMs: 2),
            DayStatusRecord(
              playerID: ids[0], date: newYear, status: 3, note: "晚上", updatedAtUnixMs: 3),
          ]
        ])
      #expect(try await store.dayStatuses(playerIDs: [], from: earlier, through: newYear).isEmpty)
      let wide = try await store.dayStatuses(playerIDs: ids, from: earlier, through: newYear)
      #expect(wide.mapValues(\.count) == [ids[0]: 2, ids[1]: 1, ids[2]: 1])
    }
  }
}
