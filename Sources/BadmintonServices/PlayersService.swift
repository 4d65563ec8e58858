public import BadmintonAPI
import BadmintonDomain
public import BadmintonProjections
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Players`: profiles, verification, locations and nearby players. Every method
/// acts as the caller the session token names; no request field can name another player to
/// change. Profiles and nearby pages are read from memory (`PlayerBook`, `NearbyIndex`,
/// projections of the store's feed); writes go to the store, whose commit updates them before
/// the write returns.
public struct PlayersService: Players.ServiceProtocol {
  private let store: any PlayerStore
  private let index: NearbyIndex
  private let players: PlayerBook
  private let blocks: any BlockRelations
  private let clock: any WallClock
  private let events: EventPublisher
  private let uploads: AddressRateLimiter?
  private let openUploadBytes: Int64
  private let suspensions: SuspensionBook?

  /// The service over `store`, reading players from `players` and positions from `index` (both
  /// follow the store's change feed, as the match board does).
  /// Verification documents (sent whole or uploads started) are limited per address by
  /// `uploads`, when given, and unfinished uploads together hold at most `openUploadBytes` on
  /// disk. NearbyPlayers leaves out the players `suspensions` holds suspended.
  public init(
    store: any PlayerStore, index: NearbyIndex, players: PlayerBook, blocks: any BlockRelations,
    clock: any WallClock, events: EventPublisher, uploads: AddressRateLimiter? = nil,
    openUploadBytes: Int64 = 1 << 30, suspensions: SuspensionBook? = nil
  ) {
    self.suspensions = suspensions
    self.uploads = uploads
    self.openUploadBytes = openUploadBytes
    self.events = events
    self.store = store
    self.index = index
    self.players = players
    self.blocks = blocks
    self.clock = clock
  }

  /// The player with `id` as last committed, from memory.
  private func player(_ id: Int64) throws(DomainError) -> PlayerEntry {
    guard let player = players.player(id) else { throw DomainError.playerNotFound }
    return player
  }

  // MARK: Profiles

  public func getProfile(_ request: GetProfileRequest, context: ServerContext) async throws
    -> Profile
  {
    let caller = try context.requirePrincipal()
    let target = try player(request.userID)
    return Self.profile(of: target, includePrivate: target.id == caller.userID)
  }

  public func getMyProfile(_ request: GetMyProfileRequest, context: ServerContext) throws
    -> Profile
  {
    Self.profile(of: try player(context.requirePrincipal().userID), includePrivate: true)
  }

  public func updateProfile(_ request: UpdateProfileRequest, context: ServerContext) async throws
    -> Profile
  {
    let caller = try context.requirePrincipal()
    var changes = ProfileChanges()
    if !request.nickname.isEmpty {
      changes.nickname = try PlayerRules.validateNickname(request.nickname)
    }
    if request.selfLevel != 0 {
      // The verified maximum is checked again inside the store's transaction.
      try PlayerRules.validateSelfLevel(Int(request.selfLevel), verifiedMaximum: 9)
      changes.selfLevel = Int(request.selfLevel)
    }
    if !request.locale.isEmpty {
      changes.locale = try PlayerRules.validateLocale(request.locale)
    }
    let updated = try await withKeyedAnswer({
      Self.profile(of: PlayerEntry($0), includePrivate: true)
    }) { try await store.updateProfile(id: caller.userID, changes) }
    return Self.profile(of: PlayerEntry(updated), includePrivate: true)
  }

  public func setVerifiedLevel(_ request: SetVerifiedLevelRequest, context: ServerContext)
    async throws -> Profile
  {
    let caller = try context.requirePrincipal()
    guard request.level == 8 || request.level == 9 else {
      throw DomainError.invalidField(
        "level", "VERIFIED_LEVEL_INVALID", en: "Only levels 8 and 9 are verified levels.",
        zhCN: "只有 8 级和 9 级需要认证。")
    }
    do {
      let updated = try await withKeyedAnswer(
        { Self.profile(of: PlayerEntry($0), includePrivate: true) },
        refine: Self.levelField
      ) {
        try await store.updateProfile(
          id: caller.userID, ProfileChanges(selfLevel: Int(request.level)))
      }
      return Self.profile(of: PlayerEntry(updated), includePrivate: true)
    } catch let error as DomainError {
      throw Self.levelField(error)
    }
  }

  /// A refusal of the level: the rule is shared with UpdateProfile, whose field is
  /// `self_level`; SetVerifiedLevel's is called `level`.
  @Sendable static func levelField(_ error: DomainError) -> DomainError {
    var error = error
    for index in error.violations.indices where error.violations[index].field == "self_level" {
      error.violations[index].field = "level"
    }
    return error
  }

  /// The profile message for `player`; the phone only for the player themselves.
  static func profile(of player: PlayerEntry, includePrivate: Bool) -> Profile {
    let display = player.displayLevel
    return Profile(
      userID: player.id, nickname: player.nickname, selfLevel: Int32(player.selfLevel),
      calculatedLevel: Int32(
        SkillRating.calculatedLevel(
          selfLevel: player.selfLevel, peerRatingSum: player.peerRatingSum,
          peerRatingCount: player.peerRatingCount) ?? 0),
      displayLevel: Int32(display.level), newPlayer: display.isNewPlayer,
      verifiedMaxLevel: Int32(player.verifiedMaxLevel), totalGames: Int32(player.totalGames),
      wins: Int32(player.wins),
      winRate: SkillRating.winRate(wins: player.wins, totalGames: player.totalGames),
      joinedAtUnixMs: player.joinedAtUnixMs,
      locationUpdatedAtUnixMs: player.locationUpdatedAtUnixMs ?? 0,
      reputation: summary(player.reputation),
      phone: includePrivate ? player.phone : "",
      locale: includePrivate ? player.locale : "")
  }

  static func summary(_ score: ReputationScore) -> ReputationSummary {
    ReputationSummary(
      evaluationCount: Int32(score.evaluationCount),
      averageSkillAccuracy: score.averageSkillAccuracy,
      punctualityPercentage: score.punctualityPercentage,
      averageCharacterRating: score.averageCharacterRating)
  }

  // MARK: Locations

  public func updateLocation(_ request: UpdateLocationRequest, context: ServerContext) async throws
    -> UpdateLocationResponse
  {
    let caller = try context.requirePrincipal()
    let location = try Coordinate.validated(
      latitude: request.latitude, longitude: request.longitude)
    // Hopping from place to place to measure others from many sides is slowed to travel speed,
    // measured from the last location the store committed.
    let now = try await index.move(
      caller.userID, to: location,
      stored: {
        guard let stored = players.player(caller.userID), let location = stored.location else {
          return nil
        }
        return (location, stored.locationUpdatedAtUnixMs ?? clock.nowUnixMs())
      },
      now: clock.nowUnixMs,
      write: { now in
        try await withKeyedAnswer({ (_: Int64) in UpdateLocationResponse(updatedAtUnixMs: now) }) {
          try await store.updateLocation(id: caller.userID, to: location, atUnixMs: now)
        }
      })
    return UpdateLocationResponse(updatedAtUnixMs: now)
  }

  public func nearbyPlayers(_ request: NearbyPlayersRequest, context: ServerContext) async throws
    -> NearbyPlayersResponse
  {
    let caller = try context.requirePrincipal()
    let radius = request.radiusMiles == 0 ? Geo.maximumRadiusMiles : request.radiusMiles
    guard radius.isFinite, radius > 0, radius <= Geo.maximumRadiusMiles else {
      throw DomainError.invalidField(
        "radius_miles", "RADIUS_OUT_OF_RANGE",
        en: "The radius must be more than 0 and at most 50 miles.",
        zhCN: "搜索半径须大于 0 且不超过 50 英里。")
    }
    let pageSize = try PageRules.size(Int(request.pageSize))
    let after = try request.pageToken.isEmpty ? nil : Self.decodePageToken(request.pageToken)
    guard let center = index.location(of: caller.userID) else {
      throw DomainError(
        .failedPrecondition, "LOCATION_UNKNOWN",
        en: "Share your location first to find players nearby.", zhCN: "需要位置权限才能找到附近的球友")
    }
    var excluded = try await blocks.playersBlocked(eitherWayWith: caller.userID)
    excluded.insert(caller.userID)
    if let suspensions { excluded.formUnion(suspensions.holding(nowUnixMs: clock.nowUnixMs())) }
    // One more than the page, to tell whether another page follows.
    let hits = index.nearest(
      to: center, radiusMiles: radius, after: after, limit: pageSize + 1, excluding: excluded)
    let page = Array(hits.prefix(pageSize))
    let players = self.players.players(ids: page.map(\.playerID))
    let now = clock.nowUnixMs()
    let entries = page.compactMap { hit -> NearbyPlayer? in
      guard let player = players[hit.playerID] else { return nil }
      let display = player.displayLevel
      return NearbyPlayer(
        userID: player.id, nickname: player.nickname, displayLevel: Int32(display.level),
        newPlayer: display.isNewPlayer, reputation: Self.summary(player.reputation),
        distanceMiles: hit.distanceMiles,
        locationAgeSeconds: max(0, (now - (player.locationUpdatedAtUnixMs ?? now)) / 1000))
    }
    let more = hits.count > page.count
    return NearbyPlayersResponse(
      players: entries, nextPageToken: more ? Self.encodePageToken(page.last!) : "")
  }

  /// The listing name of NearbyPlayers' page tokens.
  static let pageTokenKind = "nearby"

  /// A page token: `nearby.BANDS.ID`, the last hit's shown distance as a whole number of bands
  /// and its player id ([`PageToken`]).
  static func encodePageToken(_ hit: NearbyHit) -> String {
    let bands = Int64((hit.distanceMiles / LocationPrivacy.bandMiles).rounded())
    return PageToken(kind: pageTokenKind, values: [bands, hit.playerID]).text
  }

  /// The hit a page token names; only a token `encodePageToken` could give, for a shown distance
  /// within the largest radius and a positive player id, else `PAGE_TOKEN_INVALID`.
  static func decodePageToken(_ token: String) throws(DomainError) -> NearbyHit {
    let values = try PageToken.parse(token, kind: pageTokenKind, count: 2)
    let maximumBands = Int64((Geo.maximumRadiusMiles / LocationPrivacy.bandMiles).rounded(.up))
    guard (1...maximumBands).contains(values[0]), values[1] > 0 else { throw PageToken.invalid() }
    return NearbyHit(
      playerID: values[1], distanceMiles: Double(values[0]) * LocationPrivacy.bandMiles)
  }

  // MARK: Verification

  public func submitVerification(_ request: SubmitVerificationRequest, context: ServerContext)
    async throws -> Verification
  {
    let caller = try context.requirePrincipal()
    let kind: ChampionshipKind
    switch request.kind {
    case .regionalChampionship: kind = .regional
    case .nationalChampionship: kind = .national
    default:
      throw DomainError.invalidField(
        "kind", "VERIFICATION_KIND_INVALID",
        en: "Choose a regional or a national championship.", zhCN: "请选择地区赛或全国赛冠军认证。")
    }
    if request.uploadID != 0 {
      guard request.document.isEmpty else { throw DocumentUploadRules.documentTwice }
      return Self.message(
        try await withKeyedAnswer({ Self.message($0) }) {
          try await store.createVerification(
            playerID: caller.userID, kind: kind, uploadID: request.uploadID,
            atUnixMs: clock.nowUnixMs())
        })
    }
    guard request.document.count <= DocumentUploadRules.maximumPieceBytes else {
      throw DocumentUploadRules.documentNeedsUpload
    }
    let contentType = try EvidenceDocument.validate(request.document)
    try uploads?.take(clientAddressKey(context.peerAddress))
    return Self.message(
      try await withKeyedAnswer({ Self.message($0) }) {
        try await store.createVerification(
          playerID: caller.userID, kind: kind, contentType: contentType.rawValue,
          document: request.document, atUnixMs: clock.nowUnixMs())
      })
  }

  public func uploadDocumentPiece(_ request: UploadDocumentPieceRequest, context: ServerContext)
    async throws -> DocumentUpload
  {
    let caller = try context.requirePrincipal()
    try DocumentUploadRules.validatePiece(request.data)
    let upload: DocumentUploadRecord
    if request.uploadID == 0 {
      let contentType = try DocumentUploadRules.validateStart(
        totalSize: request.totalSize, offset: request.offset, firstPiece: request.data)
      let address = clientAddressKey(context.peerAddress)
      try uploads?.take(address)
      do {
        upload = try await withKeyedAnswer({ Self.message($0) }) {
          try await store.startDocumentUpload(
            playerID: caller.userID, contentType: contentType.rawValue,
            totalSize: request.totalSize, firstPiece: request.data, atUnixMs: clock.nowUnixMs(),
            openBytesLimit: openUploadBytes)
        }
      } catch is OpenUploadsFull {
        // The server had no room: nothing started, so the address keeps its allowance.
        uploads?.giveBack(address)
        throw Self.uploadsBusy
      }
    } else {
      do {
        upload = try await withKeyedAnswer({ Self.message($0) }) {
          try await store.appendDocumentPiece(
            playerID: caller.userID, uploadID: request.uploadID, offset: request.offset,
            statedTotal: request.totalSize, data: request.data, atUnixMs: clock.nowUnixMs(),
            openBytesLimit: openUploadBytes)
        }
      } catch is OpenUploadsFull {
        throw Self.uploadsBusy
      }
    }
    return Self.message(upload)
  }

  static func message(_ upload: DocumentUploadRecord) -> DocumentUpload {
    DocumentUpload(
      uploadID: upload.id, totalSize: upload.totalSize, receivedBytes: upload.received,
      contentType: upload.contentType, expiresAtUnixMs: upload.expiresAtUnixMs)
  }

  /// The refusal of a new upload while unfinished uploads hold all the disk they may.
  static let uploadsBusy = RPCError(
    code: .resourceExhausted, reason: "UPLOADS_BUSY",
    message: LocalizedText(
      en: "The server is holding as many unfinished uploads as it can; try again later.",
      zhCN: "服务器暂存的未完成上传已达上限，请稍后再试。"),
    retryAfter: .seconds(60))

  public func listMyVerifications(_ request: ListMyVerificationsRequest, context: ServerContext)
    async throws -> ListVerificationsResponse
  {
    let caller = try context.requirePrincipal()
    return ListVerificationsResponse(
      verifications: try await store.verifications(playerID: caller.userID).map(Self.message))
  }

  private static let administratorOnly = DomainError(
    .permissionDenied, "ADMINISTRATOR_ONLY", en: "Only administrators may review verifications.",
    zhCN: "只有管理员可以审核认证申请。")

  public func listPendingVerifications(
    _ request: ListPendingVerificationsRequest, context: ServerContext
  ) async throws -> ListVerificationsResponse {
    guard try context.requirePrincipal().isAdministrator else { throw Self.administratorOnly }
    return ListVerificationsResponse(
      verifications: try await store.pendingVerifications().map(Self.message))
  }

  public func getVerificationDocument(
    _ request: GetVerificationDocumentRequest, context: ServerContext
  ) async throws -> VerificationDocument {
    let caller = try context.requirePrincipal()
    // Someone else's request reads as missing, so its existence is not revealed.
    let notFound = VerificationRules.notFound
    guard let record = try await store.verification(id: request.verificationID),
      caller.isAdministrator || record.playerID == caller.userID
    else { throw notFound }
    try DocumentUploadRules.checkReadOffset(
      request.offset, totalSize: Int64(record.documentSize))
    guard
      let part = try await store.verificationDocumentPart(id: record.id, offset: request.offset)
    else { throw notFound }
    return VerificationDocument(
      verificationID: record.id, contentType: record.contentType, document: part,
      offset: request.offset, totalSize: Int64(record.documentSize))
  }

  public func reviewVerification(_ request: ReviewVerificationRequest, context: ServerContext)
    async throws -> Verification
  {
    let caller = try context.requirePrincipal()
    guard caller.isAdministrator else { throw Self.administratorOnly }
    let reviewed = try await Self.review(
      request.verificationID, approve: request.approve, note: request.note,
      reviewerID: caller.userID, store: store, clock: clock)
    return Self.message(reviewed)
  }

  /// Reviews request `id` as administrator `reviewerID`: the note checked, an administrator's
  /// own request refused, then the review, the owner's event and the audit entry in one
  /// transaction. ReviewVerification and the operator console both review so.
  static func review(
    _ id: Int64, approve: Bool, note: String, reviewerID: Int64, store: any PlayerStore,
    clock: any WallClock
  ) async throws -> VerificationRecord {
    try VerificationRules.validateNote(note)
    // A request's owner never changes, so this check holds for the review below.
    if let record = try await store.verification(id: id), record.playerID == reviewerID {
      throw VerificationRules.ownRequest
    }
    // The owner's event is written in the review's own transaction.
    let outcome = try await withKeyedAnswer({ Self.message($0.verification) }) {
      try await store.reviewVerification(
        id: id, approve: approve, note: note, reviewerID: reviewerID, atUnixMs: clock.nowUnixMs()
      ) { reviewed in
        Event(body: .verificationReviewed(Self.message(reviewed))).serializedBytes()
      }
    }
    return outcome.verification
  }

  static func message(_ record: VerificationRecord) -> Verification {
    let state: VerificationState =
      switch record.state {
      case .pending: .pending
      case .approved: .approved
      case .rejected: .rejected
      }
    return Verification(
      id: record.id, userID: record.playerID,
      kind: record.kind == .regional ? .regionalChampionship : .nationalChampionship,
      state: state,
      contentType: record.contentType, documentSize: Int64(record.documentSize),
      submittedAtUnixMs: record.submittedAtUnixMs, reviewedAtUnixMs: record.reviewedAtUnixMs ?? 0,
      reviewNote: record.reviewNote)
  }
}
