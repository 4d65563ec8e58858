import BadmintonDomain
import BadmintonStoreSQL
import GRDB
import StoreTestSupport
import Testing

@testable import BadmintonPostgres
@testable import BadmintonSQLite
@testable import BadmintonStore

@Suite("Room joins, invitations and blocks")
struct RoomJoinBlockTests {
  /// The reason of the `DomainError` that `body` threw, or nil.
  private func reason(_ body: () async throws -> Void) async -> String? {
    do {
      try await body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "\(error)"
    }
  }

  /// Writes a block row as it stands, past the store's own rules.
  private static func insertBlock(_ store: any ServerStore, blocker: Int64, blocked: Int64)
    async throws
  {
    switch store {
    case let sqlite as SQLitePlayerStore:
      try await sqlite.writer.write { db in
        try db.execute(
          sql: "INSERT INTO block (blocker_id, blocked_id, blocked_at_ms) VALUES (?, ?, 0)",
          arguments: [blocker, blocked])
      }
    case let postgres as PostgresStore:
      try await postgres.write { db in
        try await db.run(
          "INSERT INTO block (blocker_id, blocked_id, blocked_at_ms) VALUES (\(blocker), \(blocked), 0)"
        )
      }
    default:
      Issue.record("no raw writes on \(type(of: store))")
    }
  }

  @Test(
    "a joiner blocked by someone in the room reads the code as unknown, also when the joiner has blocked someone else in it, whoever joined first",
    arguments: StoreKind.allCases
  )
  func blockedJoiner_neverLearnsOfTheRoom(kind: StoreKind) async throws {
    for blockerJoinedFirst in [true, false] {
      try await withStore(kind) { store in
        var ids: [Int64] = []
        for index in 0..<3 {
          ids.append(
            try await store.createPlayer(
              StoreFixtures.newPlayer(phone: "+86139200000\(10 + index)")
            )
            .id)
        }
        let (owner, member, joiner) = (ids[0], ids[1], ids[2])
        let room = try await store.createRoom(
          ownerID: owner, mode: .doubles, now: 0, code: { "ABCDEF" }, notify: { _ in [] })
        _ = try await store.joinRoom(code: "ABCDEF", playerID: member, now: 0) { _ in [] }
        #expect(room.room?.code == "ABCDEF")
        // One player in the room blocked the joiner; the joiner blocked the other.
        let blocker = blockerJoinedFirst ? owner : member
        let blockedByJoiner = blockerJoinedFirst ? member : owner
        try await store.block(blockerID: blocker, blockedID: joiner, now: 0)
        try await store.block(blockerID: joiner, blockedID: blockedByJoiner, now: 0)
        #expect(
          await reason {
            _ = try await store.joinRoom(code: "ABCDEF", playerID: joiner, now: 1) { _ in [] }
          } == "ROOM_CODE_INVALID", "blocker joined first: \(blockerJoinedFirst)")
      }
    }
  }

  @Test(
    "an invitation to a friend who blocked the owner is decided in the store's transaction: it succeeds but is never delivered",
    arguments: StoreKind.allCases
  )
  func invite_blockedFriendIsNeverTold(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      var ids: [Int64] = []
      for index in 0..<3 {
        ids.append(
          try await store.createPlayer(StoreFixtures.newPlayer(phone: "+86139300000\(10 + index)"))
            .id)
      }
      let (owner, friend, other) = (ids[0], ids[1], ids[2])
      for invitee in [friend, other] {
        let request = try await store.sendFriendRequest(
          from: owner, to: invitee, now: 0, notify: { _ in [] })
        _ = try await store.answerFriendRequest(
          id: request.id, recipientID: invitee, accept: true, now: 0, notify: { _ in [] })
      }
      // A block that stands beside the friendship: the store's own rows decide.
      try await Self.insertBlock(store, blocker: friend, blocked: owner)
      let notes: @Sendable (RoomOutcome) -> OutgoingEvents = { outcome in
        (outcome.invitedPlayerID.map { [($0, Array("invitation".utf8))] } ?? [])
          + outcome.changes.flatMap { change in
            change.recipients.map { ($0, Array("\(change.change)".utf8)) }
          }
      }
      _ = try await store.createRoom(
        ownerID: owner, mode: .doubles, now: 0, code: { "ABCDEF" }, notify: notes)
      let hidden = try await store.inviteToRoom(
        ownerID: owner, inviteeID: friend, now: 1, notify: notes)
      #expect(hidden.invitedPlayerID == nil)
      #expect(try await store.events(playerID: friend, after: 0, limit: 10).isEmpty)
      // The owner's side looks the same as for anyone else.
      let delivered = try await store.inviteToRoom(
        ownerID: owner, inviteeID: other, now: 2, notify: notes)
      #expect(delivered.invitedPlayerID == other)
      #expect(try await store.events(playerID: other, after: 0, limit: 10).count == 1)
      #expect(try await store.events(playerID: owner, after: 0, limit: 10).count == 2)
    }
  }
}
