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
    let second = await call()
    #expect(second == first, "\(method.path)", sourceLocation: sourceLocation)
    #expect(counter.commits == before, "\(method.path) wrote again", sourceLocation: sourceLocation)
    return first
  }
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
      mode: .singles, date: tomorrow(world), startMinute: start, endMinute: end, timeZone: "UTC")
  }

  @Test(
    "each of the 31 keyed writes, repeated with its key, gets its first answer and commits nothing",
    arguments: StoreKind.allCases)
  func everyKeyedWrite_answersOnce(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player(nickname: "Alice")
      let bob = try await world.player(nickname: "Bob")
      let carol = try await world.player(nickname: "Carol")
      let admin = try await world.administrator()
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
}
