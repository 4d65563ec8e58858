import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Logging
import PropertyBased
import StoreTestSupport
import Testing

@Suite("Rooms")
struct RoomsTests {
  typealias Player = PlayerWorld.Player

  private static let minute: Int64 = 60_000

  // MARK: Helpers

  /// Oracle of the code format: 6 characters of the alphabet without 0, O, 1, I and L.
  private func isWellFormed(_ code: String) -> Bool {
    code.wholeMatch(of: /[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}/) != nil
  }

  private func zhCN(_ player: Player) -> CallOptions {
    CallOptions(locale: .zhCN, bearerToken: player.token)
  }

  private func befriend(_ world: PlayerWorld, _ a: Player, _ b: Player) async throws {
    let now = world.clock.nowUnixMs()
    let request = try await world.store.sendFriendRequest(
      from: a.id, to: b.id, now: now, notify: { _ in [] })
    _ = try await world.store.answerFriendRequest(
      id: request.id, recipientID: b.id, accept: true, now: now, notify: { _ in [] })
  }

  private func create(_ world: PlayerWorld, _ owner: Player, _ mode: MatchMode = .singles)
    async throws -> Room
  {
    try await world.client.rooms.createRoom(.init(mode: mode), options: owner.options)
  }

  @discardableResult
  private func join(_ world: PlayerWorld, _ player: Player, _ room: Room) async throws -> Room {
    try await world.client.rooms.joinRoom(.init(code: room.code), options: player.options)
  }

  /// The room changes in the player's inbox, oldest first.
  private func roomChanges(_ world: PlayerWorld, _ player: Player) async throws -> [RoomChanged] {
    try await inbox(world, player).compactMap {
      if case .roomChanged(let changed) = $0 { changed } else { nil }
    }
  }

  /// Every event body in the player's inbox, oldest first.
  private func inbox(_ world: PlayerWorld, _ player: Player) async throws -> [Event.Body] {
    try await world.store.events(playerID: player.id, after: 0, limit: 10_000).compactMap {
      try Event(serializedBytes: $0.payload).body
    }
  }

  /// Asserts that `body` fails with `reason` and, asked in zh-CN, with `zhCN` as its message.
  private func expectRefusal(
    _ reason: String, code: StatusCode, zhCN: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
  ) async {
    let error = await rpcError(body)
    #expect(error?.reason == reason, sourceLocation: sourceLocation)
    #expect(error?.code == code, sourceLocation: sourceLocation)
    if let zhCN { #expect(error?.message.en == zhCN, sourceLocation: sourceLocation) }
  }

  // MARK: Blocks and hostile input

  @Test(
    "a blocked player cannot join the blocker's room and learns nothing; the blocker is told",
    arguments: StoreKind.allCases)
  func join_respectsBlocks(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      let carl = try await world.player()
      let annsRoom = try await create(world, ann, .doubles)
      _ = try await world.client.friends.block(.init(userID: bob.id), options: ann.options)
      await expectRefusal("ROOM_CODE_INVALID", code: .invalidArgument) {
        try await join(world, bob, annsRoom)
      }
      try await join(world, carl, annsRoom)
      // Ann sees only Carl arrive.
      #expect(try await roomChanges(world, ann).map(\.subjectID) == [carl.id])
      let bobsRoom = try await create(world, bob, .doubles)
      await expectRefusal("PLAYER_BLOCKED", code: .failedPrecondition) {
        _ = try await world.client.rooms.leaveRoom(.init(), options: ann.options)
        try await join(world, ann, bobsRoom)
      }
    }
  }

  @Test(
    "StartMatch refuses any 64-bit slot cleanly and the server keeps serving",
    arguments: StoreKind.allCases)
  func startMatch_hostileSlots(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      let room = try await create(world, ann)
      try await join(world, bob, room)
      for slot in [
        TimeSlot(startUnixMs: .min, endUnixMs: 1), TimeSlot(startUnixMs: .min, endUnixMs: .max),
        TimeSlot(startUnixMs: world.clock.nowUnixMs(), endUnixMs: .max),
        TimeSlot(startUnixMs: .max - 1, endUnixMs: .max),
      ] {
        await expectRefusal("TIME_SLOT_INVALID", code: .invalidArgument) {
          _ = try await world.client.rooms.startMatch(.init(slot: slot), options: ann.options)
        }
      }
      let started = try await world.client.rooms.startMatch(.init(), options: ann.options)
      #expect(started.room.state == .started)
    }
  }

  // MARK: Create and join

  @Test(
    "creating a room gives a 6-character code, and the creator owns it and is in it",
    arguments: StoreKind.allCases)
  func create_ownerIsFirstParticipant(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player(nickname: "Owner")
      let room = try await create(world, owner, .doubles)
      #expect(isWellFormed(room.code))
      #expect(room.state == .open)
      #expect(room.mode == .doubles)
      #expect(room.ownerID == owner.id)
      #expect(room.participants.map(\.player.userID) == [owner.id])
      #expect(room.participants.first?.player.nickname == "Owner")
      #expect(!room.ready)
      #expect(room.lastActivityAtUnixMs == world.clock.nowUnixMs())
      #expect(room.expiresAtUnixMs == world.clock.nowUnixMs() + 30 * Self.minute)
      #expect(try await world.client.rooms.getRoom(.init(), options: owner.options) == room)
      #expect(
        try await world.client.rooms.getRoom(.init(roomID: room.id), options: owner.options)
          == room)
      await expectRefusal("ALREADY_IN_ROOM", code: .failedPrecondition, zhCN: "您已在房间中") {
        _ = try await world.client.rooms.createRoom(.init(mode: .singles), options: zhCN(owner))
      }
      let other = try await world.player()
      let error = await rpcError {
        _ = try await world.client.rooms.createRoom(
          .init(mode: .unspecified), options: other.options)
      }
      #expect(error?.code == .invalidArgument)
      #expect(error?.violations.first?.field == "mode")
    }
  }

  @Test(
    "joining takes a code in any case and refuses bad codes, full rooms and a second room",
    arguments: StoreKind.allCases)
  func join_rulesAndErrors(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let guest = try await world.player()
      let third = try await world.player()
      let room = try await create(world, owner)
      for code in ["", "ABC", "ABCDE0", "ABCDEFG", "ABCDEL"] {
        await expectRefusal(
          "ROOM_CODE_INVALID", code: .invalidArgument, zhCN: "房间码无效，请检查后重试"
        ) {
          _ = try await world.client.rooms.joinRoom(.init(code: code), options: zhCN(guest))
        }
      }
      // Well formed, but no room has it.
      let unknown = room.code == "ZZZZZZ" ? "YYYYYY" : "ZZZZZZ"
      await expectRefusal("ROOM_CODE_INVALID", code: .invalidArgument) {
        _ = try await world.client.rooms.joinRoom(.init(code: unknown), options: guest.options)
      }
      let joined = try await world.client.rooms.joinRoom(
        .init(code: "  \(room.code.lowercased())\t"), options: guest.options)
      #expect(joined.participants.map(\.player.userID) == [owner.id, guest.id])
      #expect(joined.ready)
      await expectRefusal("ROOM_FULL", code: .failedPrecondition, zhCN: "房间已满") {
        _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: zhCN(third))
      }
      await expectRefusal("ALREADY_IN_ROOM", code: .failedPrecondition, zhCN: "您已在房间中") {
        _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: zhCN(guest))
      }
      let another = try await create(world, third)
      await expectRefusal("ALREADY_IN_ROOM", code: .failedPrecondition) {
        _ = try await world.client.rooms.joinRoom(.init(code: another.code), options: guest.options)
      }
      // The owner sees the joiner in their inbox.
      let changes = try await roomChanges(world, owner)
      #expect(changes.map(\.change) == [.joined])
      #expect(changes.first?.subjectID == guest.id)
      #expect(changes.first?.room == joined)
    }
  }

  @Test("codes of open rooms stay unique over many rooms", arguments: StoreKind.allCases)
  func codes_uniqueAmongOpenRooms(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      var codes: Set<String> = []
      for _ in 0..<12 {
        let room = try await create(world, try await world.player())
        #expect(isWellFormed(room.code))
        codes.insert(room.code)
      }
      #expect(codes.count == 12)
    }
  }

  // MARK: Reading

  @Test(
    "only participants see a room: others and unknown ids get ROOM_NOT_FOUND",
    arguments: StoreKind.allCases)
  func getRoom_participantsOnly(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let stranger = try await world.player()
      let room = try await create(world, owner)
      await expectRefusal("ROOM_NOT_FOUND", code: .notFound) {
        _ = try await world.client.rooms.getRoom(.init(roomID: room.id), options: stranger.options)
      }
      await expectRefusal("ROOM_NOT_FOUND", code: .notFound) {
        _ = try await world.client.rooms.getRoom(.init(roomID: 987_654), options: owner.options)
      }
      await expectRefusal("NOT_IN_ROOM", code: .failedPrecondition) {
        _ = try await world.client.rooms.getRoom(.init(), options: stranger.options)
      }
      let anonymous = await rpcError { _ = try await world.client.rooms.getRoom(.init()) }
      #expect(anonymous?.reason == "AUTHENTICATION_REQUIRED")
    }
  }

  // MARK: Owner only

  @Test("a player who is not the owner cannot invite, kick or start", arguments: StoreKind.allCases)
  func ownerOnlyCalls_refuseOthers(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let guest = try await world.player()
      let friend = try await world.player()
      try await befriend(world, guest, friend)
      let room = try await create(world, owner)
      try await join(world, guest, room)
      let zh = "只有房主可以执行此操作"
      await expectRefusal("NOT_ROOM_OWNER", code: .permissionDenied, zhCN: zh) {
        _ = try await world.client.rooms.inviteToRoom(
          .init(userID: friend.id), options: zhCN(guest))
      }
      await expectRefusal("NOT_ROOM_OWNER", code: .permissionDenied, zhCN: zh) {
        _ = try await world.client.rooms.kickFromRoom(.init(userID: owner.id), options: zhCN(guest))
      }
      await expectRefusal("NOT_ROOM_OWNER", code: .permissionDenied, zhCN: zh) {
        _ = try await world.client.rooms.startMatch(.init(), options: zhCN(guest))
      }
      // Nothing changed.
      let now = try await world.client.rooms.getRoom(.init(), options: owner.options)
      #expect(now.participants.map(\.player.userID) == [owner.id, guest.id])
      #expect(now.state == .open)
      // Players in no room get NOT_IN_ROOM for the owner's calls.
      for call in 0..<3 {
        await expectRefusal("NOT_IN_ROOM", code: .failedPrecondition) {
          switch call {
          case 0:
            _ = try await world.client.rooms.inviteToRoom(
              .init(userID: guest.id), options: friend.options)
          case 1:
            _ = try await world.client.rooms.kickFromRoom(
              .init(userID: guest.id), options: friend.options)
          default: _ = try await world.client.rooms.startMatch(.init(), options: friend.options)
          }
        }
      }
    }
  }

  // MARK: Invitations

  @Test(
    "the owner invites friends only; the friend gets the room with its code",
    arguments: StoreKind.allCases)
  func invite_friendGetsInvitation(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player(nickname: "Host")
      let friend = try await world.player()
      let stranger = try await world.player()
      let guest = try await world.player()
      try await befriend(world, owner, friend)
      let room = try await create(world, owner, .doubles)
      try await join(world, guest, room)
      await expectRefusal("NOT_FRIENDS", code: .failedPrecondition) {
        _ = try await world.client.rooms.inviteToRoom(
          .init(userID: stranger.id), options: owner.options)
      }
      await expectRefusal("NOT_YOURSELF", code: .invalidArgument) {
        _ = try await world.client.rooms.inviteToRoom(
          .init(userID: owner.id), options: owner.options)
      }
      #expect(try await inbox(world, stranger).isEmpty)
      world.clock.advance(by: 5 * Self.minute)
      _ = try await world.client.rooms.inviteToRoom(
        .init(userID: friend.id), options: owner.options)
      let received = try await inbox(world, friend)
      #expect(received.count == 1)
      guard case .roomInvitation(let invitation)? = received.first else {
        Issue.record("no invitation: \(received)")
        return
      }
      #expect(invitation.room.code == room.code)
      #expect(invitation.room.id == room.id)
      #expect(invitation.inviter.userID == owner.id)
      #expect(invitation.inviter.nickname == "Host")
      // An invitation is activity, and the participants hear of it.
      #expect(invitation.room.lastActivityAtUnixMs == world.clock.nowUnixMs())
      for player in [owner, guest] {
        let invited = try await roomChanges(world, player).last
        #expect(invited?.change == .invited)
        #expect(invited?.actorID == owner.id)
        #expect(invited?.subjectID == friend.id)
      }
      let joined = try await world.client.rooms.joinRoom(
        .init(code: invitation.room.code), options: friend.options)
      #expect(joined.participants.map(\.player.userID) == [owner.id, guest.id, friend.id])
      await expectRefusal("ALREADY_ROOM_PARTICIPANT", code: .invalidArgument) {
        _ = try await world.client.rooms.inviteToRoom(
          .init(userID: friend.id), options: owner.options)
      }
    }
  }

  @Test(
    "the owner kicks a participant: removed at once, told, and the others are told",
    arguments: StoreKind.allCases)
  func kick_removesAndTells(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let kept = try await world.player()
      let kicked = try await world.player()
      let outsider = try await world.player()
      let room = try await create(world, owner, .doubles)
      try await join(world, kept, room)
      try await join(world, kicked, room)
      let after = try await world.client.rooms.kickFromRoom(
        .init(userID: kicked.id), options: owner.options)
      #expect(after.participants.map(\.player.userID) == [owner.id, kept.id])
      for player in [owner, kept, kicked] {
        let change = try await roomChanges(world, player).last
        #expect(change?.change == .kicked)
        #expect(change?.subjectID == kicked.id)
        #expect(change?.actorID == owner.id)
        #expect(change?.room == after)
      }
      await expectRefusal("NOT_IN_ROOM", code: .failedPrecondition) {
        _ = try await world.client.rooms.getRoom(.init(), options: kicked.options)
      }
      await expectRefusal("ROOM_NOT_FOUND", code: .notFound) {
        _ = try await world.client.rooms.getRoom(.init(roomID: room.id), options: kicked.options)
      }
      await expectRefusal("NOT_YOURSELF", code: .invalidArgument) {
        _ = try await world.client.rooms.kickFromRoom(
          .init(userID: owner.id), options: owner.options)
      }
      await expectRefusal("NOT_ROOM_PARTICIPANT", code: .invalidArgument) {
        _ = try await world.client.rooms.kickFromRoom(
          .init(userID: outsider.id), options: owner.options)
      }
      // The kicked player may come back or go elsewhere.
      try await join(world, kicked, room)
    }
  }

  @Test(
    "an owner who leaves hands the room to the earliest joined; the last one out closes it",
    arguments: StoreKind.allCases)
  func leave_passesOwnershipAndCloses(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let second = try await world.player()
      let third = try await world.player()
      let room = try await create(world, owner, .doubles)
      try await join(world, second, room)
      try await join(world, third, room)
      _ = try await world.client.rooms.leaveRoom(.init(), options: owner.options)
      let handed = try await world.client.rooms.getRoom(.init(), options: third.options)
      #expect(handed.ownerID == second.id)
      #expect(handed.participants.map(\.player.userID) == [second.id, third.id])
      let left = try await roomChanges(world, third).last
      #expect(left?.change == .left)
      #expect(left?.subjectID == owner.id)
      #expect(left?.room.ownerID == second.id)
      await expectRefusal("NOT_IN_ROOM", code: .failedPrecondition) {
        _ = try await world.client.rooms.leaveRoom(.init(), options: owner.options)
      }
      _ = try await world.client.rooms.leaveRoom(.init(), options: third.options)
      _ = try await world.client.rooms.leaveRoom(.init(), options: second.options)
      // Closed: nobody is in it, and its code no longer lets anyone in.
      await expectRefusal("ROOM_CODE_INVALID", code: .invalidArgument) {
        _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: owner.options)
      }
      await expectRefusal("ROOM_NOT_FOUND", code: .notFound) {
        _ = try await world.client.rooms.getRoom(.init(roomID: room.id), options: second.options)
      }
    }
  }

  // MARK: Start

  @Test(
    "the owner starts a ready singles room: a confirmed match, booked, and everyone told",
    arguments: StoreKind.allCases)
  func start_makesConfirmedMatch(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let guest = try await world.player()
      let room = try await create(world, owner)
      await expectRefusal("ROOM_NOT_READY", code: .failedPrecondition) {
        _ = try await world.client.rooms.startMatch(.init(), options: owner.options)
      }
      try await join(world, guest, room)
      let now = world.clock.nowUnixMs()
      let late = TimeSlot(startUnixMs: now - 2 * Self.minute, endUnixMs: now + 60 * Self.minute)
      let refused = await rpcError {
        _ = try await world.client.rooms.startMatch(.init(slot: late), options: owner.options)
      }
      #expect(refused?.reason == "TIME_SLOT_INVALID")
      #expect(refused?.violations.first?.field == "slot.start_unix_ms")
      let long = TimeSlot(startUnixMs: now, endUnixMs: now + 9 * 60 * Self.minute)
      let tooLong = await rpcError {
        _ = try await world.client.rooms.startMatch(.init(slot: long), options: owner.options)
      }
      #expect(tooLong?.violations.first?.field == "slot.end_unix_ms")
      let started = try await world.client.rooms.startMatch(.init(), options: owner.options)
      #expect(started.room.state == .started)
      #expect(started.room.matchID == started.match.id)
      #expect(started.match.state == .confirmed)
      #expect(started.match.proposalID == 0)
      #expect(started.match.slot == TimeSlot(startUnixMs: now, endUnixMs: now + 3_600_000))
      #expect(started.match.participants.map(\.userID) == [owner.id, guest.id])
      #expect(started.match.participants.map(\.team) == [1, 2])
      #expect(started.match.participants.allSatisfy { $0.availabilityID == 0 })
      let stored = try await world.client.matching.getMatch(
        .init(matchID: started.match.id), options: guest.options)
      #expect(stored == started.match)
      for player in [owner, guest] {
        let change = try await roomChanges(world, player).last
        #expect(change?.change == .started)
        #expect(change?.room.matchID == started.match.id)
      }
      // Free again: both can be in new rooms, but not in another match at the same time.
      let again = try await create(world, owner)
      try await join(world, guest, again)
      await expectRefusal("ROOM_PLAYER_BUSY", code: .failedPrecondition) {
        _ = try await world.client.rooms.startMatch(.init(), options: owner.options)
      }
      let later = TimeSlot(
        startUnixMs: now + 2 * 3_600_000, endUnixMs: now + 3 * 3_600_000)
      let second = try await world.client.rooms.startMatch(
        .init(slot: later), options: owner.options)
      #expect(second.match.slot == later)
    }
  }

  @Test("a doubles room starts with balanced teams", arguments: StoreKind.allCases)
  func start_doublesTeamsAreBalanced(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player(level: 7)
      let players =
        [owner, try await world.player(level: 1), try await world.player(level: 4)]
        + [try await world.player(level: 4)]
      let room = try await create(world, owner, .doubles)
      for player in players.dropFirst() { try await join(world, player, room) }
      let started = try await world.client.rooms.startMatch(.init(), options: owner.options)
      let team = Dictionary(
        uniqueKeysWithValues: started.match.participants.map { ($0.userID, $0.team) })
      #expect(team[players[0].id] == team[players[1].id])
      #expect(team[players[2].id] == team[players[3].id])
      #expect(team[players[0].id] != team[players[2].id])
    }
  }

  // MARK: Expiry

  @Test(
    "30 minutes without activity expire a room on the next call, before any sweep",
    arguments: StoreKind.allCases)
  func expiry_onAccess(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let guest = try await world.player()
      let late = try await world.player()
      let room = try await create(world, owner, .doubles)
      world.clock.advance(by: 30 * Self.minute - 1)
      // Still open one millisecond before; the join is activity.
      try await join(world, guest, room)
      world.clock.advance(by: 30 * Self.minute)
      await expectRefusal("ROOM_EXPIRED", code: .failedPrecondition, zhCN: "房间已过期") {
        _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: zhCN(late))
      }
      let expired = try await world.client.rooms.getRoom(
        .init(roomID: room.id), options: owner.options)
      #expect(expired.state == .expired)
      #expect(!expired.ready)
      for player in [owner, guest] {
        let change = try await roomChanges(world, player).last
        #expect(change?.change == .expired)
        #expect(change?.actorID == 0)
        #expect(change?.room.state == .expired)
      }
      // An expired room holds nobody: both may open new ones.
      _ = try await create(world, owner)
      _ = try await create(world, guest)
    }
  }

  @Test(
    "the sweep expires idle rooms and tells their participants, and leaves others",
    arguments: StoreKind.allCases)
  func expiry_bySweep(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let guest = try await world.player()
      let busy = try await world.player()
      let idle = try await create(world, owner, .doubles)
      try await join(world, guest, idle)
      world.clock.advance(by: 20 * Self.minute)
      let active = try await create(world, busy)
      world.clock.advance(by: 10 * Self.minute)
      try await world.sweep()
      for player in [owner, guest] {
        let changes = try await roomChanges(world, player)
        #expect(changes.last?.change == .expired)
        #expect(changes.last?.room.id == idle.id)
      }
      #expect(try await roomChanges(world, busy).isEmpty)
      let still = try await world.client.rooms.getRoom(.init(), options: busy.options)
      #expect(still.id == active.id)
      #expect(still.state == .open)
      await expectRefusal("NOT_IN_ROOM", code: .failedPrecondition) {
        _ = try await world.client.rooms.getRoom(.init(), options: owner.options)
      }
    }
  }

  // MARK: Properties over the wire

  @Test(
    "property 8: after any joins and leaves, ready is true exactly at 2 (singles) or 4 (doubles)",
    arguments: StoreKind.allCases)
  func ready_overTheWire(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      var pool: [Player] = []
      for _ in 0..<6 { pool.append(try await world.player()) }
      let players = pool
      let steps = Generator { rng in
        (Bool.random(using: &rng), (0..<12).map { _ in Int.random(in: 0..<6, using: &rng) })
      }
      await propertyCheck(count: 15, input: steps) { singles, picks in
        do {
          let room = try await create(world, players[0], singles ? .singles : .doubles)
          var inside: [Int64] = [players[0].id]
          let required = singles ? 2 : 4
          for pick in picks {
            let player = players[pick]
            if inside.contains(player.id) {
              _ = try await world.client.rooms.leaveRoom(.init(), options: player.options)
              inside.removeAll { $0 == player.id }
            } else if inside.count < required {
              try await join(world, player, room)
              inside.append(player.id)
            } else {
              continue
            }
            guard let anyone = players.first(where: { inside.contains($0.id) }) else { break }
            let seen = try await world.client.rooms.getRoom(.init(), options: anyone.options)
            #expect(seen.participants.map(\.player.userID).sorted() == inside.sorted())
            #expect(seen.ready == (inside.count == required))
          }
          for player in players where inside.contains(player.id) {
            _ = try await world.client.rooms.leaveRoom(.init(), options: player.options)
          }
        } catch {
          Issue.record("\(error)")
        }
      }
    }
  }

  @Test(
    "property 10: after a kick the room never lists the kicked player, who is told",
    arguments: StoreKind.allCases)
  func kick_overTheWire(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      var pool: [Player] = []
      for _ in 0..<4 { pool.append(try await world.player()) }
      let players = pool
      let rooms = Generator { rng in
        (Int.random(in: 2...4, using: &rng), Int.random(in: 1...3, using: &rng))
      }
      await propertyCheck(count: 15, input: rooms) { size, victim in
        do {
          let owner = players[0]
          let room = try await create(world, owner, .doubles)
          for player in players[1..<size] { try await join(world, player, room) }
          let kicked = players[min(victim, size - 1)]
          let after = try await world.client.rooms.kickFromRoom(
            .init(userID: kicked.id), options: owner.options)
          #expect(!after.participants.contains { $0.player.userID == kicked.id })
          #expect(after.participants.count == size - 1)
          let seen = try await world.client.rooms.getRoom(.init(), options: owner.options)
          #expect(!seen.participants.contains { $0.player.userID == kicked.id })
          let told = try await roomChanges(world, kicked).last
          #expect(told?.change == .kicked)
          #expect(told?.subjectID == kicked.id)
          #expect(told?.room.id == room.id)
          for player in players[0..<size] where player.id != kicked.id {
            _ = try await world.client.rooms.leaveRoom(.init(), options: player.options)
          }
        } catch {
          Issue.record("\(error)")
        }
      }
    }
  }

  // MARK: Live events

  @Test(
    "live streams carry the invitation and the joined, kicked, started and expired changes",
    arguments: StoreKind.allCases)
  func liveEvents_arrive(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let friend = try await world.player()
      let guest = try await world.player()
      try await befriend(world, owner, friend)
      var ownerStream = try await world.client.events.subscribe(options: owner.options)
        .makeAsyncIterator()
      var friendStream = try await world.client.events.subscribe(options: friend.options)
        .makeAsyncIterator()
      let room = try await create(world, owner)
      _ = try await world.client.rooms.inviteToRoom(
        .init(userID: friend.id), options: owner.options)
      guard case .roomChanged(let invited)? = try await ownerStream.next()?.body else {
        Issue.record("no invited change")
        return
      }
      #expect(invited.change == .invited)
      guard case .roomInvitation(let invitation)? = try await friendStream.next()?.body else {
        Issue.record("no invitation")
        return
      }
      #expect(invitation.room.code == room.code)
      try await join(world, friend, room)
      for event in [try await ownerStream.next(), try await friendStream.next()] {
        guard case .roomChanged(let joined)? = event?.body else {
          Issue.record("no joined change")
          return
        }
        #expect(joined.change == .joined)
        #expect(joined.subjectID == friend.id)
      }
      _ = try await world.client.rooms.kickFromRoom(
        .init(userID: friend.id), options: owner.options)
      for event in [try await ownerStream.next(), try await friendStream.next()] {
        guard case .roomChanged(let kicked)? = event?.body else {
          Issue.record("no kicked change")
          return
        }
        #expect(kicked.change == .kicked)
        #expect(kicked.subjectID == friend.id)
      }
      try await join(world, guest, room)
      guard case .roomChanged(let joined)? = try await ownerStream.next()?.body else {
        Issue.record("no joined change")
        return
      }
      #expect(joined.subjectID == guest.id)
      let started = try await world.client.rooms.startMatch(.init(), options: owner.options)
      guard case .roomChanged(let start)? = try await ownerStream.next()?.body else {
        Issue.record("no started change")
        return
      }
      #expect(start.change == .started)
      #expect(start.room.matchID == started.match.id)
      // A new room left idle expires: the sweep tells the owner.
      _ = try await create(world, owner, .doubles)
      world.clock.advance(by: 30 * Self.minute)
      try await world.sweep()
      guard case .roomChanged(let expired)? = try await ownerStream.next()?.body else {
        Issue.record("no expired change")
        return
      }
      #expect(expired.change == .expired)
      #expect(expired.room.state == .expired)
    }
  }
}
