public import BadmintonDomain

/// A player as stored.
public struct PlayerRecord: Hashable, Sendable {
  public var id: Int64
  public var phone: String
  public var nickname: String
  /// The password's key-derivation output, its salt and the function's parameters.
  public var password: PasswordDigest
  public var selfLevel: Int
  /// The highest level an approved verification allows: 7 (none), 8 or 9.
  public var verifiedMaxLevel: Int
  public var locale: String
  /// Milliseconds since 1970-01-01 UTC.
  public var joinedAtUnixMs: Int64
  public var location: Coordinate?
  public var locationUpdatedAtUnixMs: Int64?
  public var totalGames: Int
  public var wins: Int
  /// Sum and count of peers' skill ratings, for the calculated level.
  public var peerRatingSum: Int
  public var peerRatingCount: Int
  public var reputation: ReputationScore

  /// A record with the given fields (a store reading its rows).
  public init(
    id: Int64, phone: String, nickname: String, password: PasswordDigest, selfLevel: Int,
    verifiedMaxLevel: Int, locale: String, joinedAtUnixMs: Int64, location: Coordinate?,
    locationUpdatedAtUnixMs: Int64?, totalGames: Int, wins: Int, peerRatingSum: Int,
    peerRatingCount: Int, reputation: ReputationScore
  ) {
    self.id = id
    self.phone = phone
    self.nickname = nickname
    self.password = password
    self.selfLevel = selfLevel
    self.verifiedMaxLevel = verifiedMaxLevel
    self.locale = locale
    self.joinedAtUnixMs = joinedAtUnixMs
    self.location = location
    self.locationUpdatedAtUnixMs = locationUpdatedAtUnixMs
    self.totalGames = totalGames
    self.wins = wins
    self.peerRatingSum = peerRatingSum
    self.peerRatingCount = peerRatingCount
    self.reputation = reputation
  }

  /// The level shown for this player and whether they are a new player.
  public var displayLevel: (level: Int, isNewPlayer: Bool) {
    SkillRating.displayLevel(
      selfLevel: selfLevel, peerRatingSum: peerRatingSum, peerRatingCount: peerRatingCount)
  }
}

/// A stored password: never the password itself, only a slow key derivation of it.
public struct PasswordDigest: Hashable, Sendable {
  /// The derived key.
  public var hash: [UInt8]
  /// The random salt.
  public var salt: [UInt8]
  /// The function and its cost, e.g. `scrypt:16384:8:1`.
  public var parameters: String

  /// A digest with the given parts.
  public init(hash: [UInt8], salt: [UInt8], parameters: String) {
    self.hash = hash
    self.salt = salt
    self.parameters = parameters
  }
}

/// What registration stores.
public struct NewPlayer: Hashable, Sendable {
  public var phone: String
  public var nickname: String
  public var password: PasswordDigest
  public var selfLevel: Int
  public var locale: String
  public var joinedAtUnixMs: Int64

  /// A new player with the given fields.
  public init(
    phone: String, nickname: String, password: PasswordDigest, selfLevel: Int, locale: String,
    joinedAtUnixMs: Int64
  ) {
    self.phone = phone
    self.nickname = nickname
    self.password = password
    self.selfLevel = selfLevel
    self.locale = locale
    self.joinedAtUnixMs = joinedAtUnixMs
  }
}

/// A login session; the token itself is never stored, only its hash.
public struct SessionRecord: Hashable, Sendable {
  public var tokenHash: [UInt8]
  public var playerID: Int64
  public var createdAtUnixMs: Int64
  public var expiresAtUnixMs: Int64

  /// A session with the given fields.
  public init(tokenHash: [UInt8], playerID: Int64, createdAtUnixMs: Int64, expiresAtUnixMs: Int64) {
    self.tokenHash = tokenHash
    self.playerID = playerID
    self.createdAtUnixMs = createdAtUnixMs
    self.expiresAtUnixMs = expiresAtUnixMs
  }
}

/// A championship verification request.
public struct VerificationRecord: Hashable, Sendable {
  public var id: Int64
  public var playerID: Int64
  public var kind: ChampionshipKind
  public var state: ReviewState
  public var contentType: String
  public var documentSize: Int
  public var submittedAtUnixMs: Int64
  public var reviewedAtUnixMs: Int64?
  public var reviewerID: Int64?
  public var reviewNote: String

  /// A record with the given fields (a store reading its rows).
  public init(
    id: Int64, playerID: Int64, kind: ChampionshipKind, state: ReviewState, contentType: String,
    documentSize: Int, submittedAtUnixMs: Int64, reviewedAtUnixMs: Int64?, reviewerID: Int64?,
    reviewNote: String
  ) {
    self.id = id
    self.playerID = playerID
    self.kind = kind
    self.state = state
    self.contentType = contentType
    self.documentSize = documentSize
    self.submittedAtUnixMs = submittedAtUnixMs
    self.reviewedAtUnixMs = reviewedAtUnixMs
    self.reviewerID = reviewerID
    self.reviewNote = reviewNote
  }
}

/// A verification document arriving in pieces.
public struct DocumentUploadRecord: Hashable, Sendable {
  public var id: Int64
  public var playerID: Int64
  /// What the first piece's leading bytes say.
  public var contentType: String
  /// The whole document's size, stated with the first piece.
  public var totalSize: Int64
  /// Bytes stored so far.
  public var received: Int64
  /// When it is removed unless submitted first.
  public var expiresAtUnixMs: Int64

  /// A record with the given fields (a store reading its rows).
  public init(
    id: Int64, playerID: Int64, contentType: String, totalSize: Int64, received: Int64,
    expiresAtUnixMs: Int64
  ) {
    self.id = id
    self.playerID = playerID
    self.contentType = contentType
    self.totalSize = totalSize
    self.received = received
    self.expiresAtUnixMs = expiresAtUnixMs
  }
}

/// Unfinished uploads together would hold more than the server allows on disk.
public struct OpenUploadsFull: Error, Hashable, Sendable {
  /// The bytes unfinished uploads may hold together.
  public var limit: Int64
  /// Creates the error.
  public init(limit: Int64) { self.limit = limit }
}

/// One stored event of a player's inbox: its place in the player's sequence and its encoded body.
public struct EventRecord: Hashable, Sendable {
  public var playerID: Int64
  /// Per player, increasing with every event, never reused.
  public var sequence: UInt64
  public var createdAtUnixMs: Int64
  /// The event as the services encoded it.
  public var payload: [UInt8]

  /// A record with the given fields.
  public init(playerID: Int64, sequence: UInt64, createdAtUnixMs: Int64, payload: [UInt8]) {
    self.playerID = playerID
    self.sequence = sequence
    self.createdAtUnixMs = createdAtUnixMs
    self.payload = payload
  }
}

/// A reviewed verification and, when the review notified its owner, that event's sequence.
public struct ReviewOutcome: Hashable, Sendable {
  public var verification: VerificationRecord
  public var eventSequence: UInt64?

  /// An outcome with the given parts.
  public init(verification: VerificationRecord, eventSequence: UInt64?) {
    self.verification = verification
    self.eventSequence = eventSequence
  }
}

/// Changes to a profile; nil keeps the stored value.
public struct ProfileChanges: Hashable, Sendable {
  public var nickname: String?
  public var selfLevel: Int?
  public var locale: String?

  /// Changes with the given values.
  public init(nickname: String? = nil, selfLevel: Int? = nil, locale: String? = nil) {
    self.nickname = nickname
    self.selfLevel = selfLevel
    self.locale = locale
  }
}

/// The players' data, behind an interface of our own so that another database can serve it.
/// Every method that writes returns only after the write is committed; writes that belong
/// together commit in one transaction.
public protocol PlayerStore: Sendable {
  /// Every committed write's changes, in commit order, handed to subscribers before the write
  /// returns: what the in-memory state is a projection of.
  var feed: ChangeFeed { get }
  /// Starts handing changes to `feed` that were not made through this store (on a database that
  /// several instances share, the others' commits), from the moment the store was opened; called
  /// once the projections are built and subscribed. An embedded store has nothing to start.
  func startFeed()
  /// Hands every stored player to `apply` as the change the feed would give for it, in id
  /// order, all from one read, so a projection is built at start by the code that keeps it.
  func replayPlayers(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws
  /// Hands every session unexpired at `nowUnixMs` to `apply` as the change the feed would give
  /// for it (with its row id), all from one read.
  func replaySessions(nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void)
    async throws

  /// Stores a new player; a phone already registered gives ALREADY_EXISTS `PHONE_TAKEN`.
  func createPlayer(_ player: NewPlayer) async throws -> PlayerRecord
  /// The player with `id`.
  func player(id: Int64) async throws -> PlayerRecord?
  /// The player registered with `phone`.
  func player(phone: String) async throws -> PlayerRecord?
  /// Replaces the password digest of player `id` with `digest`, when the stored one is still
  /// `current` (so that a digest made again at a new cost never overwrites a newer password);
  /// returns whether it did.
  @discardableResult
  func replacePassword(id: Int64, current: PasswordDigest, with digest: PasswordDigest)
    async throws -> Bool
  /// How many stored password digests use each parameter text (`scrypt:32768:8:1`, ...).
  func passwordParameterCounts() async throws -> [String: Int]
  /// Applies `changes`; a self level above the verified maximum gives
  /// `SKILL_LEVEL_REQUIRES_VERIFICATION`, checked in the same transaction.
  func updateProfile(id: Int64, _ changes: ProfileChanges) async throws -> PlayerRecord
  /// Records the player's location and when it was sent; returns the location's revision, which
  /// grows with every committed change of that player's location, in commit order.
  @discardableResult
  func updateLocation(id: Int64, to location: Coordinate, atUnixMs: Int64) async throws -> Int64
  /// Every player with a known location and its revision (the nearby index is built from
  /// `replayPlayers` instead).
  func allLocations() async throws -> [(playerID: Int64, location: Coordinate, revision: Int64)]
  /// The players with these ids.
  func players(ids: [Int64]) async throws -> [Int64: PlayerRecord]

  /// Stores a session.
  func createSession(_ session: SessionRecord) async throws
  /// The session with this token hash, expired or not.
  func session(tokenHash: [UInt8]) async throws -> SessionRecord?
  /// Ends a session.
  func deleteSession(tokenHash: [UInt8]) async throws
  /// Removes every session that expired before `unixMs`; returns how many.
  func deleteSessions(expiredBefore unixMs: Int64) async throws -> Int

  /// Stores a pending verification request with its document; a player who already has
  /// `VerificationRules.maximumPending` pending requests gets `VERIFICATION_PENDING_LIMIT`,
  /// checked in the same transaction.
  func createVerification(
    playerID: Int64, kind: ChampionshipKind, contentType: String, document: [UInt8], atUnixMs: Int64
  ) async throws -> VerificationRecord
  /// Starts an upload of a document of `totalSize` bytes with its first piece, after removing
  /// the player's expired uploads, all in one transaction: a player with
  /// `DocumentUploadRules.maximumOpenUploads` unfinished uploads gets UPLOAD_LIMIT, and
  /// `OpenUploadsFull` is thrown when the unfinished uploads of everyone would together hold
  /// more than `openBytesLimit` bytes received. It expires `DocumentUploadRules.lifetimeMs` after `atUnixMs`.
  func startDocumentUpload(
    playerID: Int64, contentType: String, totalSize: Int64, firstPiece: [UInt8], atUnixMs: Int64,
    openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord
  /// Adds a piece at `offset` to the player's unfinished upload `uploadID` where
  /// `DocumentUploadRules.place` says so, and extends its life; UPLOAD_NOT_FOUND when the upload
  /// is not the player's, has expired or was submitted; `OpenUploadsFull` when the unfinished
  /// uploads of everyone would hold more than `openBytesLimit` bytes with it.
  func appendDocumentPiece(
    playerID: Int64, uploadID: Int64, offset: Int64, statedTotal: Int64, data: [UInt8],
    atUnixMs: Int64, openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord
  /// Removes the unfinished uploads that expired before `unixMs`, with their pieces; returns how
  /// many.
  func deleteDocumentUploads(expiredBefore unixMs: Int64) async throws -> Int
  /// Stores a pending verification request that takes over the player's finished upload
  /// `uploadID`, in one transaction: UPLOAD_NOT_FOUND, UPLOAD_INCOMPLETE and
  /// `VERIFICATION_PENDING_LIMIT` as the rules say.
  func createVerification(playerID: Int64, kind: ChampionshipKind, uploadID: Int64, atUnixMs: Int64)
    async throws -> VerificationRecord
  /// The stored bytes of request `id`'s document from `offset` to the end of the piece that
  /// holds it (at most `DocumentUploadRules.maximumPieceBytes`); nil for an unknown request or
  /// an offset outside the document.
  func verificationDocumentPart(id: Int64, offset: Int64) async throws -> [UInt8]?
  /// The request with `id`.
  func verification(id: Int64) async throws -> VerificationRecord?
  /// The player's requests, newest first.
  func verifications(playerID: Int64) async throws -> [VerificationRecord]
  /// Every pending request, oldest first.
  func pendingVerifications() async throws -> [VerificationRecord]
  /// The whole document of a request, its pieces joined.
  func verificationDocument(id: Int64) async throws -> [UInt8]?
  /// Approves or rejects a pending request; approval raises the player's verified maximum level,
  /// and the event `notify` makes of the reviewed request goes to its owner's inbox, all in the
  /// same transaction. Unknown: NOT_FOUND; already reviewed: FAILED_PRECONDITION.
  func reviewVerification(
    id: Int64, approve: Bool, note: String, reviewerID: Int64, atUnixMs: Int64,
    notify: @escaping @Sendable (VerificationRecord) -> [UInt8]
  ) async throws -> ReviewOutcome

  /// Appends an event to the inbox of `playerID`; returns its sequence.
  func appendEvent(playerID: Int64, payload: [UInt8], atUnixMs: Int64) async throws -> UInt64
  /// Appends each event to its player's inbox, all in one transaction; returns the sequences.
  func appendEvents(_ events: [(playerID: Int64, payload: [UInt8])], atUnixMs: Int64) async throws
    -> [UInt64]
  /// The events of `playerID` after `sequence`, in order, at most `limit`.
  func events(playerID: Int64, after sequence: UInt64, limit: Int) async throws -> [EventRecord]
  /// Removes events created before `unixMs`; returns how many. Sequences are never reused.
  func deleteEvents(createdBefore unixMs: Int64) async throws -> Int
}

extension PlayerStore {
  /// Nothing to start: every change is made through this store.
  public func startFeed() {}
}
