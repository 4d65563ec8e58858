import BadmintonAPI
import BadmintonRPC
import Foundation
import PropertyBased
import Testing

/// One message type's round-trip property, run as one case of a parameterized test.
struct RoundTripCase: Sendable, CustomTestStringConvertible {
  let name: String
  let check: @Sendable () async -> Void

  var testDescription: String { name }

  /// Random messages of `generator` survive encode then decode, and re-encode to the same bytes.
  static func of<M: ProtobufMessage>(_ generator: Generator<M, Shrink.None<M>>) -> RoundTripCase {
    RoundTripCase(name: M.fullName) {
      await propertyCheck(count: 150, input: generator) { message in
        let bytes = message.serializedBytes()
        let decoded = try? M(serializedBytes: bytes)
        #expect(decoded == message)
        #expect(decoded?.serializedBytes() == bytes)
        #expect(message.serializedSize == bytes.count)
      }
    }
  }
}

@Suite("BadmintonBuddy API messages and services")
struct MessageRoundTripTests {
  /// Every message type generated from `Proto/`: the product's and the protocol's.
  static var messageTypes: [any ProtobufMessage.Type] {
    APIContract.messageTypes + RPCContract.messageTypes
  }

  static let roundTripCases = MessageGen.roundTripCases

  @Test("every message survives encode then decode", arguments: roundTripCases)
  func message_roundTrips(_ roundTrip: RoundTripCase) async {
    await roundTrip.check()
  }

  @Test("every message type has a round-trip property")
  func everyMessageType_isChecked() {
    let checked = Set(Self.roundTripCases.map(\.name))
    #expect(checked == Set(Self.messageTypes.map { $0.fullName }))
    #expect(checked.count == Self.roundTripCases.count)
  }

  @Test("the registries list every message protoc-c generated, each once, in its own package")
  func messageTypes_matchDescriptors() {
    let api = APIContract.messageTypes.map { $0.fullName }
    let rpc = RPCContract.messageTypes.map { $0.fullName }
    #expect(api.allSatisfy { $0.hasPrefix("badminton.v1.") })
    #expect(rpc.allSatisfy { $0.hasPrefix("badminton.rpc.v1.") })
    #expect(Set(api + rpc).count == api.count + rpc.count)
    // Every message a service names, in either direction, is in a registry.
    let named = (APIContract.services + RPCContract.services).flatMap(\.methods).flatMap {
      [$0.requestType, $0.responseType]
    }
    #expect(Set(named).isSubset(of: Set(api + rpc)))
  }

  @Test("each service lists the methods protoc-c generated, with the same message types")
  func services_matchDescriptors() throws {
    #expect(
      BadmintonAPI.services == [
        Accounts.descriptor, Players.descriptor, Events.descriptor, Matching.descriptor,
        Friends.descriptor, Rooms.descriptor, Messages.descriptor, Schedule.descriptor,
        Surveys.descriptor,
      ])
    let generated = APIContract.services
    #expect(Set(generated.map(\.fullName)) == Set(BadmintonAPI.services.map(\.name)))
    for service in BadmintonAPI.services {
      let c = try #require(generated.first { $0.fullName == service.name })
      let expected = c.methods.map {
        "/\(c.fullName)/\($0.name) \($0.requestType) -> \($0.responseType)"
      }
      let actual = service.methods.map { "\($0.path) \($0.requestType) -> \($0.responseType)" }
      #expect(actual == expected)
      #expect(
        service.methods.filter(\.serverStreaming).map(\.path)
          == (service.name == Events.serviceName ? [Events.subscribe.path] : []))
    }
  }

  @Test("methods carry the agreed idempotency and authentication flags")
  func methods_haveTheirFlags() {
    let flags = Dictionary(
      uniqueKeysWithValues: BadmintonAPI.services.flatMap(\.methods).map {
        ($0.path, [$0.idempotent, $0.requiresAuthentication])
      })
    #expect(
      flags == [
        "/badminton.v1.Accounts/Register": [false, false],
        "/badminton.v1.Accounts/Login": [false, false],
        "/badminton.v1.Accounts/Logout": [true, true],
        "/badminton.v1.Players/GetProfile": [true, true],
        "/badminton.v1.Players/GetMyProfile": [true, true],
        "/badminton.v1.Players/UpdateProfile": [true, true],
        "/badminton.v1.Players/UpdateLocation": [true, true],
        "/badminton.v1.Players/NearbyPlayers": [true, true],
        "/badminton.v1.Players/UploadDocumentPiece": [false, true],
        "/badminton.v1.Players/SubmitVerification": [false, true],
        "/badminton.v1.Players/ListMyVerifications": [true, true],
        "/badminton.v1.Players/ListPendingVerifications": [true, true],
        "/badminton.v1.Players/GetVerificationDocument": [true, true],
        "/badminton.v1.Events/Subscribe": [true, true],
        "/badminton.v1.Players/ReviewVerification": [false, true],
        "/badminton.v1.Players/SetVerifiedLevel": [true, true],
        "/badminton.v1.Matching/PostAvailability": [false, true],
        "/badminton.v1.Matching/CancelAvailability": [true, true],
        "/badminton.v1.Matching/ListMyAvailability": [true, true],
        "/badminton.v1.Matching/SaveRecurringSlots": [true, true],
        "/badminton.v1.Matching/GetRecurringSlots": [true, true],
        "/badminton.v1.Matching/FindMatches": [true, true],
        "/badminton.v1.Matching/ProposeMatch": [false, true],
        "/badminton.v1.Matching/RespondToProposal": [false, true],
        "/badminton.v1.Matching/GetProposal": [true, true],
        "/badminton.v1.Matching/GetMatch": [true, true],
        "/badminton.v1.Matching/ListMyMatches": [true, true],
        "/badminton.v1.Matching/CancelMatch": [true, true],
        "/badminton.v1.Friends/SendFriendRequest": [false, true],
        "/badminton.v1.Friends/AcceptFriendRequest": [true, true],
        "/badminton.v1.Friends/DeclineFriendRequest": [true, true],
        "/badminton.v1.Friends/ListFriends": [true, true],
        "/badminton.v1.Friends/ListFriendRequests": [true, true],
        "/badminton.v1.Friends/RemoveFriend": [true, true],
        "/badminton.v1.Friends/Block": [true, true],
        "/badminton.v1.Friends/Unblock": [true, true],
        "/badminton.v1.Friends/ListBlocked": [true, true],
        "/badminton.v1.Rooms/CreateRoom": [false, true],
        "/badminton.v1.Rooms/JoinRoom": [false, true],
        "/badminton.v1.Rooms/GetRoom": [true, true],
        "/badminton.v1.Rooms/InviteToRoom": [false, true],
        "/badminton.v1.Rooms/KickFromRoom": [false, true],
        "/badminton.v1.Rooms/LeaveRoom": [false, true],
        "/badminton.v1.Rooms/StartMatch": [false, true],
        "/badminton.v1.Messages/SendMessage": [true, true],
        "/badminton.v1.Messages/AckDelivered": [true, true],
        "/badminton.v1.Messages/MarkRead": [true, true],
        "/badminton.v1.Messages/LoadMessages": [true, true],
        "/badminton.v1.Messages/ListThreads": [true, true],
        "/badminton.v1.Messages/SyncMessages": [true, true],
        "/badminton.v1.Messages/DeleteConversation": [true, true],
        "/badminton.v1.Schedule/GetMySchedule": [true, true],
        "/badminton.v1.Schedule/UpdateDayStatus": [true, true],
        "/badminton.v1.Schedule/GetFriendsSchedules": [true, true],
        "/badminton.v1.Surveys/CompleteMatch": [true, true],
        "/badminton.v1.Surveys/ListPendingSurveys": [true, true],
        "/badminton.v1.Surveys/SubmitSurvey": [false, true],
        "/badminton.v1.Surveys/GetReputation": [true, true],
      ])
  }

  @Test("the stubs take an idempotency key exactly where the .proto's option says so")
  func idempotencyKeyFlags_followTheContract() throws {
    // Every `rpc` of Proto/badminton/v1, with whether its body sets the option.
    let proto = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Proto/badminton/v1").standardized
    var fromContract: [String: Bool] = [:]
    for file in try FileManager.default.contentsOfDirectory(atPath: proto.path)
    where file.hasSuffix(".proto") {
      let text = try String(contentsOf: proto.appendingPathComponent(file), encoding: .utf8)
      var service = ""
      var pending: String?
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let words = line.split(separator: " ")
        if words.first == "service", words.count > 1 { service = String(words[1]) }
        if words.first == "rpc", let name = words.dropFirst().first?.split(separator: "(").first {
          let path = "/badminton.v1.\(service)/\(name)"
          fromContract[path] = false
          if line.hasSuffix("{") { pending = path }
        } else if let method = pending {
          if line.contains("option (badminton.rpc.v1.idempotency_key) = true;") {
            fromContract[method] = true
          } else if line.contains("}") {
            pending = nil
          }
        }
      }
    }
    let fromStubs = Dictionary(
      uniqueKeysWithValues: BadmintonAPI.services.flatMap(\.methods).map {
        ($0.path, $0.takesIdempotencyKey)
      })
    #expect(fromStubs == fromContract)
    #expect(fromStubs.values.filter { $0 }.count == 31)
  }

  @Test("a reputation is always encoded, and an absent one decodes as all zero")
  func reputation_isAlwaysPresent() throws {
    // Field 13, length-delimited, empty: the all-zero summary.
    #expect(Profile().serializedBytes() == [0x6A, 0x00])
    #expect(try Profile(serializedBytes: []) == Profile())
    #expect(try Profile(serializedBytes: []).reputation == ReputationSummary())
    // Field 5 of NearbyPlayer.
    #expect(NearbyPlayer().serializedBytes() == [0x2A, 0x00])
    #expect(try NearbyPlayer(serializedBytes: []).reputation == ReputationSummary())
  }

  @Test("matching's nested messages without presence are always encoded, and absent ones zero")
  func matchingNestedMessages_areAlwaysPresent() throws {
    // PostAvailabilityRequest.date is field 2; location and skill_tolerance have presence.
    #expect(PostAvailabilityRequest().serializedBytes() == [0x12, 0x00])
    #expect(try PostAvailabilityRequest(serializedBytes: []).date == LocalDate())
    // Availability: date (4), slot (8) and location (9).
    #expect(Availability().serializedBytes() == [0x22, 0x00, 0x42, 0x00, 0x4A, 0x00])
    let availability = try Availability(serializedBytes: [])
    #expect(availability.date == LocalDate())
    #expect(availability.slot == TimeSlot())
    #expect(availability.location == GeoPoint())
    // MatchCandidate: reputation (6) and overlap (9).
    #expect(MatchCandidate().serializedBytes() == [0x32, 0x00, 0x4A, 0x00])
    #expect(try MatchCandidate(serializedBytes: []) == MatchCandidate())
    // MatchRelaxation: slot (2).
    #expect(MatchRelaxation().serializedBytes() == [0x12, 0x00])
    #expect(try MatchRelaxation(serializedBytes: []).slot == TimeSlot())
    // PartnerAvailable: candidate (2), itself with its reputation and overlap.
    #expect(PartnerAvailable().serializedBytes() == [0x12, 0x04, 0x32, 0x00, 0x4A, 0x00])
    #expect(try PartnerAvailable(serializedBytes: []).candidate == MatchCandidate())
    // Proposal: slot (5); Match: slot (3).
    #expect(Proposal().serializedBytes() == [0x2A, 0x00])
    #expect(try Proposal(serializedBytes: []).slot == TimeSlot())
    #expect(Match().serializedBytes() == [0x1A, 0x00])
    #expect(try Match(serializedBytes: []).slot == TimeSlot())
    // ProposalReceived: proposal (1), itself with its slot, and proposer_reputation (4).
    #expect(ProposalReceived().serializedBytes() == [0x0A, 0x02, 0x2A, 0x00, 0x22, 0x00])
    #expect(try ProposalReceived(serializedBytes: []) == ProposalReceived())
    // ProposalEnded and MatchChanged: the proposal or match (1), with its slot.
    #expect(ProposalEnded().serializedBytes() == [0x0A, 0x02, 0x2A, 0x00])
    #expect(try ProposalEnded(serializedBytes: []).proposal == Proposal())
    #expect(MatchChanged().serializedBytes() == [0x0A, 0x02, 0x1A, 0x00])
    #expect(try MatchChanged(serializedBytes: []).match == Match())
    // Only fields with presence are left out.
    #expect(SaveRecurringSlotsRequest().serializedBytes() == [])
    #expect(RecurringSlots().serializedBytes() == [])
  }

  @Test("an absent location or skill tolerance stays absent, and a zero one stays present")
  func locationAndTolerancePresence_survivesRoundTrip() throws {
    let locations: [GeoPoint?] = [nil, GeoPoint(), GeoPoint(latitude: 31.2, longitude: 121.4)]
    let tolerances: [SkillTolerance?] = [nil, SkillTolerance(levels: 0), SkillTolerance(levels: 3)]
    for location in locations {
      for tolerance in tolerances {
        let post = PostAvailabilityRequest(
          mode: .singles, location: location, skillTolerance: tolerance)
        let decodedPost = try PostAvailabilityRequest(serializedBytes: post.serializedBytes())
        #expect(decodedPost.location == location)
        #expect(decodedPost.skillTolerance == tolerance)

        let save = SaveRecurringSlotsRequest(location: location, skillTolerance: tolerance)
        let decodedSave = try SaveRecurringSlotsRequest(serializedBytes: save.serializedBytes())
        #expect(decodedSave.location == location)
        #expect(decodedSave.skillTolerance == tolerance)
      }
      let slots = RecurringSlots(location: location)
      #expect(try RecurringSlots(serializedBytes: slots.serializedBytes()).location == location)
    }
  }

  @Test("the summary of a player with no evaluations")
  func emptyReputation_hasTheProductDefaults() {
    let empty = ReputationSummary.empty
    #expect(empty.evaluationCount == 0)
    #expect(empty.averageSkillAccuracy == 0)
    #expect(empty.punctualityPercentage == 100)
    #expect(empty.averageCharacterRating == 3)
  }

  @Test("hand-made reference bytes decode to the messages they describe")
  func handMadeVectors_decode() throws {
    // {user_id: -1}: a negative int64 is a 10-byte varint.
    let negative: [UInt8] = [0x08] + Array(repeating: 0xFF, count: 9) + [0x01]
    #expect(try RegisterResponse(serializedBytes: negative) == RegisterResponse(userID: -1))
    #expect(RegisterResponse(userID: -1).serializedBytes() == negative)

    // {phone: "+1", nickname: "羽", self_level: 3}
    let register: [UInt8] =
      [0x0A, 0x02] + Array("+1".utf8) + [0x12, 0x03] + Array("羽".utf8) + [0x20, 0x03]
    let request = RegisterRequest(phone: "+1", nickname: "羽", selfLevel: 3)
    #expect(try RegisterRequest(serializedBytes: register) == request)
    #expect(request.serializedBytes() == register)

    // {latitude: 1.5}: a fixed64 little-endian double.
    let location: [UInt8] = [0x09, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F]
    #expect(try UpdateLocationRequest(serializedBytes: location).latitude == 1.5)

    // {kind: NATIONAL_CHAMPIONSHIP, document: 01 02}
    let submit: [UInt8] = [0x08, 0x02, 0x12, 0x02, 0x01, 0x02]
    #expect(
      try SubmitVerificationRequest(serializedBytes: submit)
        == SubmitVerificationRequest(kind: .nationalChampionship, document: [1, 2]))

    // Verification{id: 7, user_id: 3, kind: REGIONAL, state: APPROVED, content_type: "image/png",
    // document_size: 300, review_note: "ok"}
    let verificationBytes: [UInt8] =
      [0x08, 0x07, 0x10, 0x03, 0x18, 0x01, 0x20, 0x02, 0x2A, 0x09] + Array("image/png".utf8)
      + [0x30, 0xAC, 0x02, 0x4A, 0x02] + Array("ok".utf8)
    let verification = Verification(
      id: 7, userID: 3, kind: .regionalChampionship, state: .approved, contentType: "image/png",
      documentSize: 300, reviewNote: "ok")
    #expect(try Verification(serializedBytes: verificationBytes) == verification)
    #expect(verification.serializedBytes() == verificationBytes)

    // NearbyPlayer{user_id: 5, nickname: "林", display_level: 6, new_player: true,
    // reputation: {evaluation_count: 2}, distance_miles: 2.0}
    let nearbyBytes: [UInt8] =
      [0x08, 0x05, 0x12, 0x03] + Array("林".utf8) + [0x18, 0x06, 0x20, 0x01, 0x2A, 0x02, 0x08, 0x02]
      + [0x31, 0, 0, 0, 0, 0, 0, 0, 0x40]
    let nearby = NearbyPlayer(
      userID: 5, nickname: "林", displayLevel: 6, newPlayer: true,
      reputation: ReputationSummary(evaluationCount: 2), distanceMiles: 2)
    #expect(try NearbyPlayer(serializedBytes: nearbyBytes) == nearby)
    #expect(nearby.serializedBytes() == nearbyBytes)

    // Event{sequence: 4, created_at_unix_ms: 1, verification_reviewed: {id: 9}}: the oneof
    // member is field 10, a nested message.
    let eventBytes: [UInt8] = [0x08, 0x04, 0x10, 0x01, 0x52, 0x02, 0x08, 0x09]
    let event = Event(
      sequence: 4, createdAtUnixMs: 1, body: .verificationReviewed(Verification(id: 9)))
    #expect(try Event(serializedBytes: eventBytes) == event)
    #expect(event.serializedBytes() == eventBytes)

    // PostAvailabilityRequest{mode: DOUBLES, date: {2026, 5, 9}, start_minute: 1080,
    // end_minute: 1200, time_zone: "Asia/Shanghai", location: {1.5, -0.5}, radius_miles: 10,
    // skill_tolerance: {levels: 0}}: the zero tolerance is present, field 8 with an empty body.
    let postHead: [UInt8] =
      [0x08, 0x02, 0x12, 0x07, 0x08, 0xEA, 0x0F, 0x10, 0x05, 0x18, 0x09]
      + [0x18, 0xB8, 0x08, 0x20, 0xB0, 0x09, 0x2A, 0x0D] + Array("Asia/Shanghai".utf8)
    let postLocation: [UInt8] =
      [0x32, 0x12, 0x09, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 0x11, 0, 0, 0, 0, 0, 0, 0xE0, 0xBF]
    let postRadius: [UInt8] = [0x39, 0, 0, 0, 0, 0, 0, 0x24, 0x40]
    let postBytes = postHead + postLocation + postRadius + [0x42, 0x00]
    let post = PostAvailabilityRequest(
      mode: .doubles, date: LocalDate(year: 2026, month: 5, day: 9), startMinute: 1080,
      endMinute: 1200, timeZone: "Asia/Shanghai",
      location: GeoPoint(latitude: 1.5, longitude: -0.5),
      radiusMiles: 10, skillTolerance: SkillTolerance(levels: 0))
    #expect(try PostAvailabilityRequest(serializedBytes: postBytes) == post)
    #expect(post.serializedBytes() == postBytes)

    // The same request with location and skill_tolerance absent: neither field is written.
    let bareBytes = postHead + postRadius
    var bare = post
    bare.location = nil
    bare.skillTolerance = nil
    #expect(try PostAvailabilityRequest(serializedBytes: bareBytes) == bare)
    #expect(bare.serializedBytes() == bareBytes)

    // Event{sequence: 5, partner_available: {availability_id: 3, candidate: {user_id: 8,
    // overlap: {start_unix_ms: 1, end_unix_ms: 2}}}}: the oneof member is field 11; the
    // candidate's reputation (field 6) is written empty.
    let partnerBytes: [UInt8] =
      [0x08, 0x05, 0x5A, 0x0E, 0x08, 0x03, 0x12, 0x0A]
      + [0x10, 0x08, 0x32, 0x00, 0x4A, 0x04, 0x08, 0x01, 0x10, 0x02]
    let partnerEvent = Event(
      sequence: 5,
      body: .partnerAvailable(
        PartnerAvailable(
          availabilityID: 3,
          candidate: MatchCandidate(userID: 8, overlap: TimeSlot(startUnixMs: 1, endUnixMs: 2)))))
    #expect(try Event(serializedBytes: partnerBytes) == partnerEvent)
    #expect(partnerEvent.serializedBytes() == partnerBytes)

    // Proposal{id: 7, proposer_id: 3, proposer_availability_id: 11, mode: SINGLES,
    // slot: {start_unix_ms: 1, end_unix_ms: 2}, invitees: [{user_id: 5, availability_id: 12,
    // answer: ANSWER_ACCEPTED}], state: PROPOSAL_ACCEPTED, created_at_unix_ms: 100,
    // expires_at_unix_ms: 300, match_id: 9}: the invitee is field 6, a nested message.
    let proposalBytes: [UInt8] =
      [0x08, 0x07, 0x10, 0x03, 0x18, 0x0B, 0x20, 0x01, 0x2A, 0x04, 0x08, 0x01, 0x10, 0x02]
      + [0x32, 0x06, 0x08, 0x05, 0x10, 0x0C, 0x18, 0x02]
      + [0x38, 0x02, 0x40, 0x64, 0x48, 0xAC, 0x02, 0x50, 0x09]
    let proposal = Proposal(
      id: 7, proposerID: 3, proposerAvailabilityID: 11, mode: .singles,
      slot: TimeSlot(startUnixMs: 1, endUnixMs: 2),
      invitees: [ProposalInvitee(userID: 5, availabilityID: 12, answer: .accepted)],
      state: .accepted, createdAtUnixMs: 100, expiresAtUnixMs: 300, matchID: 9)
    #expect(try Proposal(serializedBytes: proposalBytes) == proposal)
    #expect(proposal.serializedBytes() == proposalBytes)

    // ProposeMatchRequest{availability_id: 2, candidate_availability_ids: [5, 300]}: the IDs
    // are packed into one length-delimited field 2; unpacked ones decode the same.
    let proposeBytes: [UInt8] = [0x08, 0x02, 0x12, 0x03, 0x05, 0xAC, 0x02]
    let propose = ProposeMatchRequest(availabilityID: 2, candidateAvailabilityIDs: [5, 300])
    #expect(try ProposeMatchRequest(serializedBytes: proposeBytes) == propose)
    #expect(propose.serializedBytes() == proposeBytes)
    let unpacked: [UInt8] = [0x08, 0x02, 0x10, 0x05, 0x10, 0xAC, 0x02]
    #expect(try ProposeMatchRequest(serializedBytes: unpacked) == propose)

    // Event{sequence: 6, match_cancelled: {match: {id: 4, mode: DOUBLES, slot: {1, 2},
    // participants: [{user_id: 8, nickname: "林", display_level: 5, team: 2,
    // availability_id: 13}], state: CANCELLED, proposal_id: 3, confirmed_at_unix_ms: 10,
    // cancelled_by: 8, cancelled_at_unix_ms: 20}}}: the oneof member is field 15 (tag 0x7A).
    let matchBytes: [UInt8] =
      [0x08, 0x04, 0x10, 0x02, 0x1A, 0x04, 0x08, 0x01, 0x10, 0x02]
      + [0x22, 0x0D, 0x08, 0x08, 0x12, 0x03] + Array("林".utf8)
      + [0x18, 0x05, 0x20, 0x02, 0x28, 0x0D]
      + [0x28, 0x02, 0x30, 0x03, 0x38, 0x0A, 0x40, 0x08, 0x48, 0x14]
    let changedBody: [UInt8] = [0x25, 0x0A, 0x23] + matchBytes
    let cancelledBytes: [UInt8] = [0x08, 0x06, 0x7A] + changedBody
    let match = Match(
      id: 4, mode: .doubles, slot: TimeSlot(startUnixMs: 1, endUnixMs: 2),
      participants: [
        MatchParticipant(userID: 8, nickname: "林", displayLevel: 5, team: 2, availabilityID: 13)
      ],
      state: .cancelled, proposalID: 3, confirmedAtUnixMs: 10, cancelledBy: 8,
      cancelledAtUnixMs: 20)
    let cancelledEvent = Event(sequence: 6, body: .matchCancelled(MatchChanged(match: match)))
    #expect(try Event(serializedBytes: cancelledBytes) == cancelledEvent)
    #expect(cancelledEvent.serializedBytes() == cancelledBytes)

    // The same body as field 14 (tag 0x72) is match_confirmed: the two members share a type.
    let confirmedBytes: [UInt8] = [0x08, 0x06, 0x72] + changedBody
    let confirmedEvent = Event(sequence: 6, body: .matchConfirmed(MatchChanged(match: match)))
    #expect(try Event(serializedBytes: confirmedBytes) == confirmedEvent)
    #expect(confirmedEvent.serializedBytes() == confirmedBytes)
  }

  @Test("enum numbers this build does not know are kept, and every number has a name")
  func enums_keepUnknownNumbers() throws {
    let verification = Verification(
      kind: VerificationKind(rawValue: 77), state: VerificationState(rawValue: -5))
    let decoded = try Verification(serializedBytes: verification.serializedBytes())
    #expect(decoded.kind.rawValue == 77)
    #expect(decoded.state.rawValue == -5)

    #expect(VerificationKind.unspecified.description == "VERIFICATION_KIND_UNSPECIFIED")
    #expect(VerificationKind.regionalChampionship.description == "REGIONAL_CHAMPIONSHIP")
    #expect(VerificationKind.nationalChampionship.description == "NATIONAL_CHAMPIONSHIP")
    #expect(VerificationKind(rawValue: 77).description == "VERIFICATION_KIND_77")
    #expect(VerificationState.unspecified.description == "VERIFICATION_STATE_UNSPECIFIED")
    #expect(VerificationState.pending.description == "PENDING")
    #expect(VerificationState.approved.description == "APPROVED")
    #expect(VerificationState.rejected.description == "REJECTED")
    #expect(VerificationState(rawValue: -5).description == "VERIFICATION_STATE_-5")

    let availability = Availability(
      mode: MatchMode(rawValue: 9), source: AvailabilitySource(rawValue: -1))
    let decodedAvailability = try Availability(serializedBytes: availability.serializedBytes())
    #expect(decodedAvailability.mode.rawValue == 9)
    #expect(decodedAvailability.source.rawValue == -1)
    let relaxation = MatchRelaxation(kind: RelaxationKind(rawValue: 40))
    #expect(try MatchRelaxation(serializedBytes: relaxation.serializedBytes()).kind.rawValue == 40)

    #expect(MatchMode.unspecified.description == "MATCH_MODE_UNSPECIFIED")
    #expect(MatchMode.singles.description == "SINGLES")
    #expect(MatchMode.doubles.description == "DOUBLES")
    #expect(MatchMode(rawValue: 9).description == "MATCH_MODE_9")
    #expect(AvailabilitySource.unspecified.description == "AVAILABILITY_SOURCE_UNSPECIFIED")
    #expect(AvailabilitySource.posted.description == "POSTED")
    #expect(AvailabilitySource.recurring.description == "RECURRING")
    #expect(AvailabilitySource(rawValue: -1).description == "AVAILABILITY_SOURCE_-1")
    #expect(RelaxationKind.unspecified.description == "RELAXATION_KIND_UNSPECIFIED")
    #expect(RelaxationKind.widenTime.description == "WIDEN_TIME")
    #expect(RelaxationKind.raiseSkillTolerance.description == "RAISE_SKILL_TOLERANCE")
    #expect(RelaxationKind.widenRadius.description == "WIDEN_RADIUS")
    #expect(RelaxationKind(rawValue: 40).description == "RELAXATION_KIND_40")

    let invitee = ProposalInvitee(answer: InviteeAnswer(rawValue: 12))
    #expect(try ProposalInvitee(serializedBytes: invitee.serializedBytes()).answer.rawValue == 12)
    let proposal = Proposal(state: ProposalState(rawValue: -3))
    #expect(try Proposal(serializedBytes: proposal.serializedBytes()).state.rawValue == -3)
    let match = Match(state: MatchState(rawValue: 8))
    #expect(try Match(serializedBytes: match.serializedBytes()).state.rawValue == 8)

    #expect(ProposalState.unspecified.description == "PROPOSAL_STATE_UNSPECIFIED")
    #expect(ProposalState.pending.description == "PROPOSAL_PENDING")
    #expect(ProposalState.accepted.description == "PROPOSAL_ACCEPTED")
    #expect(ProposalState.declined.description == "PROPOSAL_DECLINED")
    #expect(ProposalState.lapsed.description == "PROPOSAL_LAPSED")
    #expect(ProposalState(rawValue: -3).description == "PROPOSAL_STATE_-3")
    #expect(InviteeAnswer.unspecified.description == "INVITEE_ANSWER_UNSPECIFIED")
    #expect(InviteeAnswer.pending.description == "ANSWER_PENDING")
    #expect(InviteeAnswer.accepted.description == "ANSWER_ACCEPTED")
    #expect(InviteeAnswer.declined.description == "ANSWER_DECLINED")
    #expect(InviteeAnswer(rawValue: 12).description == "INVITEE_ANSWER_12")
    #expect(MatchState.unspecified.description == "MATCH_STATE_UNSPECIFIED")
    #expect(MatchState.confirmed.description == "CONFIRMED")
    #expect(MatchState.cancelled.description == "CANCELLED")
    #expect(MatchState(rawValue: 8).description == "MATCH_STATE_8")
  }

  @Test("bytes that are not a message are refused with the message's name")
  func garbage_isRefused() {
    // A length-delimited field that claims more bytes than there are.
    #expect(throws: MessageDecodingError(messageType: "badminton.v1.Profile")) {
      try Profile(serializedBytes: [0x12, 0x10, 0x41])
    }
    // A reputation that is not a valid summary.
    #expect(throws: MessageDecodingError.self) {
      try NearbyPlayer(serializedBytes: [0x2A, 0x02, 0x0F, 0x00])
    }
    // A location that is not a valid point.
    #expect(throws: MessageDecodingError.self) {
      try PostAvailabilityRequest(serializedBytes: [0x32, 0x02, 0x0F, 0x00])
    }
  }
}

@Suite("Request limits of the API methods")
struct RequestLimitTests {
  @Test("the largest document piece, sent whole or as an upload's piece, fits the default limit")
  func largestPiece_fits() {
    let piece = Array(repeating: UInt8(0xFF), count: Players.maximumDocumentPieceBytes)
    let whole = SubmitVerificationRequest(
      kind: .nationalChampionship, document: piece, uploadID: .max)
    #expect(whole.serializedBytes().count <= Players.submitVerification.maximumRequestBytes)
    let upload = UploadDocumentPieceRequest(
      uploadID: .max, totalSize: .max, offset: .max, data: piece)
    #expect(upload.serializedBytes().count <= Players.uploadDocumentPiece.maximumRequestBytes)
  }

  @Test("the document methods keep the 64 KiB default: documents arrive in pieces")
  func documentMethods_keepTheDefault() {
    #expect(Players.submitVerification.maximumRequestBytes == 64 * 1024)
    #expect(Players.uploadDocumentPiece.maximumRequestBytes == 64 * 1024)
    #expect(Players.getProfile.maximumRequestBytes == 64 * 1024)
  }
}
