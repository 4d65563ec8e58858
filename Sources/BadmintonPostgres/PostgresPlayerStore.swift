public import BadmintonDomain
public import BadmintonStore
import Foundation
import NIOCore
import PostgresNIO

extension PostgresStore {
  /// The players with `ids` that exist, by id (the change tail reads changed players with it).
  static func players(_ db: SQLConnection, ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    guard !ids.isEmpty else { return [:] }
    var players: [Int64: PlayerRecord] = [:]
    for row in try await db.rows(PlayerRowsByIDs.self, ids) {
      let player = try player(from: row)
      players[player.id] = player
    }
    return players
  }

  /// The player with `id`, read on `db`.
  static func fetchPlayer(_ db: SQLConnection, id: Int64) async throws -> PlayerRecord? {
    try await db.row(PlayerRowByID.self, id).map(player(from:))
  }

  /// The player columns every player statement selects, in `player(from:)`'s order.
  static let playerColumns = """
    id, phone, nickname, password_hash, password_salt, password_parameters, self_level,
    verified_max_level, locale, joined_at_ms, latitude, longitude, location_updated_at_ms,
    total_games, wins, peer_rating_sum, peer_rating_count, skill_accuracy,
    punctuality_percentage, character_rating, evaluation_count
    """

  /// A row of `playerColumns` as a record.
  static func player(from row: PostgresRow) throws -> PlayerRecord {
    var cells = Cells(row)
    let id: Int64 = try cells.next()
    let phone: String = try cells.next()
    let nickname: String = try cells.next()
    let hash: ByteBuffer = try cells.next()
    let salt: ByteBuffer = try cells.next()
    let parameters: String = try cells.next()
    let selfLevel: Int = try cells.next()
    let verifiedMaxLevel: Int = try cells.next()
    let locale: String = try cells.next()
    let joined: Int64 = try cells.next()
    let latitude: Double? = try cells.next()
    let longitude: Double? = try cells.next()
    let locationUpdated: Int64? = try cells.next()
    let totalGames: Int = try cells.next()
    let wins: Int = try cells.next()
    let peerRatingSum: Int = try cells.next()
    let peerRatingCount: Int = try cells.next()
    let skillAccuracy: Double = try cells.next()
    let punctuality: Double = try cells.next()
    let character: Double = try cells.next()
    let evaluations: Int = try cells.next()
    return PlayerRecord(
      id: id, phone: phone, nickname: nickname,
      password: PasswordDigest(
        hash: Array(buffer: hash), salt: Array(buffer: salt), parameters: parameters),
      selfLevel: selfLevel, verifiedMaxLevel: verifiedMaxLevel, locale: locale,
      joinedAtUnixMs: joined,
      location: latitude.flatMap { lat in longitude.map { Coordinate(latitude: lat, longitude: $0) }
      },
      locationUpdatedAtUnixMs: locationUpdated, totalGames: totalGames, wins: wins,
      peerRatingSum: peerRatingSum, peerRatingCount: peerRatingCount,
      reputation: ReputationScore(
        averageSkillAccuracy: skillAccuracy, punctualityPercentage: punctuality,
        averageCharacterRating: character, evaluationCount: evaluations))
  }

  /// A row of `row_id, token_hash, player_id, created_at_ms, expires_at_ms` as a session and its
  /// row id.
  static func session(from row: PostgresRow) throws -> (rowID: Int64, SessionRecord) {
    let (rowID, hash, playerID, created, expires) = try row.decode(
      (Int64, ByteBuffer, Int64, Int64, Int64).self)
    return (
      rowID,
      SessionRecord(
        tokenHash: Array(buffer: hash), playerID: playerID, createdAtUnixMs: created,
        expiresAtUnixMs: expires)
    )
  }

  // MARK: Statements

  enum PlayerRowByID: SQLStatement {
    static let sql = "SELECT \(playerColumns) FROM player WHERE id = $1"
  }
  enum PlayerRowByPhone: SQLStatement {
    static let sql = "SELECT \(playerColumns) FROM player WHERE phone = $1"
  }
  enum PlayerRowsByIDs: SQLStatement {
    static let sql = "SELECT \(playerColumns) FROM player WHERE id = ANY($1)"
  }
  enum PlayerPhoneTaken: SQLStatement {
    static let sql = "SELECT 1 FROM player WHERE phone = $1"
  }
  enum PlayerInsert: SQLStatement {
    static let sql = """
      INSERT INTO player (phone, nickname, password_hash, password_salt, password_parameters,
        self_level, locale, joined_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
      ON CONFLICT (phone) DO NOTHING
      RETURNING \(playerColumns)
      """
  }
  enum PlayerReplacePassword: SQLStatement {
    static let sql = """
      UPDATE player SET password_hash = $1, password_salt = $2, password_parameters = $3
      WHERE id = $4 AND password_hash = $5 AND password_salt = $6 AND password_parameters = $7
      RETURNING id
      """
  }
  enum PlayerPasswordParameterCounts: SQLStatement {
    static let sql = """
      SELECT password_parameters, count(*) FROM player GROUP BY password_parameters
      """
  }
  enum PlayerUpdateProfile: SQLStatement {
    static let sql = """
      UPDATE player SET nickname = $1, self_level = $2, locale = $3 WHERE id = $4
      RETURNING \(playerColumns)
      """
  }
  enum PlayerUpdateLocation: SQLStatement {
    static let sql = """
      UPDATE player SET latitude = $1, longitude = $2, location_updated_at_ms = $3,
        location_revision = location_revision + 1 WHERE id = $4
      RETURNING location_revision
      """
  }
  enum PlayerLocations: SQLStatement {
    static let sql = """
      SELECT id, latitude, longitude, location_revision FROM player WHERE latitude IS NOT NULL
      ORDER BY id
      """
  }
  enum PlayerReplay: SQLStatement {
    static let sql = "SELECT \(playerColumns) FROM player ORDER BY id"
  }
  enum SessionInsert: SQLStatement {
    static let sql = """
      INSERT INTO session (token_hash, player_id, created_at_ms, expires_at_ms)
      VALUES ($1, $2, $3, $4)
      """
  }
  enum SessionByTokenHash: SQLStatement {
    static let sql = """
      SELECT row_id, token_hash, player_id, created_at_ms, expires_at_ms FROM session
      WHERE token_hash = $1
      """
  }
  enum SessionDelete: SQLStatement {
    static let sql = "DELETE FROM session WHERE token_hash = $1"
  }
  enum SessionDeleteExpired: SQLStatement {
    static let sql = """
      WITH gone AS (DELETE FROM session WHERE expires_at_ms < $1 RETURNING 1)
      SELECT count(*) FROM gone
      """
  }
  enum SessionReplay: SQLStatement {
    static let sql = """
      SELECT row_id, token_hash, player_id, created_at_ms, expires_at_ms FROM session
      WHERE expires_at_ms > $1 ORDER BY row_id
      """
  }
  enum EventsAfter: SQLStatement {
    static let sql = """
      SELECT sequence, created_at_ms, payload FROM event
      WHERE player_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3
      """
  }
  enum EventDeleteOld: SQLStatement {
    static let sql = """
      WITH gone AS (DELETE FROM event WHERE created_at_ms < $1 RETURNING 1)
      SELECT count(*) FROM gone
      """
  }
}

extension PostgresStore: PlayerStore {
  // MARK: Replays

  public func replayPlayers(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    try await snapshot { db in
      try await db.eachRow(PlayerReplay.self) { row in
        apply(.player(try Self.player(from: row)))
      }
    }
  }

  public func replaySessions(nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void)
    async throws
  {
    try await snapshot { db in
      try await db.eachRow(SessionReplay.self, nowUnixMs) { row in
        let (rowID, session) = try Self.session(from: row)
        apply(.session(rowID: rowID, session))
      }
    }
  }

  // MARK: Players

  public func createPlayer(_ new: NewPlayer) async throws -> PlayerRecord {
    try await write { db in
      // Checked first: a refused insert would end the transaction. Two registrations of one
      // phone at once: the serializable transaction that read no row before the other inserted
      // one is run again and finds it; the unique index keeps the rest.
      if try await db.row(PlayerPhoneTaken.self, new.phone) == nil,
        let row = try await db.row(
          PlayerInsert.self, new.phone, new.nickname, Data(new.password.hash),
          Data(new.password.salt), new.password.parameters, Int64(new.selfLevel), new.locale,
          new.joinedAtUnixMs)
      {
        return try Self.player(from: row)
      }
      throw DomainError(
        .alreadyExists, "PHONE_TAKEN", en: "This phone number is already registered.",
        zhCN: "该手机号已注册。")
    }
  }

  public func player(id: Int64) async throws -> PlayerRecord? {
    try await read { db in try await Self.fetchPlayer(db, id: id) }
  }

  public func player(phone: String) async throws -> PlayerRecord? {
    try await read { db in try await db.row(PlayerRowByPhone.self, phone).map(Self.player(from:)) }
  }

  public func players(ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    guard !ids.isEmpty else { return [:] }
    return try await read { db in try await Self.players(db, ids: ids) }
  }

  @discardableResult
  public func replacePassword(id: Int64, current: PasswordDigest, with digest: PasswordDigest)
    async throws -> Bool
  {
    try await write { db in
      try await db.row(
        PlayerReplacePassword.self, Data(digest.hash), Data(digest.salt), digest.parameters, id,
        Data(current.hash), Data(current.salt), current.parameters) != nil
    }
  }

  public func passwordParameterCounts() async throws -> [String: Int] {
    try await read { db in
      var counts: [String: Int] = [:]
      for row in try await db.rows(PlayerPasswordParameterCounts.self) {
        let (parameters, count) = try row.decode((String, Int).self)
        counts[parameters, default: 0] += count
      }
      return counts
    }
  }

  public func updateProfile(id: Int64, _ changes: ProfileChanges) async throws -> PlayerRecord {
    try await write { db in
      guard let current = try await Self.fetchPlayer(db, id: id) else {
        throw DomainError.playerNotFound
      }
      if let level = changes.selfLevel {
        try PlayerRules.validateSelfLevel(level, verifiedMaximum: current.verifiedMaxLevel)
      }
      return try Self.player(
        from: try await db.returned(
          PlayerUpdateProfile.self, changes.nickname ?? current.nickname,
          Int64(changes.selfLevel ?? current.selfLevel), changes.locale ?? current.locale, id))
    }
  }

  @discardableResult
  public func updateLocation(id: Int64, to location: Coordinate, atUnixMs: Int64) async throws
    -> Int64
  {
    try await write { db in
      guard
        let row = try await db.row(
          PlayerUpdateLocation.self, location.latitude, location.longitude, atUnixMs, id)
      else { throw DomainError.playerNotFound }
      return try row.decode(Int64.self)
    }
  }

  public func allLocations() async throws -> [(
    playerID: Int64, location: Coordinate, revision: Int64
  )] {
    // Row by row as the rows arrive, so that loading a million players never holds a million
    // database rows at once.
    try await read { db in
      var locations: [(playerID: Int64, location: Coordinate, revision: Int64)] = []
      try await db.eachRow(PlayerLocations.self) { row in
        let (id, latitude, longitude, revision) = try row.decode(
          (Int64, Double, Double, Int64).self)
        locations.append(
          (id, Coordinate(latitude: latitude, longitude: longitude), revision))
      }
      return locations
    }
  }

  // MARK: Sessions

  public func createSession(_ session: SessionRecord) async throws {
    try await write { db in
      try await db.rows(
        SessionInsert.self, Data(session.tokenHash), session.playerID, session.createdAtUnixMs,
        session.expiresAtUnixMs)
    }
  }

  public func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
    try await read { db in
      try await db.row(SessionByTokenHash.self, Data(tokenHash)).map {
        try Self.session(from: $0).1
      }
    }
  }

  public func deleteSession(tokenHash: [UInt8]) async throws {
    try await write { db in try await db.rows(SessionDelete.self, Data(tokenHash)) }
  }

  public func deleteSessions(expiredBefore unixMs: Int64) async throws -> Int {
    try await write { db in
      try await db.row(SessionDeleteExpired.self, unixMs)?.decode(Int.self) ?? 0
    }
  }

  // MARK: Events

  // Appends for one busy player from many writers on every instance take turns on the player's
  // event queue lock (`write(queueingEventsOf:)`), where serializable transactions meeting at
  // the player's counter would be refused and run again, over and over.

  public func appendEvent(playerID: Int64, payload: [UInt8], atUnixMs: Int64) async throws -> UInt64
  {
    try await write(queueingEventsOf: [playerID]) { db in
      try await Self.appendEvent(db, playerID: playerID, payload: payload, atUnixMs: atUnixMs)
    }
  }

  public func appendEvents(_ events: [(playerID: Int64, payload: [UInt8])], atUnixMs: Int64)
    async throws -> [UInt64]
  {
    try await write(queueingEventsOf: events.map(\.playerID)) { db in
      var sequences: [UInt64] = []
      sequences.reserveCapacity(events.count)
      for event in events {
        sequences.append(
          try await Self.appendEvent(
            db, playerID: event.playerID, payload: event.payload, atUnixMs: atUnixMs))
      }
      return sequences
    }
  }

  public func events(playerID: Int64, after sequence: UInt64, limit: Int) async throws
    -> [EventRecord]
  {
    try await read { db in
      try await db.rows(EventsAfter.self, playerID, Int64(clamping: sequence), Int64(limit)).map {
        row in
        let (sequence, created, payload) = try row.decode((Int64, Int64, ByteBuffer).self)
        return EventRecord(
          playerID: playerID, sequence: UInt64(sequence), createdAtUnixMs: created,
          payload: Array(buffer: payload))
      }
    }
  }

  public func deleteEvents(createdBefore unixMs: Int64) async throws -> Int {
    try await write { db in try await db.row(EventDeleteOld.self, unixMs)?.decode(Int.self) ?? 0 }
  }
}

// MARK: Verifications and their documents

/// Verification documents are stored in pieces of at most `DocumentUploadRules.maximumPieceBytes`
/// (`document_piece`), under an upload (`document_upload`): an unfinished upload has an expiry,
/// and a verification request that takes one over clears it. No document is ever held whole in
/// memory to be stored or read (but by `verificationDocument`, which returns it whole).
extension PostgresStore {
  public func createVerification(
    playerID: Int64, kind: ChampionshipKind, contentType: String, document: [UInt8], atUnixMs: Int64
  ) async throws -> VerificationRecord {
    try await write { db in
      let uploadID = try await db.returned(
        UploadInsert.self, playerID, contentType, Int64(document.count), Int64(document.count),
        Int64?.none
      ).decode(Int64.self)
      try await db.rows(PieceInsert.self, uploadID, Int64(0), Data(document))
      return try await Self.insertVerification(
        db, playerID: playerID, kind: kind, contentType: contentType, uploadID: uploadID,
        size: Int64(document.count), atUnixMs: atUnixMs)
    }
  }

  public func startDocumentUpload(
    playerID: Int64, contentType: String, totalSize: Int64, firstPiece: [UInt8], atUnixMs: Int64,
    openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    try await write { db in
      try await db.rows(UploadDeletePlayersExpired.self, playerID, atUnixMs)
      let open = try await db.row(UploadOpenCount.self, playerID)?.decode(Int.self) ?? 0
      guard open < DocumentUploadRules.maximumOpenUploads else {
        throw DocumentUploadRules.openLimitReached
      }
      try await Self.checkOpenBytes(
        db, adding: firstPiece.count, limit: openBytesLimit, atUnixMs: atUnixMs)
      let uploadID = try await db.returned(
        UploadInsert.self, playerID, contentType, totalSize, Int64(firstPiece.count),
        atUnixMs + DocumentUploadRules.lifetimeMs
      ).decode(Int64.self)
      try await db.rows(PieceInsert.self, uploadID, Int64(0), Data(firstPiece))
      return try await Self.openUpload(db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
    }
  }

  public func appendDocumentPiece(
    playerID: Int64, uploadID: Int64, offset: Int64, statedTotal: Int64, data: [UInt8],
    atUnixMs: Int64, openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    try await write { db in
      guard
        let upload = try await Self.fetchOpenUpload(
          db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
      else { throw DocumentUploadRules.notFound }
      let placement = try DocumentUploadRules.place(
        offset: offset, length: data.count, statedTotal: statedTotal, received: upload.received,
        totalSize: upload.totalSize)
      guard placement == .append else { return upload }
      try await Self.checkOpenBytes(
        db, adding: data.count, limit: openBytesLimit, atUnixMs: atUnixMs)
      // The upload's row first: the same piece sent twice at once (two instances, a resend)
      // meets there, where the later transaction is run again and finds the piece stored.
      try await db.rows(
        UploadReceived.self, Int64(data.count), atUnixMs + DocumentUploadRules.lifetimeMs,
        uploadID)
      try await db.rows(PieceInsert.self, uploadID, offset, Data(data))
      return try await Self.openUpload(db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
    }
  }

  public func deleteDocumentUploads(expiredBefore unixMs: Int64) async throws -> Int {
    try await write { db in
      try await db.row(UploadDeleteExpired.self, unixMs)?.decode(Int.self) ?? 0
    }
  }

  public func createVerification(
    playerID: Int64, kind: ChampionshipKind, uploadID: Int64, atUnixMs: Int64
  ) async throws -> VerificationRecord {
    try await write { db in
      guard
        let upload = try await Self.fetchOpenUpload(
          db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
      else { throw DocumentUploadRules.notFound }
      try DocumentUploadRules.checkFinished(received: upload.received, totalSize: upload.totalSize)
      let record = try await Self.insertVerification(
        db, playerID: playerID, kind: kind, contentType: upload.contentType, uploadID: uploadID,
        size: upload.totalSize, atUnixMs: atUnixMs)
      try await db.rows(UploadSubmitted.self, uploadID)
      return record
    }
  }

  public func verificationDocumentPart(id: Int64, offset: Int64) async throws -> [UInt8]? {
    try await snapshot { db in
      guard
        let row = try await db.row(VerificationDocumentRef.self, id),
        case let (uploadID?, size) = try row.decode((Int64?, Int64).self),
        offset >= 0, offset < size
      else { return nil }
      return try await db.row(PieceFrom.self, offset, uploadID).map {
        Array(buffer: try $0.decode(ByteBuffer.self))
      }
    }
  }

  public func verification(id: Int64) async throws -> VerificationRecord? {
    try await read { db in try await Self.fetchVerification(db, id: id) }
  }

  public func verifications(playerID: Int64) async throws -> [VerificationRecord] {
    try await read { db in
      try await db.rows(VerificationsOfPlayer.self, playerID).map(Self.verification(from:))
    }
  }

  public func pendingVerifications() async throws -> [VerificationRecord] {
    try await read { db in
      try await db.rows(VerificationsInState.self, Int64(ReviewState.pending.rawValue)).map(
        Self.verification(from:))
    }
  }

  public func verificationDocument(id: Int64) async throws -> [UInt8]? {
    try await snapshot { db in
      guard
        let row = try await db.row(VerificationDocumentRef.self, id),
        let uploadID = try row.decode((Int64?, Int64).self).0
      else { return nil }
      var document: [UInt8] = []
      try await db.eachRow(PiecesOfUpload.self, uploadID) { row in
        document += Array(buffer: try row.decode(ByteBuffer.self))
      }
      return document
    }
  }

  public func reviewVerification(
    id: Int64, approve: Bool, note: String, reviewerID: Int64, atUnixMs: Int64,
    notify: @escaping @Sendable (VerificationRecord) -> [UInt8]
  ) async throws -> ReviewOutcome {
    try await write { db in
      guard let request = try await Self.fetchVerification(db, id: id) else {
        throw DomainError(
          .notFound, "VERIFICATION_NOT_FOUND", en: "There is no such verification request.",
          zhCN: "没有该认证申请。")
      }
      guard request.state == .pending else {
        throw DomainError(
          .failedPrecondition, "VERIFICATION_ALREADY_REVIEWED",
          en: "This verification request was already reviewed.", zhCN: "该认证申请已审核。")
      }
      let state = approve ? ReviewState.approved : .rejected
      let row = try await db.returned(
        VerificationReview.self, Int64(state.rawValue), atUnixMs, reviewerID, note, id)
      if approve {
        try await db.rows(
          PlayerRaiseVerifiedLevel.self, Int64(request.kind.allowedLevel), request.playerID)
      }
      let reviewed = try Self.verification(from: row)
      let sequence = try await Self.appendEvent(
        db, playerID: request.playerID, payload: notify(reviewed), atUnixMs: atUnixMs)
      return ReviewOutcome(verification: reviewed, eventSequence: sequence)
    }
  }

  // MARK: Rows

  /// Checks the player's pending requests and stores a new one whose document is upload
  /// `uploadID`'s.
  static func insertVerification(
    _ db: SQLConnection, playerID: Int64, kind: ChampionshipKind, contentType: String,
    uploadID: Int64, size: Int64, atUnixMs: Int64
  ) async throws -> VerificationRecord {
    let pending =
      try await db.row(
        VerificationPendingCount.self, playerID, Int64(ReviewState.pending.rawValue))?.decode(
        Int.self) ?? 0
    guard pending < VerificationRules.maximumPending else {
      throw VerificationRules.pendingLimitReached
    }
    return try verification(
      from: try await db.returned(
        VerificationInsert.self, playerID, Int64(kind.rawValue),
        Int64(ReviewState.pending.rawValue), contentType, atUnixMs, uploadID, size))
  }

  /// Throws `OpenUploadsFull` when the bytes the unfinished uploads hold, with `bytes` more,
  /// would pass `limit`.
  private static func checkOpenBytes(
    _ db: SQLConnection, adding bytes: Int, limit: Int64, atUnixMs: Int64
  ) async throws {
    let held = try await db.row(UploadOpenBytes.self, atUnixMs)?.decode(Int64.self) ?? 0
    guard held <= limit - Int64(bytes) else { throw OpenUploadsFull(limit: limit) }
  }

  /// The player's upload `id` if it is unfinished and has not expired at `atUnixMs`.
  private static func fetchOpenUpload(
    _ db: SQLConnection, id: Int64, playerID: Int64, atUnixMs: Int64
  ) async throws -> DocumentUploadRecord? {
    try await db.row(UploadOpen.self, id, playerID, atUnixMs).map { row in
      let (id, playerID, contentType, total, received, expires) = try row.decode(
        (Int64, Int64, String, Int64, Int64, Int64).self)
      return DocumentUploadRecord(
        id: id, playerID: playerID, contentType: contentType, totalSize: total,
        received: received, expiresAtUnixMs: expires)
    }
  }

  /// The upload a statement of this transaction just stored or changed, read back.
  private static func openUpload(
    _ db: SQLConnection, id: Int64, playerID: Int64, atUnixMs: Int64
  ) async throws -> DocumentUploadRecord {
    guard let upload = try await fetchOpenUpload(db, id: id, playerID: playerID, atUnixMs: atUnixMs)
    else { throw RowMissing(statement: "UploadOpen") }
    return upload
  }

  /// The request with `id`, read on `db`.
  static func fetchVerification(_ db: SQLConnection, id: Int64) async throws
    -> VerificationRecord?
  {
    try await db.row(VerificationByID.self, id).map(verification(from:))
  }

  /// The verification columns every verification statement selects, in `verification(from:)`'s
  /// order.
  static let verificationColumns = """
    id, player_id, kind, state, content_type, document_size, submitted_at_ms, reviewed_at_ms,
    reviewer_id, review_note
    """

  /// A row of `verificationColumns` as a record.
  static func verification(from row: PostgresRow) throws -> VerificationRecord {
    let (id, playerID, kind, state, contentType, size, submitted, reviewed, reviewer, note) =
      try row.decode((Int64, Int64, Int, Int, String, Int, Int64, Int64?, Int64?, String).self)
    return VerificationRecord(
      id: id, playerID: playerID, kind: ChampionshipKind(rawValue: kind) ?? .regional,
      state: ReviewState(rawValue: state) ?? .pending, contentType: contentType,
      documentSize: size, submittedAtUnixMs: submitted, reviewedAtUnixMs: reviewed,
      reviewerID: reviewer, reviewNote: note)
  }

  // MARK: Statements

  enum UploadInsert: SQLStatement {
    static let sql = """
      INSERT INTO document_upload (player_id, content_type, total_size, received, expires_at_ms)
      VALUES ($1, $2, $3, $4, $5) RETURNING id
      """
  }
  enum PieceInsert: SQLStatement {
    static let sql = "INSERT INTO document_piece (upload_id, start, data) VALUES ($1, $2, $3)"
  }
  enum UploadDeletePlayersExpired: SQLStatement {
    static let sql = """
      DELETE FROM document_upload
      WHERE player_id = $1 AND expires_at_ms IS NOT NULL AND expires_at_ms <= $2
      """
  }
  enum UploadOpenCount: SQLStatement {
    static let sql = """
      SELECT count(*) FROM document_upload WHERE player_id = $1 AND expires_at_ms IS NOT NULL
      """
  }
  enum UploadOpenBytes: SQLStatement {
    static let sql = """
      SELECT COALESCE(sum(received), 0)::bigint FROM document_upload
      WHERE expires_at_ms IS NOT NULL AND expires_at_ms > $1
      """
  }
  enum UploadOpen: SQLStatement {
    static let sql = """
      SELECT id, player_id, content_type, total_size, received, expires_at_ms
      FROM document_upload WHERE id = $1 AND player_id = $2 AND expires_at_ms > $3
      """
  }
  enum UploadReceived: SQLStatement {
    static let sql = """
      UPDATE document_upload SET received = received + $1, expires_at_ms = $2 WHERE id = $3
      """
  }
  enum UploadSubmitted: SQLStatement {
    static let sql = "UPDATE document_upload SET expires_at_ms = NULL WHERE id = $1"
  }
  enum UploadDeleteExpired: SQLStatement {
    static let sql = """
      WITH gone AS (
        DELETE FROM document_upload WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= $1
        RETURNING 1)
      SELECT count(*) FROM gone
      """
  }
  enum VerificationDocumentRef: SQLStatement {
    static let sql = "SELECT document_upload_id, document_size FROM verification WHERE id = $1"
  }
  /// The bytes of the piece that holds byte `$1`, from that byte on.
  enum PieceFrom: SQLStatement {
    static let sql = """
      SELECT substring(data FROM ($1 - start + 1)::integer) FROM document_piece
      WHERE upload_id = $2 AND start <= $1 ORDER BY start DESC LIMIT 1
      """
  }
  enum PiecesOfUpload: SQLStatement {
    static let sql = "SELECT data FROM document_piece WHERE upload_id = $1 ORDER BY start"
  }
  enum VerificationByID: SQLStatement {
    static let sql = "SELECT \(verificationColumns) FROM verification WHERE id = $1"
  }
  enum VerificationsOfPlayer: SQLStatement {
    static let sql = """
      SELECT \(verificationColumns) FROM verification WHERE player_id = $1 ORDER BY id DESC
      """
  }
  enum VerificationsInState: SQLStatement {
    static let sql = "SELECT \(verificationColumns) FROM verification WHERE state = $1 ORDER BY id"
  }
  enum VerificationPendingCount: SQLStatement {
    static let sql = "SELECT count(*) FROM verification WHERE player_id = $1 AND state = $2"
  }
  enum VerificationInsert: SQLStatement {
    static let sql = """
      INSERT INTO verification (player_id, kind, state, content_type, document, submitted_at_ms,
        document_upload_id, document_size)
      VALUES ($1, $2, $3, $4, ''::bytea, $5, $6, $7)
      RETURNING \(verificationColumns)
      """
  }
  enum VerificationReview: SQLStatement {
    static let sql = """
      UPDATE verification SET state = $1, reviewed_at_ms = $2, reviewer_id = $3, review_note = $4
      WHERE id = $5 RETURNING \(verificationColumns)
      """
  }
  enum PlayerRaiseVerifiedLevel: SQLStatement {
    static let sql = """
      UPDATE player SET verified_max_level = GREATEST(verified_max_level, $1) WHERE id = $2
      """
  }
}

/// A row's cells read one after the other, in the order the statement selects them.
private struct Cells {
  private let row: PostgresRandomAccessRow
  private var index = 0

  init(_ row: PostgresRow) { self.row = PostgresRandomAccessRow(row) }

  /// The next cell as a `T`.
  mutating func next<T: PostgresDecodable>(_: T.Type = T.self) throws -> T {
    defer { index += 1 }
    return try row[index].decode(T.self)
  }
}

/// A statement that always returns a row (an insert's or update's `RETURNING` of a row the
/// transaction holds) returned none.
struct RowMissing: Error {
  /// The statement's name.
  var statement: String
}

extension SQLConnection {
  /// The row `Statement` returns for `values`: one it must return.
  fileprivate func returned<Statement: SQLStatement>(
    _ statement: Statement.Type, _ values: (any PostgresThrowingDynamicTypeEncodable)?...
  ) async throws -> PostgresRow {
    guard let row = try await rows(statement, values: values).first else {
      throw RowMissing(statement: String(describing: statement))
    }
    return row
  }

  /// Runs `Statement` with `values` and hands each row to `body` as it arrives, without holding
  /// the rows: for reads of a whole table.
  fileprivate func eachRow<Statement: SQLStatement>(
    _ statement: Statement.Type, _ values: (any PostgresThrowingDynamicTypeEncodable)?...,
    body: (PostgresRow) throws -> Void
  ) async throws {
    var bindings = PostgresBindings(capacity: values.count)
    for value in values {
      if let value { try bindings.append(value) } else { bindings.appendNull() }
    }
    for try await row in try await connection.execute(
      Prepared<Statement>(bindings: bindings), logger: logger)
    {
      try body(row)
    }
  }
}
