public import BadmintonDomain
public import BadmintonStore

extension PostgresStore {
  /// The players with `ids` that exist, by id (the change tail reads changed players with it).
  static func players(_ db: SQLConnection, ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    throw NotBuilt()
  }
}

struct NotBuilt: Error {}

// Not built yet: each method below throws until it is.
extension PostgresStore: PlayerStore {
  public func replayPlayers(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    throw NotBuilt()
  }

  public func replaySessions(nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void)
    async throws
  {
    throw NotBuilt()
  }

  public func createPlayer(_ player: NewPlayer) async throws -> PlayerRecord {
    throw NotBuilt()
  }

  public func player(id: Int64) async throws -> PlayerRecord? {
    throw NotBuilt()
  }

  public func player(phone: String) async throws -> PlayerRecord? {
    throw NotBuilt()
  }

  public func replacePassword(id: Int64, current: PasswordDigest, with digest: PasswordDigest)
    async throws -> Bool
  {
    throw NotBuilt()
  }

  public func passwordParameterCounts() async throws -> [String: Int] {
    throw NotBuilt()
  }

  public func updateProfile(id: Int64, _ changes: ProfileChanges) async throws -> PlayerRecord {
    throw NotBuilt()
  }

  public func updateLocation(id: Int64, to location: Coordinate, atUnixMs: Int64) async throws
    -> Int64
  {
    throw NotBuilt()
  }

  public func allLocations() async throws -> [(
    playerID: Int64, location: Coordinate, revision: Int64
  )] {
    throw NotBuilt()
  }

  public func players(ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    throw NotBuilt()
  }

  public func createSession(_ session: SessionRecord) async throws {
    throw NotBuilt()
  }

  public func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
    throw NotBuilt()
  }

  public func deleteSession(tokenHash: [UInt8]) async throws {
    throw NotBuilt()
  }

  public func deleteSessions(expiredBefore unixMs: Int64) async throws -> Int {
    throw NotBuilt()
  }

  public func createVerification(
    playerID: Int64, kind: ChampionshipKind, contentType: String, document: [UInt8], atUnixMs: Int64
  ) async throws -> VerificationRecord {
    throw NotBuilt()
  }

  public func startDocumentUpload(
    playerID: Int64, contentType: String, totalSize: Int64, firstPiece: [UInt8], atUnixMs: Int64,
    openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    throw NotBuilt()
  }

  public func appendDocumentPiece(
    playerID: Int64, uploadID: Int64, offset: Int64, statedTotal: Int64, data: [UInt8],
    atUnixMs: Int64, openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    throw NotBuilt()
  }

  public func deleteDocumentUploads(expiredBefore unixMs: Int64) async throws -> Int {
    throw NotBuilt()
  }

  public func createVerification(
    playerID: Int64, kind: ChampionshipKind, uploadID: Int64, atUnixMs: Int64
  ) async throws -> VerificationRecord {
    throw NotBuilt()
  }

  public func verificationDocumentPart(id: Int64, offset: Int64) async throws -> [UInt8]? {
    throw NotBuilt()
  }

  public func verification(id: Int64) async throws -> VerificationRecord? {
    throw NotBuilt()
  }

  public func verifications(playerID: Int64) async throws -> [VerificationRecord] {
    throw NotBuilt()
  }

  public func pendingVerifications() async throws -> [VerificationRecord] {
    throw NotBuilt()
  }

  public func verificationDocument(id: Int64) async throws -> [UInt8]? {
    throw NotBuilt()
  }

  public func reviewVerification(
    id: Int64, approve: Bool, note: String, reviewerID: Int64, atUnixMs: Int64,
    notify: @escaping @Sendable (VerificationRecord) -> [UInt8]
  ) async throws -> ReviewOutcome {
    throw NotBuilt()
  }

  public func appendEvent(playerID: Int64, payload: [UInt8], atUnixMs: Int64) async throws -> UInt64
  {
    throw NotBuilt()
  }

  public func appendEvents(_ events: [(playerID: Int64, payload: [UInt8])], atUnixMs: Int64)
    async throws -> [UInt64]
  {
    throw NotBuilt()
  }

  public func events(playerID: Int64, after sequence: UInt64, limit: Int) async throws
    -> [EventRecord]
  {
    throw NotBuilt()
  }

  public func deleteEvents(createdBefore unixMs: Int64) async throws -> Int {
    throw NotBuilt()
  }
}
