import BadmintonAPI
import PropertyBased

/// Random values of the friends, rooms, messages and schedule messages.
extension APIMessageGen {
  static func playerCard(_ rng: inout any SeededRandomNumberGenerator) -> PlayerCard {
    PlayerCard(
      userID: int64(&rng), nickname: string(&rng), displayLevel: int32(&rng), newPlayer: bool(&rng),
      reputation: reputationSummary(&rng))
  }

  static func friendRequest(_ rng: inout any SeededRandomNumberGenerator) -> FriendRequest {
    FriendRequest(
      id: int64(&rng), sender: playerCard(&rng), recipient: playerCard(&rng),
      state: FriendRequestState(rawValue: enumNumber(&rng, defined: 0...3)),
      sentAtUnixMs: int64(&rng), answeredAtUnixMs: int64(&rng))
  }

  static func sendFriendRequestRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> SendFriendRequestRequest
  {
    SendFriendRequestRequest(userID: int64(&rng))
  }

  static func answerFriendRequestRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> AnswerFriendRequestRequest
  {
    AnswerFriendRequestRequest(requestID: int64(&rng))
  }

  static func friend(_ rng: inout any SeededRandomNumberGenerator) -> Friend {
    Friend(player: playerCard(&rng), sinceUnixMs: int64(&rng))
  }

  static func listFriendsRequest(_ rng: inout any SeededRandomNumberGenerator) -> ListFriendsRequest
  {
    ListFriendsRequest()
  }

  static func listFriendsResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> ListFriendsResponse
  {
    ListFriendsResponse(friends: (0..<count(&rng)).map { _ in friend(&rng) })
  }

  static func listFriendRequestsRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> ListFriendRequestsRequest
  {
    ListFriendRequestsRequest(pageSize: int32(&rng), pageToken: string(&rng), outgoing: bool(&rng))
  }

  static func listFriendRequestsResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> ListFriendRequestsResponse
  {
    ListFriendRequestsResponse(
      incoming: (0..<count(&rng)).map { _ in friendRequest(&rng) },
      outgoing: (0..<count(&rng)).map { _ in friendRequest(&rng) }, nextPageToken: string(&rng))
  }

  static func removeFriendRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> RemoveFriendRequest
  {
    RemoveFriendRequest(userID: int64(&rng))
  }

  static func removeFriendResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> RemoveFriendResponse
  {
    RemoveFriendResponse()
  }

  static func blockRequest(_ rng: inout any SeededRandomNumberGenerator) -> BlockRequest {
    BlockRequest(userID: int64(&rng))
  }

  static func blockResponse(_ rng: inout any SeededRandomNumberGenerator) -> BlockResponse {
    BlockResponse()
  }

  static func unblockRequest(_ rng: inout any SeededRandomNumberGenerator) -> UnblockRequest {
    UnblockRequest(userID: int64(&rng))
  }

  static func unblockResponse(_ rng: inout any SeededRandomNumberGenerator) -> UnblockResponse {
    UnblockResponse()
  }

  static func listBlockedRequest(_ rng: inout any SeededRandomNumberGenerator) -> ListBlockedRequest
  {
    ListBlockedRequest()
  }

  static func blockedPlayer(_ rng: inout any SeededRandomNumberGenerator) -> BlockedPlayer {
    BlockedPlayer(player: playerCard(&rng), blockedAtUnixMs: int64(&rng))
  }

  static func listBlockedResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> ListBlockedResponse
  {
    ListBlockedResponse(players: (0..<count(&rng)).map { _ in blockedPlayer(&rng) })
  }

  static func roomParticipant(_ rng: inout any SeededRandomNumberGenerator) -> RoomParticipant {
    RoomParticipant(player: playerCard(&rng), joinedAtUnixMs: int64(&rng))
  }

  static func room(_ rng: inout any SeededRandomNumberGenerator) -> Room {
    Room(
      id: int64(&rng), code: string(&rng), mode: matchMode(&rng),
      state: RoomState(rawValue: enumNumber(&rng, defined: 0...4)), ownerID: int64(&rng),
      participants: (0..<count(&rng)).map { _ in roomParticipant(&rng) }, ready: bool(&rng),
      createdAtUnixMs: int64(&rng), lastActivityAtUnixMs: int64(&rng), expiresAtUnixMs: int64(&rng),
      matchID: int64(&rng))
  }

  static func createRoomRequest(_ rng: inout any SeededRandomNumberGenerator) -> CreateRoomRequest {
    CreateRoomRequest(mode: matchMode(&rng))
  }

  static func joinRoomRequest(_ rng: inout any SeededRandomNumberGenerator) -> JoinRoomRequest {
    JoinRoomRequest(code: string(&rng))
  }

  static func getRoomRequest(_ rng: inout any SeededRandomNumberGenerator) -> GetRoomRequest {
    GetRoomRequest(roomID: int64(&rng))
  }

  static func inviteToRoomRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> InviteToRoomRequest
  {
    InviteToRoomRequest(userID: int64(&rng))
  }

  static func inviteToRoomResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> InviteToRoomResponse
  {
    InviteToRoomResponse()
  }

  static func kickFromRoomRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> KickFromRoomRequest
  {
    KickFromRoomRequest(userID: int64(&rng))
  }

  static func leaveRoomRequest(_ rng: inout any SeededRandomNumberGenerator) -> LeaveRoomRequest {
    LeaveRoomRequest()
  }

  static func leaveRoomResponse(_ rng: inout any SeededRandomNumberGenerator) -> LeaveRoomResponse {
    LeaveRoomResponse()
  }

  static func startMatchRequest(_ rng: inout any SeededRandomNumberGenerator) -> StartMatchRequest {
    StartMatchRequest(slot: optional(&rng, timeSlot))
  }

  static func startMatchResponse(_ rng: inout any SeededRandomNumberGenerator) -> StartMatchResponse
  {
    StartMatchResponse(room: room(&rng), match: match(&rng))
  }

  static func roomChanged(_ rng: inout any SeededRandomNumberGenerator) -> RoomChanged {
    RoomChanged(
      room: room(&rng), change: RoomChange(rawValue: enumNumber(&rng, defined: 0...7)),
      actorID: int64(&rng), subjectID: int64(&rng))
  }

  static func roomInvitation(_ rng: inout any SeededRandomNumberGenerator) -> RoomInvitation {
    RoomInvitation(room: room(&rng), inviter: playerCard(&rng))
  }

  static func directMessage(_ rng: inout any SeededRandomNumberGenerator) -> DirectMessage {
    DirectMessage(
      id: int64(&rng), threadID: int64(&rng), senderID: int64(&rng), recipientID: int64(&rng),
      clientMessageID: string(&rng), text: string(&rng), sentAtUnixMs: int64(&rng),
      deliveredAtUnixMs: int64(&rng), readAtUnixMs: int64(&rng))
  }

  static func sendMessageRequest(_ rng: inout any SeededRandomNumberGenerator) -> SendMessageRequest
  {
    SendMessageRequest(recipientID: int64(&rng), clientMessageID: string(&rng), text: string(&rng))
  }

  static func ackDeliveredRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> AckDeliveredRequest
  {
    AckDeliveredRequest(messageIDs: (0..<count(&rng)).map { _ in int64(&rng) })
  }

  static func ackDeliveredResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> AckDeliveredResponse
  {
    AckDeliveredResponse(acknowledged: int32(&rng))
  }

  static func markReadRequest(_ rng: inout any SeededRandomNumberGenerator) -> MarkReadRequest {
    MarkReadRequest(threadID: int64(&rng), upToMessageID: int64(&rng))
  }

  static func markReadResponse(_ rng: inout any SeededRandomNumberGenerator) -> MarkReadResponse {
    MarkReadResponse(totalUnread: int32(&rng))
  }

  static func loadMessagesRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> LoadMessagesRequest
  {
    LoadMessagesRequest(threadID: int64(&rng), beforeMessageID: int64(&rng), limit: int32(&rng))
  }

  static func loadMessagesResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> LoadMessagesResponse
  {
    LoadMessagesResponse(
      messages: (0..<count(&rng)).map { _ in directMessage(&rng) }, nextBeforeMessageID: int64(&rng)
    )
  }

  static func listThreadsRequest(_ rng: inout any SeededRandomNumberGenerator) -> ListThreadsRequest
  {
    ListThreadsRequest(pageSize: int32(&rng), pageToken: string(&rng))
  }

  static func messageThread(_ rng: inout any SeededRandomNumberGenerator) -> MessageThread {
    MessageThread(
      id: int64(&rng), other: playerCard(&rng), lastMessage: directMessage(&rng),
      unreadCount: int32(&rng))
  }

  static func listThreadsResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> ListThreadsResponse
  {
    ListThreadsResponse(
      threads: (0..<count(&rng)).map { _ in messageThread(&rng) }, totalUnread: int32(&rng),
      nextPageToken: string(&rng))
  }

  static func syncMessagesRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> SyncMessagesRequest
  {
    SyncMessagesRequest(afterMessageID: int64(&rng), limit: int32(&rng))
  }

  static func syncMessagesResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> SyncMessagesResponse
  {
    SyncMessagesResponse(
      messages: (0..<count(&rng)).map { _ in directMessage(&rng) }, nextAfterMessageID: int64(&rng),
      more: bool(&rng))
  }

  static func deleteConversationRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> DeleteConversationRequest
  {
    DeleteConversationRequest(threadID: int64(&rng))
  }

  static func deleteConversationResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> DeleteConversationResponse
  {
    DeleteConversationResponse()
  }

  static func messageReceipt(_ rng: inout any SeededRandomNumberGenerator) -> MessageReceipt {
    MessageReceipt(
      threadID: int64(&rng), kind: ReceiptKind(rawValue: enumNumber(&rng, defined: 0...2)),
      messageIDs: (0..<count(&rng)).map { _ in int64(&rng) }, atUnixMs: int64(&rng))
  }

  static func daySchedule(_ rng: inout any SeededRandomNumberGenerator) -> DaySchedule {
    DaySchedule(
      date: localDate(&rng), status: DayStatus(rawValue: enumNumber(&rng, defined: 0...3)),
      note: string(&rng), updatedAtUnixMs: int64(&rng))
  }

  static func getMyScheduleRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> GetMyScheduleRequest
  {
    GetMyScheduleRequest(timeZone: string(&rng))
  }

  static func weekSchedule(_ rng: inout any SeededRandomNumberGenerator) -> WeekSchedule {
    WeekSchedule(userID: int64(&rng), days: (0..<count(&rng)).map { _ in daySchedule(&rng) })
  }

  static func updateDayStatusRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> UpdateDayStatusRequest
  {
    UpdateDayStatusRequest(
      date: localDate(&rng), status: DayStatus(rawValue: enumNumber(&rng, defined: 0...3)),
      note: string(&rng), timeZone: string(&rng))
  }

  static func getFriendsSchedulesRequest(_ rng: inout any SeededRandomNumberGenerator)
    -> GetFriendsSchedulesRequest
  {
    GetFriendsSchedulesRequest(
      timeZone: string(&rng), pageSize: int32(&rng), pageToken: string(&rng))
  }

  static func friendSchedule(_ rng: inout any SeededRandomNumberGenerator) -> FriendSchedule {
    FriendSchedule(player: playerCard(&rng), days: (0..<count(&rng)).map { _ in daySchedule(&rng) })
  }

  static func getFriendsSchedulesResponse(_ rng: inout any SeededRandomNumberGenerator)
    -> GetFriendsSchedulesResponse
  {
    GetFriendsSchedulesResponse(
      friends: (0..<count(&rng)).map { _ in friendSchedule(&rng) }, nextPageToken: string(&rng))
  }

  static let playerCardValues = Generator { rng in playerCard(&rng) }
  static let friendRequestValues = Generator { rng in friendRequest(&rng) }
  static let sendFriendRequestRequestValues = Generator { rng in sendFriendRequestRequest(&rng) }
  static let answerFriendRequestRequestValues = Generator { rng in answerFriendRequestRequest(&rng)
  }
  static let friendValues = Generator { rng in friend(&rng) }
  static let listFriendsRequestValues = Generator { rng in listFriendsRequest(&rng) }
  static let listFriendsResponseValues = Generator { rng in listFriendsResponse(&rng) }
  static let listFriendRequestsRequestValues = Generator { rng in listFriendRequestsRequest(&rng) }
  static let listFriendRequestsResponseValues = Generator { rng in listFriendRequestsResponse(&rng)
  }
  static let removeFriendRequestValues = Generator { rng in removeFriendRequest(&rng) }
  static let removeFriendResponseValues = Generator { rng in removeFriendResponse(&rng) }
  static let blockRequestValues = Generator { rng in blockRequest(&rng) }
  static let blockResponseValues = Generator { rng in blockResponse(&rng) }
  static let unblockRequestValues = Generator { rng in unblockRequest(&rng) }
  static let unblockResponseValues = Generator { rng in unblockResponse(&rng) }
  static let listBlockedRequestValues = Generator { rng in listBlockedRequest(&rng) }
  static let blockedPlayerValues = Generator { rng in blockedPlayer(&rng) }
  static let listBlockedResponseValues = Generator { rng in listBlockedResponse(&rng) }
  static let roomParticipantValues = Generator { rng in roomParticipant(&rng) }
  static let roomValues = Generator { rng in room(&rng) }
  static let createRoomRequestValues = Generator { rng in createRoomRequest(&rng) }
  static let joinRoomRequestValues = Generator { rng in joinRoomRequest(&rng) }
  static let getRoomRequestValues = Generator { rng in getRoomRequest(&rng) }
  static let inviteToRoomRequestValues = Generator { rng in inviteToRoomRequest(&rng) }
  static let inviteToRoomResponseValues = Generator { rng in inviteToRoomResponse(&rng) }
  static let kickFromRoomRequestValues = Generator { rng in kickFromRoomRequest(&rng) }
  static let leaveRoomRequestValues = Generator { rng in leaveRoomRequest(&rng) }
  static let leaveRoomResponseValues = Generator { rng in leaveRoomResponse(&rng) }
  static let startMatchRequestValues = Generator { rng in startMatchRequest(&rng) }
  static let startMatchResponseValues = Generator { rng in startMatchResponse(&rng) }
  static let roomChangedValues = Generator { rng in roomChanged(&rng) }
  static let roomInvitationValues = Generator { rng in roomInvitation(&rng) }
  static let directMessageValues = Generator { rng in directMessage(&rng) }
  static let sendMessageRequestValues = Generator { rng in sendMessageRequest(&rng) }
  static let ackDeliveredRequestValues = Generator { rng in ackDeliveredRequest(&rng) }
  static let ackDeliveredResponseValues = Generator { rng in ackDeliveredResponse(&rng) }
  static let markReadRequestValues = Generator { rng in markReadRequest(&rng) }
  static let markReadResponseValues = Generator { rng in markReadResponse(&rng) }
  static let loadMessagesRequestValues = Generator { rng in loadMessagesRequest(&rng) }
  static let loadMessagesResponseValues = Generator { rng in loadMessagesResponse(&rng) }
  static let listThreadsRequestValues = Generator { rng in listThreadsRequest(&rng) }
  static let messageThreadValues = Generator { rng in messageThread(&rng) }
  static let listThreadsResponseValues = Generator { rng in listThreadsResponse(&rng) }
  static let syncMessagesRequestValues = Generator { rng in syncMessagesRequest(&rng) }
  static let syncMessagesResponseValues = Generator { rng in syncMessagesResponse(&rng) }
  static let deleteConversationRequestValues = Generator { rng in deleteConversationRequest(&rng) }
  static let deleteConversationResponseValues = Generator { rng in deleteConversationResponse(&rng)
  }
  static let messageReceiptValues = Generator { rng in messageReceipt(&rng) }
  static let dayScheduleValues = Generator { rng in daySchedule(&rng) }
  static let getMyScheduleRequestValues = Generator { rng in getMyScheduleRequest(&rng) }
  static let weekScheduleValues = Generator { rng in weekSchedule(&rng) }
  static let updateDayStatusRequestValues = Generator { rng in updateDayStatusRequest(&rng) }
  static let getFriendsSchedulesRequestValues = Generator { rng in getFriendsSchedulesRequest(&rng)
  }
  static let friendScheduleValues = Generator { rng in friendSchedule(&rng) }
  static let getFriendsSchedulesResponseValues = Generator { rng in
    getFriendsSchedulesResponse(&rng)
  }
}
