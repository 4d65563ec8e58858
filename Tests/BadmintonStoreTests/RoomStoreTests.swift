import BadmintonDomain
import BadmintonSQLite
import BadmintonStore
import BadmintonStoreSQL
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

@Suite("Room store")
struct RoomStoreTests {
  private static let minute: Int64 = 60_000

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

  private static func players(_ store: any ServerStore, count: Int) async throws -> [Int64] {
    var ids: [Int64] = []
    for index in 0..<count {
      ids.append(
        try await store.createPlayer(StoreFixtures.newPlayer(phone: "+86139100000\(10 + index)"))
          .id)
    }
    return ids
  }

  /// A code source that hands out `codes` in turn, then random ones.
  private static func codes(_ codes: [String]) -> @Sendable () -> String {
    let next = Mutex(codes)
    return {
      next.withLock { list in
        if list.isEmpty {
          var generator = SystemRandomNumberGenerator()
          return RoomCode.generate(using: &generator)
        }
        return list.removeFirst()
      }
    }
  }

  /// Each event as "player:change", the change taken from the outcome.
  private static func notes(_ outcome: RoomOutcome) -> OutgoingEvents {
    outcome.changes.flatMap { change in
      change.recipients.map { ($0, Array("\(change.change)".utf8)) }
    }
  }

  private static func inbox(_ store: any ServerStore, _ player: Int64) async throws -> [String] {
    try await store.events(playerID: player, after: 0, limit: 100_000).map {
      String(decoding: $0.payload, as: UTF8.self)
    }
  }

  @Test(
    "a code that clashes with an open room's is drawn again; a closed room's may be reused",
    arguments: StoreKind.allCases)
  func code_clashIsDrawnAgain(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, count: 3)
      let first = try await store.createRoom(
        ownerID: ids[0], mode: .singles, now: 0, code: Self.codes(["AAAAAA"]), notify: Self.notes)
      let second = try await store.createRoom(
        ownerID: ids[1], mode: .singles, now: 0, code: Self.codes(["AAAAAA", "AAAAAA", "BBBBBB"]),
        notify: Self.notes)
      #expect(first.room?.code == "AAAAAA")
      #expect(second.room?.code == "BBBBBB")
      _ = try await store.leaveRoom(playerID: ids[0], now: 1, notify: Self.notes)
      let third = try await store.createRoom(
        ownerID: ids[2], mode: .doubles, now: 2, code: Self.codes(["AAAAAA"]), notify: Self.notes)
      #expect(third.room?.code == "AAAAAA")
      // The code now leads to the open room, not the closed one.
      let joined = try await store.joinRoom(
        code: "AAAAAA", playerID: ids[0], now: 3, notify: Self.notes)
      #expect(joined.room?.id == third.room?.id)
    }
  }

  @Test(
    "a write refused by a rule still commits the expiries it found, with their events",
    arguments: StoreKind.allCases)
  func refusedWrite_keepsExpiries(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, count: 3)
      let room = try await store.createRoom(
        ownerID: ids[0], mode: .doubles, now: 0, code: Self.codes([]), notify: Self.notes)
      _ = try await store.joinRoom(
        code: room.room!.code, playerID: ids[1], now: 1, notify: Self.notes)
      let now = 1 + 30 * Self.minute
      #expect(
        await reason {
          _ = try await store.joinRoom(
            code: room.room!.code, playerID: ids[2], now: now, notify: Self.notes)
        } == "ROOM_EXPIRED")
      #expect(try await Self.inbox(store, ids[0]) == ["joined", "expired"])
      #expect(try await Self.inbox(store, ids[1]) == ["joined", "expired"])
      #expect(try await Self.inbox(store, ids[2]).isEmpty)
      let seen = try await store.room(id: room.room!.id, playerID: ids[1], now: now) { _ in [] }
      #expect(seen.room?.state == .expired)
      #expect(seen.room?.playerIDs == [ids[0], ids[1]])
    }
  }

  @Test(
    "a start refused because a player is busy leaves the room open and stores no match",
    arguments: StoreKind.allCases)
  func refusedStart_writesNothing(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, count: 2)
      let slot = TimeSlot(startUnixMs: 0, endUnixMs: 3_600_000)
      let room = try await store.createRoom(
        ownerID: ids[0], mode: .singles, now: 0, code: Self.codes([]), notify: Self.notes)
      _ = try await store.joinRoom(
        code: room.room!.code, playerID: ids[1], now: 0, notify: Self.notes)
      let started = try await store.startMatch(
        ownerID: ids[0], slot: slot, now: 0, notify: Self.notes)
      #expect(started.room?.state == .started)
      #expect(started.match?.participants.map(\.team) == [1, 2])
      let again = try await store.createRoom(
        ownerID: ids[1], mode: .singles, now: 0, code: Self.codes([]), notify: Self.notes)
      _ = try await store.joinRoom(
        code: again.room!.code, playerID: ids[0], now: 0, notify: Self.notes)
      #expect(
        await reason {
          _ = try await store.startMatch(
            ownerID: ids[1], slot: slot, now: 0, notify: Self.notes)
        } == "ROOM_PLAYER_BUSY")
      let open = try await store.room(id: 0, playerID: ids[1], now: 0) { _ in [] }
      #expect(open.room?.state == .open)
      #expect(open.room?.matchID == nil)
      #expect(
        try await store.matches(playerID: ids[0], past: false, now: 0, after: nil, limit: 100).count
          == 1)
    }
  }

  @Test(
    "a cancelled match frees its players' time for a start; a completed one still holds it",
    arguments: StoreKind.allCases)
  func start_readsWhereMatchesStand(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, count: 2)
      let hour: Int64 = 3_600_000
      let slot = TimeSlot(startUnixMs: 2 * hour, endUnixMs: 3 * hour)
      func start(_ owner: Int64, _ guest: Int64, at now: Int64) async throws -> RoomOutcome {
        let room = try await store.createRoom(
          ownerID: owner, mode: .singles, now: now, code: Self.codes([]), notify: Self.notes)
        _ = try await store.joinRoom(
          code: room.room!.code, playerID: guest, now: now, notify: Self.notes)
        return try await store.startMatch(ownerID: owner, slot: slot, now: now, notify: Self.notes)
      }
      let first = try await start(ids[0], ids[1], at: 0)
      _ = try await store.cancelMatch(id: first.match!.id, playerID: ids[0], now: 1) { _ in [] }
      // Cancelled: the same time is free again.
      let second = try await start(ids[1], ids[0], at: 2)
      _ = try await store.completeMatch(
        id: second.match!.id, playerID: ids[1], winningTeam: 1, now: slot.startUnixMs
      ) { _ in [] }
      // Completed early, it still holds its whole slot.
      let now = slot.startUnixMs + 1
      let room = try await store.createRoom(
        ownerID: ids[0], mode: .singles, now: now, code: Self.codes([]), notify: Self.notes)
      _ = try await store.joinRoom(
        code: room.room!.code, playerID: ids[1], now: now, notify: Self.notes)
      #expect(
        await reason {
          _ = try await store.startMatch(
            ownerID: ids[0], slot: TimeSlot(startUnixMs: now, endUnixMs: now + hour), now: now,
            notify: Self.notes)
        } == "ROOM_PLAYER_BUSY")
    }
  }

  @Test(
    "property 10: for random rooms and kicks, the kicked player is never listed and is told",
    arguments: StoreKind.allCases)
  func kick_neverLeavesThePlayer(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let ids = try await Self.players(store, count: 4)
      let scenes = Generator { rng in
        (Int.random(in: 2...4, using: &rng), Int.random(in: 1...3, using: &rng))
      }
      let clock = Mutex<Int64>(0)
      await propertyCheck(count: 100, input: scenes) { size, victim in
        do {
          let now = clock.withLock {
            $0 += 1
            return $0
          }
          let room = try await store.createRoom(
            ownerID: ids[0], mode: .doubles, now: now, code: Self.codes([]), notify: Self.notes)
          for player in ids[1..<size] {
            _ = try await store.joinRoom(
              code: room.room!.code, playerID: player, now: now, notify: Self.notes)
          }
          let kicked = ids[min(victim, size - 1)]
          let outcome = try await store.kickFromRoom(
            ownerID: ids[0], playerID: kicked, now: now, notify: Self.notes)
          #expect(outcome.room?.playerIDs == ids[0..<size].filter { $0 != kicked })
          #expect(try await Self.inbox(store, kicked).last == "kicked")
          let seen = try await store.room(id: room.room!.id, playerID: ids[0], now: now) { _ in [] }
          #expect(seen.room?.playerIDs.contains(kicked) == false)
          for player in ids[0..<size] where player != kicked {
            _ = try await store.leaveRoom(playerID: player, now: now, notify: Self.notes)
          }
        } catch {
          Issue.record("\(error)")
        }
      }
    }
  }

  @Test("a room written is there after the store is opened again")
  func room_survivesReopening() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let code: String
    let ids: [Int64]
    do {
      let store = try SQLitePlayerStore.open(directory: directory.path)
      ids = try await Self.players(store, count: 2)
      let room = try await store.createRoom(
        ownerID: ids[0], mode: .singles, now: 0, code: Self.codes([]), notify: Self.notes)
      code = room.room!.code
      _ = try await store.joinRoom(code: code, playerID: ids[1], now: 1, notify: Self.notes)
    }
    let reopened = try SQLitePlayerStore.open(directory: directory.path)
    let room = try await reopened.room(id: 0, playerID: ids[1], now: 2) { _ in [] }
    #expect(room.room?.code == code)
    #expect(room.room?.playerIDs == ids)
    #expect(try await Self.inbox(reopened, ids[0]) == ["joined"])
  }
}
