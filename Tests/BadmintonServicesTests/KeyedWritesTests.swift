import BadmintonAPI
import BadmintonPostgres
import BadmintonRPC
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import Foundation
import StoreTestSupport
import Synchronization
import Testing

import enum BadmintonDomain.ScheduleRules

/// Counts the store's commits while a test watches.
final class CommitCounter: Sendable {
  private let count = Mutex<Int>(0)

  init(_ store: any ServerStore) {
    let observe: @Sendable (Duration) -> Void = { [self] _ in count.withLock { $0 += 1 } }
    if let sqlite = store as? SQLitePlayerStore { sqlite.observeCommitDurations(observe) }
    if let postgres = store as? PostgresStore { postgres.observeCommitDurations(observe) }
  }

  var commits: Int { count.withLock { $0 } }
}

/// What one call answered: the response's bytes, or the error.
enum Answer: Equatable {
  case response([UInt8])
  case error(code: StatusCode, reason: String, message: String, fields: [String])

  init(_ body: () async throws -> [UInt8]) async {
    do {
      self = .response(try await body())
    } catch let error as RPCError {
      self = .error(
        code: error.code, reason: error.reason, message: error.message.en,
        fields: error.violations.map(\.field))
    } catch {
      self = .error(code: .unknown, reason: "\(error)", message: "", fields: [])
    }
  }

  /// The response decoded, or the error as `RPCError`.
  func decoded<Response: ProtobufMessage>(as type: Response.Type) throws -> Response {
    switch self {
    case .response(let bytes): return try Response(serializedBytes: bytes)
    case .error(let code, let reason, let message, _):
      throw RPCError(code: code, reason: reason, message: LocalizedText(verbatim: message))
    }
  }
}

extension PlayerWorld {
  /// Calls `method` with `request` as `player` under one new key, then again with the same key;
  /// expects the same answer twice, and no commit for the repeat. Returns the response.
  @discardableResult
  func twice<Request: ProtobufMessage, Response: ProtobufMessage>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request, as player: Player,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Response {
    let first = try await twiceAnswers(method, request, as: player, sourceLocation: sourceLocation)
    return try first.decoded(as: Response.self)
  }

  /// As `twice`, for a call whose answer may be an error.
  func twiceAnswers<Request: ProtobufMessage, Response: ProtobufMessage>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request, as player: Player,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Answer {
    #expect(method.takesIdempotencyKey, sourceLocation: sourceLocation)
    let options = CallOptions(bearerToken: player.token, idempotencyKey: UUID().uuidString)
    let call = {
      await Answer {
        try await client.unary(
          path: method.path, payload: request.serializedBytes(), idempotent: false,
          options: options)
      }
    }
    let counter = CommitCounter(store)
    let first = await call()
    let before = counter.commits
    let events = try await eventCounts()
    let second = await call()
    #expect(second == first, "\(method.path)", sourceLocation: sourceLocation)
    // No event appended for anyone: the repeat's transaction, if it ran, was undone.
    #expect(try await eventCounts() == events, "\(method.path)", sourceLocation: sourceLocation)
    if RepeatCheck.current.fromMemory {
      // Answered on the instance that answered the first: no transaction at all.
      #expect(
        counter.commits == before, "\(method.path) wrote again", sourceLocation: sourceLocation)
    }
    return first
  }

  /// How many events each player of the check has.
  func eventCounts() async throws -> [Int] {
    var counts: [Int] = []
    for player in RepeatCheck.current.players {
      counts.append(try await store.events(playerID: player, after: 0, limit: 100_000).count)
    }
    return counts
  }
}

/// What `twice` checks of a repeat: whether it is answered from the instance's memory, and whose
/// events must not grow.
struct RepeatCheck: Sendable {
  var fromMemory = true
  var players: [Int64] = []
  @TaskLocal static var current = RepeatCheck()
}

@Suite("Idempotency keys: every write answers once per key")
struct KeyedWritesTests {
  /// Tomorrow on the test world's clock, as the API's date.
  static func tomorrow(_ world: PlayerWorld) -> LocalDate {
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    let date = Date(timeIntervalSince1970: Double(world.clock.nowUnixMs()) / 1000 + 86_400)
    let day = utc.dateComponents([.year, .month, .day], from: date)
    return LocalDate(year: Int32(day.year!), month: Int32(day.month!), day: Int32(day.day!))
  }

  static func slot(_ world: PlayerWorld, _ start: Int32, _ end: Int32) -> PostAvailabilityRequest {
    PostAvailabilityRequest(
      mode: .singles, date: tomorrow(world), startMinute: start, endMinute: end, timeZone: "UTC",
      location: GeoPoint(latitude: 31.23, longitude: 121.47))
  }

  @Test(
    "each of the 31 keyed writes, repeated with its key, gets its first answer and writes nothing: from the instance's memory (no transaction), and from the store",
    arguments: StoreKind.allCases, [true, false])
  func everyKeyedWrite_answersOnce(kind: StoreKind, fromMemory: Bool) async throws {
    try await withPlayerWorld(kind, recentWriteAnswerBytes: fromMemory ? 16 << 20 : 0) { world in
      let alice = try await world.player(nickname: "Alice")
      let bob = try await world.player(nickname: "Bob")
      let carol = try await world.player(nickname: "Carol")
      let admin = try await world.administrator()
      let check = RepeatCheck(
        fromMemory: fromMemory, players: [alice.id, bob.id, carol.id, admin.id])
      try await RepeatCheck.$current.withValue(check) {
        try await Self.everyKeyedWrite(world, alice, bob, carol, admin)
      }
    }
  }

  static func everyKeyedWrite(
    _ world: PlayerWorld, _ alice: PlayerWorld.Player, _ bob: PlayerWorld.Player,
    _ carol: PlayerWorld.Player, _ admin: PlayerWorld.Player
  ) async throws {
    do {
      var covered: Set<String> = []
      func note(_ method: MethodInfo) { covered.insert(method.path) }

      // Players.
      try await world.twice(
        Players.updateProfile, UpdateProfileRequest(nickname: "Alice Again"), as: alice)
      note(Players.updateProfile.info)
      try await world.twice(
        Players.updateLocation, UpdateLocationRequest(latitude: 31.23, longitude: 121.47),
        as: alice)
      note(Players.updateLocation.info)
      _ = try await world.client.players.updateLocation(
        .init(latitude: 31.231, longitude: 121.471), options: bob.options)
      // Matching.
      let mine = try await world.twice(
        Matching.postAvailability, Self.slot(world, 600, 720), as: alice)
      note(Matching.postAvailability.info)
      let listed = try await world.client.matching.listMyAvailability(options: alice.options)
      #expect(listed.availability.map(\.id) == [mine.id])
      let theirs = try await world.client.matching.postAvailability(
        Self.slot(world, 600, 720), options: bob.options)
      let proposal = try await world.twice(
        Matching.proposeMatch,
        ProposeMatchRequest(availabilityID: mine.id, candidateAvailabilityIDs: [theirs.id]),
        as: alice)
      note(Matching.proposeMatch.info)
      let accepted = try await world.twice(
        Matching.respondToProposal, RespondToProposalRequest(proposalID: proposal.id, accept: true),
        as: bob)
      note(Matching.respondToProposal.info)
      try await world.twice(
        Matching.cancelMatch, CancelMatchRequest(matchID: accepted.matchID), as: alice)
      note(Matching.cancelMatch.info)
      let spare = try await world.client.matching.postAvailability(
        Self.slot(world, 900, 960), options: alice.options)
      try await world.twice(
        Matching.cancelAvailability, CancelAvailabilityRequest(availabilityID: spare.id),
        as: alice)
      note(Matching.cancelAvailability.info)
      try await world.twice(
        Matching.saveRecurringSlots,
        SaveRecurringSlotsRequest(
          slots: [RecurringSlot(weekday: 3, startMinute: 1080, endMinute: 1200, mode: .singles)],
          timeZone: "UTC"), as: alice)
      note(Matching.saveRecurringSlots.info)

      // Friends.
      let request = try await world.twice(
        Friends.sendFriendRequest, SendFriendRequestRequest(userID: bob.id), as: alice)
      note(Friends.sendFriendRequest.info)
      try await world.twice(
        Friends.acceptFriendRequest, AnswerFriendRequestRequest(requestID: request.id), as: bob)
      note(Friends.acceptFriendRequest.info)
      let toCarol = try await world.client.friends.sendFriendRequest(
        .init(userID: carol.id), options: alice.options)
      try await world.twice(
        Friends.declineFriendRequest, AnswerFriendRequestRequest(requestID: toCarol.id), as: carol)
      note(Friends.declineFriendRequest.info)
      try await world.twice(Friends.removeFriend, RemoveFriendRequest(userID: bob.id), as: alice)
      note(Friends.removeFriend.info)
      try await world.twice(Friends.block, BlockRequest(userID: carol.id), as: alice)
      note(Friends.block.info)
      try await world.twice(Friends.unblock, UnblockRequest(userID: carol.id), as: alice)
      note(Friends.unblock.info)

      // Rooms: Carol's room, with Bob, her friend.
      let toBob = try await world.client.friends.sendFriendRequest(
        .init(userID: bob.id), options: carol.options)
      _ = try await world.client.friends.acceptFriendRequest(
        .init(requestID: toBob.id), options: bob.options)
      let room = try await world.twice(
        Rooms.createRoom, CreateRoomRequest(mode: .singles), as: carol)
      note(Rooms.createRoom.info)
      try await world.twice(Rooms.inviteToRoom, InviteToRoomRequest(userID: bob.id), as: carol)
      note(Rooms.inviteToRoom.info)
      try await world.twice(Rooms.joinRoom, JoinRoomRequest(code: room.code), as: bob)
      note(Rooms.joinRoom.info)
      try await world.twice(Rooms.kickFromRoom, KickFromRoomRequest(userID: bob.id), as: carol)
      note(Rooms.kickFromRoom.info)
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: bob.options)
      try await world.twice(Rooms.leaveRoom, LeaveRoomRequest(), as: bob)
      note(Rooms.leaveRoom.info)
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: bob.options)
      let game = try await world.twice(Rooms.startMatch, StartMatchRequest(), as: carol)
      note(Rooms.startMatch.info)

      // Surveys.
      try await world.twice(
        Surveys.completeMatch, CompleteMatchRequest(matchID: game.match.id, winningTeam: 1),
        as: carol)
      note(Surveys.completeMatch.info)
      try await world.twice(
        Surveys.submitSurvey,
        SubmitSurveyRequest(
          matchID: game.match.id,
          ratings: [PlayerRating(userID: bob.id, skillLevel: 5, punctuality: .onTime, character: 4)]
        ), as: carol)
      note(Surveys.submitSurvey.info)

      // Messages.
      let sent = try await world.twice(
        Messages.sendMessage,
        SendMessageRequest(recipientID: bob.id, clientMessageID: "m-1", text: "Courts at 10?"),
        as: alice)
      note(Messages.sendMessage.info)
      try await world.twice(
        Messages.ackDelivered, AckDeliveredRequest(messageIDs: [sent.id]), as: bob)
      note(Messages.ackDelivered.info)
      try await world.twice(Messages.markRead, MarkReadRequest(threadID: sent.threadID), as: bob)
      note(Messages.markRead.info)
      try await world.twice(
        Messages.deleteConversation, DeleteConversationRequest(threadID: sent.threadID), as: bob)
      note(Messages.deleteConversation.info)

      // Schedule.
      try await world.twice(
        Schedule.updateDayStatus,
        UpdateDayStatusRequest(
          date: Self.tomorrow(world), status: .free, note: "evening", timeZone: "UTC"), as: alice)
      note(Schedule.updateDayStatus.info)

      // Verification, last: a verified level 8 would change whom Alice matches above.
      let started = try await world.twice(
        Players.uploadDocumentPiece,
        UploadDocumentPieceRequest(
          totalSize: Int64(pngDocument.count), data: Array(pngDocument.prefix(50))), as: alice)
      let finished = try await world.twice(
        Players.uploadDocumentPiece,
        UploadDocumentPieceRequest(
          uploadID: started.uploadID, totalSize: Int64(pngDocument.count), offset: 50,
          data: Array(pngDocument.dropFirst(50))), as: alice)
      #expect(finished.receivedBytes == Int64(pngDocument.count))
      note(Players.uploadDocumentPiece.info)
      let verification = try await world.twice(
        Players.submitVerification,
        SubmitVerificationRequest(kind: .regionalChampionship, uploadID: started.uploadID),
        as: alice)
      note(Players.submitVerification.info)
      let reviewed = try await world.twice(
        Players.reviewVerification,
        ReviewVerificationRequest(verificationID: verification.id, approve: true, note: "ok"),
        as: admin)
      #expect(reviewed.state == .approved)
      note(Players.reviewVerification.info)
      let level = try await world.twice(
        Players.setVerifiedLevel, SetVerifiedLevelRequest(level: 8), as: alice)
      #expect(level.selfLevel == 8)
      note(Players.setVerifiedLevel.info)

      let keyed = Set(
        BadmintonAPI.services.flatMap(\.methods).filter(\.takesIdempotencyKey).map(\.path))
      #expect(covered == keyed)
    }
  }

  /// A keyed call's answer, with the key and request given.
  static func call<Request: ProtobufMessage, Response: ProtobufMessage>(
    _ world: PlayerWorld, _ method: MethodDescriptor<Request, Response>, _ request: Request,
    as player: PlayerWorld.Player, key: String
  ) async -> Answer {
    await Answer {
      try await world.client.unary(
        path: method.path, payload: request.serializedBytes(), idempotent: false,
        options: CallOptions(bearerToken: player.token, idempotencyKey: key))
    }
  }

  @Test(
    "a key that is not 1 to 128 printable ASCII characters is refused before any work",
    arguments: StoreKind.allCases)
  func invalidKey_isRefused(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let counter = CommitCounter(world.store)
      for key in ["", String(repeating: "k", count: 129), "caf\u{E9}", "tab\there", "\u{7F}"] {
        let answer = await Self.call(
          world, Matching.postAvailability, Self.slot(world, 600, 660), as: alice, key: key)
        guard case .error(let code, let reason, _, let fields) = answer else {
          Issue.record("key \(key.debugDescription) was taken")
          continue
        }
        #expect(code == .invalidArgument)
        #expect(reason == "IDEMPOTENCY_KEY_INVALID")
        #expect(fields == ["idempotency-key"])
      }
      #expect(counter.commits == 0)
      let listed = try await world.client.matching.listMyAvailability(options: alice.options)
      #expect(listed.availability.isEmpty)
      // The longest key, and every printable character, are taken.
      let longest = String(repeating: "~", count: 128)
      let printable = String((0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) }).prefix(128)
      for key in [longest, String(printable)] {
        let answer = await Self.call(
          world, Matching.postAvailability, Self.slot(world, 600, 660), as: alice, key: key)
        guard case .response = answer else {
          Issue.record("key \(key.debugDescription) was refused: \(answer)")
          continue
        }
      }
    }
  }

  @Test(
    "the same key with another request, or on another method, is refused as reused",
    arguments: StoreKind.allCases)
  func reusedKey_isRefused(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let bob = try await world.player()
      let key = "post-1"
      let first = await Self.call(
        world, Matching.postAvailability, Self.slot(world, 600, 660), as: alice, key: key)
      guard case .response = first else { throw RPCError.cancelled }
      let counter = CommitCounter(world.store)
      let other = await Self.call(
        world, Matching.postAvailability, Self.slot(world, 700, 760), as: alice, key: key)
      let elsewhere = await Self.call(
        world, Friends.sendFriendRequest, SendFriendRequestRequest(userID: bob.id), as: alice,
        key: key)
      for answer in [other, elsewhere] {
        guard case .error(let code, let reason, let message, _) = answer else {
          Issue.record("a reused key was taken")
          continue
        }
        #expect(code == .failedPrecondition)
        #expect(reason == "IDEMPOTENCY_KEY_REUSED")
        #expect(message.contains("already used"))
      }
      #expect(counter.commits == 0)
      // The key is Alice's: Bob may use the same one.
      let bobs = await Self.call(
        world, Matching.postAvailability, Self.slot(world, 600, 660), as: bob, key: key)
      guard case .response = bobs else { throw RPCError.cancelled }
      // And the first request, repeated, still gets its answer.
      #expect(
        await Self.call(
          world, Matching.postAvailability, Self.slot(world, 600, 660), as: alice, key: key)
          == first)
    }
  }

  @Test(
    "a refusal is the key's answer for good: a repeat gets it, from the store, even once the call would succeed",
    arguments: StoreKind.allCases)
  func refusal_isKept(kind: StoreKind) async throws {
    // No answers held in memory: every repeat goes to the store.
    try await withPlayerWorld(kind, recentWriteAnswerBytes: 0) { world in
      let alice = try await world.player()
      let bob = try await world.player()
      // Refused inside the store's transaction: no such availability.
      let missing = await Self.call(
        world, Matching.cancelAvailability, CancelAvailabilityRequest(availabilityID: 1),
        as: alice, key: "cancel")
      guard case .error(.notFound, _, _, _) = missing else {
        Issue.record("cancelling nothing answered \(missing)")
        return
      }
      // Refused before the store, in memory: a day too far ahead to plan.
      let ahead = ScheduleRules.maximumDaysAhead + 1
      let later = Date(timeIntervalSince1970: Double(world.clock.nowUnixMs()) / 1000)
        .addingTimeInterval(Double(ahead) * 86_400)
      var utc = Calendar(identifier: .gregorian)
      utc.timeZone = TimeZone(identifier: "UTC")!
      let parts = utc.dateComponents([.year, .month, .day], from: later)
      let day = UpdateDayStatusRequest(
        date: LocalDate(
          year: Int32(parts.year!), month: Int32(parts.month!), day: Int32(parts.day!)),
        status: .free, note: "far", timeZone: "UTC")
      let early = await Self.call(world, Schedule.updateDayStatus, day, as: alice, key: "day")
      guard case .error(.invalidArgument, _, _, _) = early else {
        Issue.record("a day too far ahead answered \(early)")
        return
      }
      // The next day (20 hours on, past midnight UTC: the clock starts at 08:00) the same request
      // is in range: under a new key it succeeds, under the first key, still within its 24
      // hours, it gets the first answer, and stores nothing.
      world.clock.advance(by: 20 * 3_600_000)
      let repeated = await Self.call(world, Schedule.updateDayStatus, day, as: alice, key: "day")
      #expect(repeated == early)
      #expect(
        await Self.call(
          world, Matching.cancelAvailability, CancelAvailabilityRequest(availabilityID: 1),
          as: alice, key: "cancel") == missing)
      guard
        case .response = await Self.call(
          world, Schedule.updateDayStatus, day, as: alice, key: "day-2")
      else {
        Issue.record("the day was refused once in range")
        return
      }
      _ = bob
    }
  }

  @Test(
    "a key answers for 24 hours; then it is free, and housekeeping removes it",
    arguments: StoreKind.allCases)
  func key_expiresAfterADay(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let bob = try await world.player()
      let request = SendMessageRequest(recipientID: bob.id, clientMessageID: "", text: "Hi")
      func send(_ id: String) async -> Answer {
        var request = request
        request.clientMessageID = id
        return await Self.call(world, Messages.sendMessage, request, as: alice, key: "hello")
      }
      let first = await send("c-1")
      guard case .response = first else { throw RPCError.cancelled }
      world.clock.advance(by: 24 * 3_600_000 - 1)
      #expect(await send("c-1") == first)
      // Another request under the key is still refused a moment before the day ends.
      guard case .error(_, "IDEMPOTENCY_KEY_REUSED", _, _) = await send("c-2") else {
        Issue.record("the key was free early")
        return
      }
      world.clock.advance(by: 1)
      // A day on, the key is a new one: the call runs again (a new message under a new id).
      let later = await send("c-2")
      guard case .response(let bytes) = later else { throw RPCError.cancelled }
      let message = try DirectMessage(serializedBytes: bytes)
      #expect(message.clientMessageID == "c-2")
      let thread = try await world.client.messages.loadMessages(
        LoadMessagesRequest(threadID: message.threadID), options: alice.options)
      #expect(thread.messages.count == 2)
      // Housekeeping removes the keys past their day: only the second call's is left, and a day
      // after it, none.
      world.clock.advance(by: 24 * 3_600_000)
      try await world.sweep()
      #expect(try await world.store.storedWriteKey(playerID: alice.id, key: "hello") == nil)
    }
  }

  @Test(
    "a player holds a bounded number of keys: one more is refused until the oldest expires",
    arguments: StoreKind.allCases)
  func keys_areBoundedPerPlayer(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, writeKeysPerPlayer: 3) { world in
      let alice = try await world.player()
      let bob = try await world.player()
      func update(_ key: String) async -> Answer {
        await Self.call(
          world, Players.updateProfile, UpdateProfileRequest(nickname: "N\(key)"), as: alice,
          key: key)
      }
      for key in ["a", "b", "c"] {
        guard case .response = await update(key) else { throw RPCError.cancelled }
        world.clock.advance(by: 3_600_000)
      }
      // A repeat of a held key is answered; a new key is refused, with when to try again.
      guard case .response = await update("a") else { throw RPCError.cancelled }
      do {
        _ = try await world.client.unary(
          path: Players.updateProfile.path,
          payload: UpdateProfileRequest(nickname: "Nd").serializedBytes(), idempotent: false,
          options: CallOptions(bearerToken: alice.token, idempotencyKey: "d"))
        Issue.record("a fourth key was taken")
      } catch let error as RPCError {
        #expect(error.code == .resourceExhausted)
        #expect(error.reason == "IDEMPOTENCY_KEYS_EXHAUSTED")
        // The oldest key was taken 3 hours ago: free 21 hours from now.
        #expect(error.retryAfter == .milliseconds(21 * 3_600_000))
      }
      // The refusal was no answer: it is not kept. Other players are not affected.
      let bobs = await Self.call(
        world, Players.updateProfile, UpdateProfileRequest(nickname: "Bob"), as: bob, key: "d")
      guard case .response = bobs else { throw RPCError.cancelled }
      // Once the oldest key has expired (without housekeeping), the new key is taken.
      world.clock.advance(by: 21 * 3_600_000)
      guard case .response = await update("d") else {
        Issue.record("the key was refused after the oldest expired")
        return
      }
      #expect(try await world.store.storedWriteKey(playerID: alice.id, key: "a") == nil)
    }
  }

  @Test(
    "repeats sent at once while the first still runs get its answer, and it writes once",
    arguments: StoreKind.allCases)
  func concurrentRepeats_writeOnce(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player()
      let answers = await withTaskGroup(of: Answer.self) { group in
        for _ in 0..<8 {
          group.addTask {
            await Self.call(
              world, Matching.postAvailability, Self.slot(world, 600, 660), as: alice, key: "once")
          }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
      #expect(Set(answers.map { "\($0)" }).count == 1)
      guard case .response = answers.first else {
        Issue.record("the write was refused: \(String(describing: answers.first))")
        return
      }
      let listed = try await world.client.matching.listMyAvailability(options: alice.options)
      #expect(listed.availability.count == 1)
    }
  }
}
