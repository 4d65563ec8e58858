import BadmintonDomain
import BadmintonStore
import Foundation
import PropertyBased
import StoreTestSupport
import Testing

@Suite("Event inbox")
struct EventStoreTests {
  @Test(
    "sequences are per player, increase by one, and are never reused after pruning",
    arguments: StoreKind.allCases)
  func sequences_perPlayer(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let a = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000001"))
      let b = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000002"))
      #expect(try await store.appendEvent(playerID: a.id, payload: [1], atUnixMs: 100) == 1)
      #expect(try await store.appendEvent(playerID: a.id, payload: [2], atUnixMs: 200) == 2)
      #expect(try await store.appendEvent(playerID: b.id, payload: [3], atUnixMs: 300) == 1)
      #expect(try await store.deleteEvents(createdBefore: 250) == 2)
      #expect(try await store.events(playerID: a.id, after: 0, limit: 10).isEmpty)
      #expect(try await store.appendEvent(playerID: a.id, payload: [4], atUnixMs: 400) == 3)
      let left = try await store.events(playerID: a.id, after: 0, limit: 10)
      #expect(
        left == [EventRecord(playerID: a.id, sequence: 3, createdAtUnixMs: 400, payload: [4])])
    }
  }

  @Test(
    "reading after a cursor returns the later events in order, a page at a time",
    arguments: StoreKind.allCases)
  func events_afterCursor(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000003"))
      for index in 1...30 {
        _ = try await store.appendEvent(
          playerID: player.id, payload: [UInt8(index)], atUnixMs: Int64(index))
      }
      await propertyCheck(count: 100, input: Gen.int(in: 0...35), Gen.int(in: 1...12)) {
        cursor, limit in
        let page: [EventRecord]
        do {
          page = try await store.events(playerID: player.id, after: UInt64(cursor), limit: limit)
        } catch {
          Issue.record(error)
          return
        }
        // Oracle: the numbers after the cursor, at most `limit` of them.
        let expected = Array((1...30).filter { $0 > cursor }.prefix(limit))
        #expect(page.map { Int($0.sequence) } == expected)
        #expect(page.map { Int($0.payload[0]) } == expected)
      }
    }
  }

  @Test(
    "a review puts its event in the owner's inbox in the same transaction",
    arguments: StoreKind.allCases)
  func review_writesEventAtomically(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let owner = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000004"))
      let request = try await store.createVerification(
        playerID: owner.id, kind: .national, contentType: "image/png", document: [1], atUnixMs: 10)
      let outcome = try await store.reviewVerification(
        id: request.id, approve: true, note: "", reviewerID: owner.id, atUnixMs: 20
      ) { [UInt8]("reviewed \($0.id)".utf8) }
      #expect(outcome.eventSequence == 1)
      let inbox = try await store.events(playerID: owner.id, after: 0, limit: 10)
      #expect(inbox.map(\.payload) == [[UInt8]("reviewed \(request.id)".utf8)])
      #expect(inbox.first?.createdAtUnixMs == 20)
      // A review that fails writes no event.
      await #expect(throws: DomainError.self) {
        _ = try await store.reviewVerification(
          id: request.id, approve: false, note: "", reviewerID: owner.id, atUnixMs: 30
        ) { _ in [9] }
      }
      #expect(try await store.events(playerID: owner.id, after: 0, limit: 10).count == 1)
    }
  }

  @Test("a batch of events is stored whole or not at all", arguments: StoreKind.allCases)
  func batch_isAtomic(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let a = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000021"))
      let b = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000022"))
      let sequences = try await store.appendEvents(
        [(a.id, [1]), (b.id, [2]), (a.id, [3])], atUnixMs: 5)
      #expect(sequences == [1, 1, 2])
      await #expect(throws: DomainError.self) {
        _ = try await store.appendEvents([(a.id, [4]), (999, [5])], atUnixMs: 6)
      }
      #expect(
        try await store.events(playerID: a.id, after: 0, limit: 10).map(\.payload) == [[1], [3]])
      #expect(try await store.appendEvent(playerID: a.id, payload: [6], atUnixMs: 7) == 3)
    }
  }

  @Test("events of an unknown player are refused", arguments: StoreKind.allCases)
  func unknownPlayer_isRefused(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      await #expect(throws: DomainError.self) {
        _ = try await store.appendEvent(playerID: 42, payload: [], atUnixMs: 0)
      }
    }
  }
}
