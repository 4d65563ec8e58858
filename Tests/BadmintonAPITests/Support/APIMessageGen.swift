import BadmintonAPI
import PropertyBased

/// Random values of every BadmintonBuddy API message, for property tests.
enum APIMessageGen {
  // MARK: - Field values

  static func string(_ rng: inout any SeededRandomNumberGenerator, maxLength: Int = 40) -> String {
    let length = Int.random(in: 0...maxLength, using: &rng)
    var scalars = String.UnicodeScalarView()
    for _ in 0..<length {
      switch Int.random(in: 0..<10, using: &rng) {
      case 0:
        // CJK, as zh-CN nicknames and notes are.
        scalars.append(Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &rng))!)
      case 1:
        // Emoji, outside the basic plane (4-byte UTF-8).
        scalars.append(Unicode.Scalar(UInt32.random(in: 0x1F300...0x1F64F, using: &rng))!)
      case 2:
        // Other 2- and 3-byte scalars; U+0000 never, as protobuf-c strings end at it.
        scalars.append(Unicode.Scalar(UInt32.random(in: 0x80...0xD7FF, using: &rng))!)
      default:
        scalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng)))
      }
    }
    return String(scalars)
  }

  static func bytes(_ rng: inout any SeededRandomNumberGenerator, maxLength: Int = 300) -> [UInt8] {
    (0..<Int.random(in: 0...maxLength, using: &rng)).map { _ in
      UInt8.random(in: 0...255, using: &rng)
    }
  }

  static func bool(_ rng: inout any SeededRandomNumberGenerator) -> Bool {
    Bool.random(using: &rng)
  }

  static func int64(_ rng: inout any SeededRandomNumberGenerator) -> Int64 {
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: 0
    case 1: Int64.random(in: -300...300, using: &rng)
    case 2: Int64.max - Int64.random(in: 0...5, using: &rng)
    case 3: Int64.min + Int64.random(in: 0...5, using: &rng)
    default: Int64.random(in: Int64.min...Int64.max, using: &rng)
    }
  }

  static func int32(_ rng: inout any SeededRandomNumberGenerator) -> Int32 {
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: 0
    case 1: Int32.random(in: -10...10, using: &rng)
    case 2: Int32.max - Int32.random(in: 0...5, using: &rng)
    case 3: Int32.min + Int32.random(in: 0...5, using: &rng)
    default: Int32.random(in: Int32.min...Int32.max, using: &rng)
    }
  }

  /// Any double but NaN, which is unequal to itself.
  static func double(_ rng: inout any SeededRandomNumberGenerator) -> Double {
    switch Int.random(in: 0..<8, using: &rng) {
    case 0: return 0
    case 1: return -0.0
    case 2: return Double.random(in: -200...200, using: &rng)
    case 3:
      return [
        Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude,
        Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude,
        Double.leastNormalMagnitude, Double.infinity, -Double.infinity, 1e300, -1e-300,
      ].randomElement(using: &rng)!
    default:
      // Any bit pattern: huge, tiny, subnormal, negative.
      let value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
      return value.isNaN ? 1.5 : value
    }
  }

  /// Mostly defined numbers; sometimes one this build does not know (proto3 enums are open).
  static func enumNumber(
    _ rng: inout any SeededRandomNumberGenerator, defined: ClosedRange<Int32>
  ) -> Int32 {
    switch Int.random(in: 0..<8, using: &rng) {
    case 0: Int32.random(in: (defined.upperBound + 1)...Int32.max, using: &rng)
    case 1: Int32.random(in: Int32.min...(-1), using: &rng)
    default: Int32.random(in: defined, using: &rng)
    }
  }

  static func count(_ rng: inout any SeededRandomNumberGenerator) -> Int {
    Int.random(in: 0...5, using: &rng)
  }

  // MARK: - Messages

  static func reputationSummary(_ rng: inout any SeededRandomNumberGenerator)
    -> ReputationSummary
  {
    ReputationSummary(
      evaluationCount: int32(&rng), averageSkillAccuracy: double(&rng),
      punctualityPercentage: double(&rng), averageCharacterRating: double(&rng))
  }

  static func profile(_ rng: inout any SeededRandomNumberGenerator) -> Profile {
    Profile(
      userID: int64(&rng), nickname: string(&rng), selfLevel: int32(&rng),
      calculatedLevel: int32(&rng), displayLevel: int32(&rng), newPlayer: bool(&rng),
      verifiedMaxLevel: int32(&rng), totalGames: int32(&rng), wins: int32(&rng),
      winRate: double(&rng), joinedAtUnixMs: int64(&rng), locationUpdatedAtUnixMs: int64(&rng),
      reputation: reputationSummary(&rng), phone: string(&rng, maxLength: 16),
      locale: string(&rng, maxLength: 6))
  }

  static func nearbyPlayer(_ rng: inout any SeededRandomNumberGenerator) -> NearbyPlayer {
    NearbyPlayer(
      userID: int64(&rng), nickname: string(&rng), displayLevel: int32(&rng),
      newPlayer: bool(&rng), reputation: reputationSummary(&rng), distanceMiles: double(&rng),
      locationAgeSeconds: int64(&rng))
  }

  static func verification(_ rng: inout any SeededRandomNumberGenerator) -> Verification {
    Verification(
      id: int64(&rng), userID: int64(&rng),
      kind: VerificationKind(rawValue: enumNumber(&rng, defined: 0...2)),
      state: VerificationState(rawValue: enumNumber(&rng, defined: 0...3)),
      contentType: string(&rng, maxLength: 20), documentSize: int64(&rng),
      submittedAtUnixMs: int64(&rng), reviewedAtUnixMs: int64(&rng), reviewNote: string(&rng))
  }

  /// Absent half of the time; present ones include all-zero values.
  static func optional<T>(
    _ rng: inout any SeededRandomNumberGenerator,
    _ make: (inout any SeededRandomNumberGenerator) -> T
  ) -> T? {
    bool(&rng) ? make(&rng) : nil
  }

  static func matchMode(_ rng: inout any SeededRandomNumberGenerator) -> MatchMode {
    MatchMode(rawValue: enumNumber(&rng, defined: 0...2))
  }

  static func localDate(_ rng: inout any SeededRandomNumberGenerator) -> LocalDate {
    LocalDate(year: int32(&rng), month: int32(&rng), day: int32(&rng))
  }

  static func geoPoint(_ rng: inout any SeededRandomNumberGenerator) -> GeoPoint {
    GeoPoint(latitude: double(&rng), longitude: double(&rng))
  }

  static func timeSlot(_ rng: inout any SeededRandomNumberGenerator) -> TimeSlot {
    TimeSlot(startUnixMs: int64(&rng), endUnixMs: int64(&rng))
  }

  static func skillTolerance(_ rng: inout any SeededRandomNumberGenerator) -> SkillTolerance {
    SkillTolerance(levels: int32(&rng))
  }

  static func availability(_ rng: inout any SeededRandomNumberGenerator) -> Availability {
    Availability(
      id: int64(&rng), userID: int64(&rng), mode: matchMode(&rng), date: localDate(&rng),
      startMinute: int32(&rng), endMinute: int32(&rng), timeZone: string(&rng, maxLength: 30),
      slot: timeSlot(&rng), location: geoPoint(&rng), radiusMiles: double(&rng),
      skillTolerance: int32(&rng), postedAtUnixMs: int64(&rng),
      source: AvailabilitySource(rawValue: enumNumber(&rng, defined: 0...2)))
  }

  static func recurringSlot(_ rng: inout any SeededRandomNumberGenerator) -> RecurringSlot {
    RecurringSlot(
      weekday: int32(&rng), startMinute: int32(&rng), endMinute: int32(&rng),
      mode: matchMode(&rng), active: bool(&rng))
  }

  static func matchCandidate(_ rng: inout any SeededRandomNumberGenerator) -> MatchCandidate {
    MatchCandidate(
      availabilityID: int64(&rng), userID: int64(&rng), nickname: string(&rng),
      displayLevel: int32(&rng), newPlayer: bool(&rng), reputation: reputationSummary(&rng),
      distanceMiles: double(&rng), skillDifference: int32(&rng), overlap: timeSlot(&rng))
  }

  static func matchRelaxation(_ rng: inout any SeededRandomNumberGenerator) -> MatchRelaxation {
    MatchRelaxation(
      kind: RelaxationKind(rawValue: enumNumber(&rng, defined: 0...3)), slot: timeSlot(&rng),
      skillTolerance: int32(&rng), radiusMiles: double(&rng), candidateCount: int32(&rng))
  }

  static func partnerAvailable(_ rng: inout any SeededRandomNumberGenerator) -> PartnerAvailable {
    PartnerAvailable(availabilityID: int64(&rng), candidate: matchCandidate(&rng))
  }

  static func proposalInvitee(_ rng: inout any SeededRandomNumberGenerator) -> ProposalInvitee {
    ProposalInvitee(
      userID: int64(&rng), availabilityID: int64(&rng),
      answer: InviteeAnswer(rawValue: enumNumber(&rng, defined: 0...3)))
  }

  static func proposal(_ rng: inout any SeededRandomNumberGenerator) -> Proposal {
    Proposal(
      id: int64(&rng), proposerID: int64(&rng), proposerAvailabilityID: int64(&rng),
      mode: matchMode(&rng), slot: timeSlot(&rng),
      invitees: (0..<count(&rng)).map { _ in proposalInvitee(&rng) },
      state: ProposalState(rawValue: enumNumber(&rng, defined: 0...4)),
      createdAtUnixMs: int64(&rng), expiresAtUnixMs: int64(&rng), matchID: int64(&rng))
  }

  static func matchParticipant(_ rng: inout any SeededRandomNumberGenerator) -> MatchParticipant {
    MatchParticipant(
      userID: int64(&rng), nickname: string(&rng), displayLevel: int32(&rng), team: int32(&rng),
      availabilityID: int64(&rng))
  }

  static func match(_ rng: inout any SeededRandomNumberGenerator) -> Match {
    Match(
      id: int64(&rng), mode: matchMode(&rng), slot: timeSlot(&rng),
      participants: (0..<count(&rng)).map { _ in matchParticipant(&rng) },
      state: MatchState(rawValue: enumNumber(&rng, defined: 0...3)), proposalID: int64(&rng),
      confirmedAtUnixMs: int64(&rng), cancelledBy: int64(&rng), cancelledAtUnixMs: int64(&rng),
      winningTeam: int32(&rng), completedAtUnixMs: int64(&rng), completedBy: int64(&rng))
  }

  static func proposalReceived(_ rng: inout any SeededRandomNumberGenerator) -> ProposalReceived {
    ProposalReceived(
      proposal: proposal(&rng), proposerNickname: string(&rng),
      proposerDisplayLevel: int32(&rng), proposerReputation: reputationSummary(&rng))
  }

  static func proposalEnded(_ rng: inout any SeededRandomNumberGenerator) -> ProposalEnded {
    ProposalEnded(proposal: proposal(&rng))
  }

  static func matchChanged(_ rng: inout any SeededRandomNumberGenerator) -> MatchChanged {
    MatchChanged(match: match(&rng))
  }

  /// No body, or any of the bodies this build knows.
  static func eventBody(_ rng: inout any SeededRandomNumberGenerator) -> Event.Body? {
    switch Int.random(in: 0..<15, using: &rng) {
    case 0: nil
    case 1: .verificationReviewed(verification(&rng))
    case 2: .partnerAvailable(partnerAvailable(&rng))
    case 3: .proposalReceived(proposalReceived(&rng))
    case 4: .proposalEnded(proposalEnded(&rng))
    case 5: .matchConfirmed(matchChanged(&rng))
    case 6: .matchCancelled(matchChanged(&rng))
    case 7: .friendRequestReceived(friendRequest(&rng))
    case 8: .friendRequestAccepted(friendRequest(&rng))
    case 9: .roomInvitation(roomInvitation(&rng))
    case 10: .roomChanged(roomChanged(&rng))
    case 11: .messageReceived(directMessage(&rng))
    case 12: .messageReceipt(messageReceipt(&rng))
    case 13: .matchCompleted(matchChanged(&rng))
    default: .surveyRequested(surveyRequested(&rng))
    }
  }

  // MARK: - Generators

  static let reputationSummaries = Generator { rng in reputationSummary(&rng) }

  static let registerRequests = Generator { rng in
    RegisterRequest(
      phone: string(&rng, maxLength: 16), nickname: string(&rng), password: string(&rng),
      selfLevel: int32(&rng), locale: string(&rng, maxLength: 6))
  }
  static let registerResponses = Generator { rng in RegisterResponse(userID: int64(&rng)) }
  static let loginRequests = Generator { rng in
    LoginRequest(phone: string(&rng, maxLength: 16), password: string(&rng))
  }
  static let loginResponses = Generator { rng in
    LoginResponse(token: string(&rng), userID: int64(&rng), expiresAtUnixMs: int64(&rng))
  }
  static let logoutRequests = Generator { _ in LogoutRequest() }
  static let logoutResponses = Generator { _ in LogoutResponse() }

  static let profiles = Generator { rng in profile(&rng) }
  static let getProfileRequests = Generator { rng in GetProfileRequest(userID: int64(&rng)) }
  static let getMyProfileRequests = Generator { _ in GetMyProfileRequest() }
  static let updateProfileRequests = Generator { rng in
    UpdateProfileRequest(
      nickname: string(&rng), selfLevel: int32(&rng), locale: string(&rng, maxLength: 6))
  }
  static let updateLocationRequests = Generator { rng in
    UpdateLocationRequest(latitude: double(&rng), longitude: double(&rng))
  }
  static let updateLocationResponses = Generator { rng in
    UpdateLocationResponse(updatedAtUnixMs: int64(&rng))
  }
  static let nearbyPlayersRequests = Generator { rng in
    NearbyPlayersRequest(
      radiusMiles: double(&rng), pageSize: int32(&rng), pageToken: string(&rng))
  }
  static let nearbyPlayers = Generator { rng in nearbyPlayer(&rng) }
  static let nearbyPlayersResponses = Generator { rng in
    NearbyPlayersResponse(
      players: (0..<count(&rng)).map { _ in nearbyPlayer(&rng) }, nextPageToken: string(&rng))
  }
  static let submitVerificationRequests = Generator { rng in
    SubmitVerificationRequest(
      kind: VerificationKind(rawValue: enumNumber(&rng, defined: 0...2)), document: bytes(&rng),
      uploadID: int64(&rng))
  }
  static let uploadDocumentPieceRequests = Generator { rng in
    UploadDocumentPieceRequest(
      uploadID: int64(&rng), totalSize: int64(&rng), offset: int64(&rng), data: bytes(&rng))
  }
  static let documentUploads = Generator { rng in
    DocumentUpload(
      uploadID: int64(&rng), totalSize: int64(&rng), receivedBytes: int64(&rng),
      contentType: string(&rng), expiresAtUnixMs: int64(&rng))
  }
  static let verifications = Generator { rng in verification(&rng) }
  static let listMyVerificationsRequests = Generator { _ in ListMyVerificationsRequest() }
  static let listPendingVerificationsRequests = Generator { _ in
    ListPendingVerificationsRequest()
  }
  static let listVerificationsResponses = Generator { rng in
    ListVerificationsResponse(verifications: (0..<count(&rng)).map { _ in verification(&rng) })
  }
  static let reviewVerificationRequests = Generator { rng in
    ReviewVerificationRequest(verificationID: int64(&rng), approve: bool(&rng), note: string(&rng))
  }
  static let setVerifiedLevelRequests = Generator { rng in
    SetVerifiedLevelRequest(level: int32(&rng))
  }
  static let getVerificationDocumentRequests = Generator { rng in
    GetVerificationDocumentRequest(verificationID: int64(&rng), offset: int64(&rng))
  }
  static let verificationDocuments = Generator { rng in
    VerificationDocument(
      verificationID: int64(&rng), contentType: string(&rng), document: bytes(&rng),
      offset: int64(&rng), totalSize: int64(&rng))
  }
  static let subscribeRequests = Generator { rng in
    SubscribeRequest(afterSequence: UInt64(bitPattern: int64(&rng)))
  }
  static let events = Generator { rng in
    Event(
      sequence: UInt64(bitPattern: int64(&rng)), createdAtUnixMs: int64(&rng),
      body: eventBody(&rng))
  }

  static let localDates = Generator { rng in localDate(&rng) }
  static let geoPoints = Generator { rng in geoPoint(&rng) }
  static let timeSlots = Generator { rng in timeSlot(&rng) }
  static let skillTolerances = Generator { rng in skillTolerance(&rng) }
  static let postAvailabilityRequests = Generator { rng in
    PostAvailabilityRequest(
      mode: matchMode(&rng), date: localDate(&rng), startMinute: int32(&rng),
      endMinute: int32(&rng), timeZone: string(&rng, maxLength: 30),
      location: optional(&rng, geoPoint), radiusMiles: double(&rng),
      skillTolerance: optional(&rng, skillTolerance))
  }
  static let availabilities = Generator { rng in availability(&rng) }
  static let cancelAvailabilityRequests = Generator { rng in
    CancelAvailabilityRequest(availabilityID: int64(&rng))
  }
  static let cancelAvailabilityResponses = Generator { _ in CancelAvailabilityResponse() }
  static let listMyAvailabilityRequests = Generator { _ in ListMyAvailabilityRequest() }
  static let listMyAvailabilityResponses = Generator { rng in
    ListMyAvailabilityResponse(availability: (0..<count(&rng)).map { _ in availability(&rng) })
  }
  static let recurringSlots = Generator { rng in recurringSlot(&rng) }
  static let saveRecurringSlotsRequests = Generator { rng in
    SaveRecurringSlotsRequest(
      slots: (0..<count(&rng)).map { _ in recurringSlot(&rng) },
      timeZone: string(&rng, maxLength: 30), location: optional(&rng, geoPoint),
      radiusMiles: double(&rng), skillTolerance: optional(&rng, skillTolerance))
  }
  static let getRecurringSlotsRequests = Generator { _ in GetRecurringSlotsRequest() }
  static let recurringSlotSets = Generator { rng in
    RecurringSlots(
      slots: (0..<count(&rng)).map { _ in recurringSlot(&rng) },
      timeZone: string(&rng, maxLength: 30), location: optional(&rng, geoPoint),
      radiusMiles: double(&rng), skillTolerance: int32(&rng))
  }
  static let findMatchesRequests = Generator { rng in
    FindMatchesRequest(
      availabilityID: int64(&rng), pageSize: int32(&rng), pageToken: string(&rng))
  }
  static let matchCandidates = Generator { rng in matchCandidate(&rng) }
  static let matchRelaxations = Generator { rng in matchRelaxation(&rng) }
  static let findMatchesResponses = Generator { rng in
    FindMatchesResponse(
      candidates: (0..<count(&rng)).map { _ in matchCandidate(&rng) },
      nextPageToken: string(&rng),
      suggestions: (0..<count(&rng)).map { _ in matchRelaxation(&rng) })
  }
  static let partnerAvailables = Generator { rng in partnerAvailable(&rng) }
  static let proposalInvitees = Generator { rng in proposalInvitee(&rng) }
  static let proposals = Generator { rng in proposal(&rng) }
  static let proposeMatchRequests = Generator { rng in
    ProposeMatchRequest(
      availabilityID: int64(&rng),
      candidateAvailabilityIDs: (0..<count(&rng)).map { _ in int64(&rng) })
  }
  static let respondToProposalRequests = Generator { rng in
    RespondToProposalRequest(proposalID: int64(&rng), accept: bool(&rng))
  }
  static let getProposalRequests = Generator { rng in GetProposalRequest(proposalID: int64(&rng)) }
  static let matchParticipants = Generator { rng in matchParticipant(&rng) }
  static let matches = Generator { rng in match(&rng) }
  static let getMatchRequests = Generator { rng in GetMatchRequest(matchID: int64(&rng)) }
  static let listMyMatchesRequests = Generator { rng in
    ListMyMatchesRequest(past: bool(&rng), pageSize: int32(&rng), pageToken: string(&rng))
  }
  static let listMyMatchesResponses = Generator { rng in
    ListMyMatchesResponse(
      matches: (0..<count(&rng)).map { _ in match(&rng) }, nextPageToken: string(&rng))
  }
  static let cancelMatchRequests = Generator { rng in CancelMatchRequest(matchID: int64(&rng)) }
  static let proposalReceiveds = Generator { rng in proposalReceived(&rng) }
  static let proposalEndeds = Generator { rng in proposalEnded(&rng) }
  static let matchChangeds = Generator { rng in matchChanged(&rng) }
}
