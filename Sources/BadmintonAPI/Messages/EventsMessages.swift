public import BadmintonRPC
public import CBadmintonProto

/// `badminton.v1.SubscribeRequest`: where to resume the event stream.
public struct SubscribeRequest: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.SubscribeRequest`.
  public typealias CMessage = Badminton__V1__SubscribeRequest
  /// protoc-c's descriptor of `badminton.v1.SubscribeRequest`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.SubscribeRequest")

  /// Replay stored events after this sequence; 0 replays every event still kept.
  public var afterSequence: UInt64

  /// The request with every field at its default.
  public init() { self.init(afterSequence: 0) }

  /// A request resuming after `afterSequence`.
  public init(afterSequence: UInt64 = 0) { self.afterSequence = afterSequence }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.afterSequence = c.after_sequence
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__subscribe_request__init(&c)
    c.after_sequence = afterSequence
    return c
  }
}

/// `badminton.v1.Event`: one thing the server tells a player.
public struct Event: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.Event`.
  public typealias CMessage = Badminton__V1__Event
  /// protoc-c's descriptor of `badminton.v1.Event`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.Event")

  /// What happened (`oneof body`).
  public enum Body: Hashable, Sendable {
    /// One of the player's verification requests was approved or rejected.
    case verificationReviewed(Verification)
    /// Someone posted availability that fits one of the player's own.
    case partnerAvailable(PartnerAvailable)
    /// A player invites this one to play.
    case proposalReceived(ProposalReceived)
    /// A proposal this player is part of was declined or lapsed.
    case proposalEnded(ProposalEnded)
    /// A match this player is part of was confirmed.
    case matchConfirmed(MatchChanged)
    /// A match this player is part of was cancelled by another participant.
    case matchCancelled(MatchChanged)
    /// A player asks this one to be friends.
    case friendRequestReceived(FriendRequest)
    /// A player accepted this one's friend request.
    case friendRequestAccepted(FriendRequest)
    /// A friend invites this player to their room.
    case roomInvitation(RoomInvitation)
    /// Something happened in a room this player is in, or was kicked from.
    case roomChanged(RoomChanged)
    /// A player sent this one a message.
    case messageReceived(DirectMessage)
    /// Messages this player sent were delivered to, or read by, the recipient.
    case messageReceipt(MessageReceipt)
    /// A match this player is part of was completed: its result is recorded.
    case matchCompleted(MatchChanged)
    /// This player has a survey to fill in for a completed match, due in 48 hours.
    case surveyRequested(SurveyRequested)
  }

  /// Per player, increasing with every event; the cursor to resubscribe from.
  public var sequence: UInt64
  /// When the event happened, in milliseconds since 1970-01-01 UTC.
  public var createdAtUnixMs: Int64
  /// What happened; nil when the sender set no body or one this build does not know.
  public var body: Body?

  /// The message with every field at its default.
  public init() { self.init(sequence: 0) }

  /// An event with the given fields.
  public init(sequence: UInt64 = 0, createdAtUnixMs: Int64 = 0, body: Body? = nil) {
    self.sequence = sequence
    self.createdAtUnixMs = createdAtUnixMs
    self.body = body
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.sequence = c.sequence
    self.createdAtUnixMs = c.created_at_unix_ms
    switch c.body_case {
    case BADMINTON__V1__EVENT__BODY_VERIFICATION_REVIEWED:
      self.body = try CField.message(c.verification_reviewed, as: Verification.self)
        .map(Body.verificationReviewed)
    case BADMINTON__V1__EVENT__BODY_PARTNER_AVAILABLE:
      self.body = try CField.message(c.partner_available, as: PartnerAvailable.self)
        .map(Body.partnerAvailable)
    case BADMINTON__V1__EVENT__BODY_PROPOSAL_RECEIVED:
      self.body = try CField.message(c.proposal_received, as: ProposalReceived.self)
        .map(Body.proposalReceived)
    case BADMINTON__V1__EVENT__BODY_PROPOSAL_ENDED:
      self.body = try CField.message(c.proposal_ended, as: ProposalEnded.self)
        .map(Body.proposalEnded)
    case BADMINTON__V1__EVENT__BODY_MATCH_CONFIRMED:
      self.body = try CField.message(c.match_confirmed, as: MatchChanged.self)
        .map(Body.matchConfirmed)
    case BADMINTON__V1__EVENT__BODY_MATCH_CANCELLED:
      self.body = try CField.message(c.match_cancelled, as: MatchChanged.self)
        .map(Body.matchCancelled)
    case BADMINTON__V1__EVENT__BODY_FRIEND_REQUEST_RECEIVED:
      self.body = try CField.message(c.friend_request_received, as: FriendRequest.self).map(
        Body.friendRequestReceived)
    case BADMINTON__V1__EVENT__BODY_FRIEND_REQUEST_ACCEPTED:
      self.body = try CField.message(c.friend_request_accepted, as: FriendRequest.self).map(
        Body.friendRequestAccepted)
    case BADMINTON__V1__EVENT__BODY_ROOM_INVITATION:
      self.body = try CField.message(c.room_invitation, as: RoomInvitation.self).map(
        Body.roomInvitation)
    case BADMINTON__V1__EVENT__BODY_ROOM_CHANGED:
      self.body = try CField.message(c.room_changed, as: RoomChanged.self).map(Body.roomChanged)
    case BADMINTON__V1__EVENT__BODY_MESSAGE_RECEIVED:
      self.body = try CField.message(c.message_received, as: DirectMessage.self).map(
        Body.messageReceived)
    case BADMINTON__V1__EVENT__BODY_MESSAGE_RECEIPT:
      self.body = try CField.message(c.message_receipt, as: MessageReceipt.self).map(
        Body.messageReceipt)
    case BADMINTON__V1__EVENT__BODY_MATCH_COMPLETED:
      self.body = try CField.message(c.match_completed, as: MatchChanged.self).map(
        Body.matchCompleted)
    case BADMINTON__V1__EVENT__BODY_SURVEY_REQUESTED:
      self.body = try CField.message(c.survey_requested, as: SurveyRequested.self).map(
        Body.surveyRequested)
    default:
      self.body = nil
    }
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__event__init(&c)
    c.sequence = sequence
    c.created_at_unix_ms = createdAtUnixMs
    switch body {
    case .verificationReviewed(let verification):
      c.body_case = BADMINTON__V1__EVENT__BODY_VERIFICATION_REVIEWED
      c.verification_reviewed = arena.pointer(to: verification.cMessage(in: arena))
    case .partnerAvailable(let partnerAvailable):
      c.body_case = BADMINTON__V1__EVENT__BODY_PARTNER_AVAILABLE
      c.partner_available = arena.pointer(to: partnerAvailable.cMessage(in: arena))
    case .proposalReceived(let proposalReceived):
      c.body_case = BADMINTON__V1__EVENT__BODY_PROPOSAL_RECEIVED
      c.proposal_received = arena.pointer(to: proposalReceived.cMessage(in: arena))
    case .proposalEnded(let proposalEnded):
      c.body_case = BADMINTON__V1__EVENT__BODY_PROPOSAL_ENDED
      c.proposal_ended = arena.pointer(to: proposalEnded.cMessage(in: arena))
    case .matchConfirmed(let matchChanged):
      c.body_case = BADMINTON__V1__EVENT__BODY_MATCH_CONFIRMED
      c.match_confirmed = arena.pointer(to: matchChanged.cMessage(in: arena))
    case .matchCancelled(let matchChanged):
      c.body_case = BADMINTON__V1__EVENT__BODY_MATCH_CANCELLED
      c.match_cancelled = arena.pointer(to: matchChanged.cMessage(in: arena))
    case .friendRequestReceived(let body):
      c.body_case = BADMINTON__V1__EVENT__BODY_FRIEND_REQUEST_RECEIVED
      c.friend_request_received = arena.pointer(to: body.cMessage(in: arena))
    case .friendRequestAccepted(let body):
      c.body_case = BADMINTON__V1__EVENT__BODY_FRIEND_REQUEST_ACCEPTED
      c.friend_request_accepted = arena.pointer(to: body.cMessage(in: arena))
    case .roomInvitation(let body):
      c.body_case = BADMINTON__V1__EVENT__BODY_ROOM_INVITATION
      c.room_invitation = arena.pointer(to: body.cMessage(in: arena))
    case .roomChanged(let body):
      c.body_case = BADMINTON__V1__EVENT__BODY_ROOM_CHANGED
      c.room_changed = arena.pointer(to: body.cMessage(in: arena))
    case .messageReceived(let body):
      c.body_case = BADMINTON__V1__EVENT__BODY_MESSAGE_RECEIVED
      c.message_received = arena.pointer(to: body.cMessage(in: arena))
    case .messageReceipt(let body):
      c.body_case = BADMINTON__V1__EVENT__BODY_MESSAGE_RECEIPT
      c.message_receipt = arena.pointer(to: body.cMessage(in: arena))
    case .matchCompleted(let body):
      c.body_case = BADMINTON__V1__EVENT__BODY_MATCH_COMPLETED
      c.match_completed = arena.pointer(to: body.cMessage(in: arena))
    case .surveyRequested(let body):
      c.body_case = BADMINTON__V1__EVENT__BODY_SURVEY_REQUESTED
      c.survey_requested = arena.pointer(to: body.cMessage(in: arena))
    case nil:
      c.body_case = BADMINTON__V1__EVENT__BODY__NOT_SET
    }
    return c
  }
}
