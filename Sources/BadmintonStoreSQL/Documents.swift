public import BadmintonDomain
public import BadmintonStore

/// Verification requests and their documents, on either engine. Documents are stored in pieces
/// of at most `DocumentUploadRules.maximumPieceBytes` (`document_piece`), under an upload
/// (`document_upload`): an unfinished upload has an expiry, and a verification request that
/// takes one over clears it. No document is ever held whole in memory to be stored or read (but
/// by `verificationDocument`, which returns it whole).
extension PlayerStore where Self: StoreEngine {
  public func createVerification(
    playerID: Int64, kind: ChampionshipKind, contentType: String, document: [UInt8], atUnixMs: Int64
  ) async throws -> VerificationRecord {
    try await writeTransaction { db in
      let uploadID = try PlayerRows.returned(
        db.row(
          UploadInsert.self, playerID, contentType, Int64(document.count), Int64(document.count),
          Int64?.none),
        UploadInsert.self
      ).decode(Int64.self)
      try db.rows(PieceInsert.self, uploadID, Int64(0), document)
      return try DocumentRows.insertVerification(
        db, playerID: playerID, kind: kind, contentType: contentType, uploadID: uploadID,
        size: Int64(document.count), atUnixMs: atUnixMs)
    }
  }

  public func startDocumentUpload(
    playerID: Int64, contentType: String, totalSize: Int64, firstPiece: [UInt8], atUnixMs: Int64,
    openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    try await writeTransaction { db in
      try db.rows(UploadDeletePlayersExpired.self, playerID, atUnixMs)
      try DocumentUploadRules.checkOpenUploads(
        db.row(UploadOpenCount.self, playerID)?.decode(Int.self) ?? 0)
      try DocumentRows.checkOpenBytes(
        db, adding: firstPiece.count, limit: openBytesLimit, atUnixMs: atUnixMs)
      let uploadID = try PlayerRows.returned(
        db.row(
          UploadInsert.self, playerID, contentType, totalSize, Int64(firstPiece.count),
          atUnixMs + DocumentUploadRules.lifetimeMs),
        UploadInsert.self
      ).decode(Int64.self)
      try db.rows(PieceInsert.self, uploadID, Int64(0), firstPiece)
      return try DocumentRows.openUpload(db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
    }
  }

  public func appendDocumentPiece(
    playerID: Int64, uploadID: Int64, offset: Int64, statedTotal: Int64, data: [UInt8],
    atUnixMs: Int64, openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    try await writeTransaction { db in
      guard
        let upload = try DocumentRows.fetchOpenUpload(
          db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
      else { throw DocumentUploadRules.notFound }
      let placement = try DocumentUploadRules.place(
        offset: offset, length: data.count, statedTotal: statedTotal, received: upload.received,
        totalSize: upload.totalSize)
      guard placement == .append else { return upload }
      try DocumentRows.checkOpenBytes(
        db, adding: data.count, limit: openBytesLimit, atUnixMs: atUnixMs)
      // The upload's row first: on PostgreSQL the same piece sent twice at once (two
      // instances, a resend) meets there, where the later transaction is run again and finds
      // the piece stored.
      try db.rows(
        UploadReceived.self, Int64(data.count), atUnixMs + DocumentUploadRules.lifetimeMs,
        uploadID)
      try db.rows(PieceInsert.self, uploadID, offset, data)
      return try DocumentRows.openUpload(db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
    }
  }

  public func deleteDocumentUploads(expiredBefore unixMs: Int64) async throws -> Int {
    try await writeTransaction { db in
      try PlayerRows.deleteCounted(db, UploadCountExpired.self, UploadDeleteExpired.self, unixMs)
    }
  }

  public func createVerification(
    playerID: Int64, kind: ChampionshipKind, uploadID: Int64, atUnixMs: Int64
  ) async throws -> VerificationRecord {
    try await writeTransaction { db in
      guard
        let upload = try DocumentRows.fetchOpenUpload(
          db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
      else { throw DocumentUploadRules.notFound }
      try DocumentUploadRules.checkFinished(received: upload.received, totalSize: upload.totalSize)
      let record = try DocumentRows.insertVerification(
        db, playerID: playerID, kind: kind, contentType: upload.contentType, uploadID: uploadID,
        size: upload.totalSize, atUnixMs: atUnixMs)
      try db.rows(UploadSubmitted.self, uploadID)
      return record
    }
  }

  public func verificationDocumentPart(id: Int64, offset: Int64) async throws -> [UInt8]? {
    try await readSnapshot { db in
      guard
        let row = try db.row(VerificationDocumentRef.self, id),
        case let (uploadID?, size) = try row.decode((Int64?, Int64).self),
        offset >= 0, offset < size
      else { return nil }
      return try db.row(PieceFrom.self, offset, uploadID)?.decode([UInt8].self)
    }
  }

  public func verification(id: Int64) async throws -> VerificationRecord? {
    try await readEach { db in try DocumentRows.fetchVerification(db, id: id) }
  }

  public func verifications(playerID: Int64) async throws -> [VerificationRecord] {
    try await readEach { db in
      try db.rows(VerificationsOfPlayer.self, playerID).map(DocumentRows.verification(from:))
    }
  }

  public func pendingVerifications() async throws -> [VerificationRecord] {
    try await readEach { db in
      try db.rows(VerificationsInState.self, ReviewState.pending.rawValue).map(
        DocumentRows.verification(from:))
    }
  }

  public func verificationDocument(id: Int64) async throws -> [UInt8]? {
    try await readSnapshot { db in
      guard
        let row = try db.row(VerificationDocumentRef.self, id),
        let uploadID = try row.decode((Int64?, Int64).self).0
      else { return nil }
      var document: [UInt8] = []
      for row in try db.rows(PiecesOfUpload.self, uploadID) {
        document += try row.decode([UInt8].self)
      }
      return document
    }
  }

  public func reviewVerification(
    id: Int64, approve: Bool, note: String, reviewerID: Int64, atUnixMs: Int64,
    notify: @escaping @Sendable (VerificationRecord) -> [UInt8]
  ) async throws -> ReviewOutcome {
    try await writeTransaction { db in
      let request = try DocumentRows.fetchVerification(db, id: id)
      try VerificationRules.checkReview(of: request?.state)
      guard let request else { throw VerificationRules.notFound }
      let state = approve ? ReviewState.approved : .rejected
      let reviewed = try DocumentRows.verification(
        from: try PlayerRows.returned(
          db.row(VerificationReview.self, state.rawValue, atUnixMs, reviewerID, note, id),
          VerificationReview.self))
      if approve {
        try db.rows(PlayerRaiseVerifiedLevel.self, request.kind.allowedLevel, request.playerID)
      }
      let sequence = try Shared.appendEvent(
        db, playerID: request.playerID, payload: notify(reviewed), atUnixMs: atUnixMs)
      // Every review is an administrator's action: the audit log has it, from the console or
      // the RPC API alike.
      try AdministrationRows.audit(
        db, approve ? .approveVerification : .rejectVerification, playerID: request.playerID,
        note: "request \(id), level \(request.kind.allowedLevel): \(note)",
        administratorID: reviewerID, atUnixMs: atUnixMs)
      return ReviewOutcome(verification: reviewed, eventSequence: sequence)
    }
  }
}

/// What the verification and upload statements share.
enum DocumentRows {
  /// The verification columns every verification statement selects, in `verification(from:)`'s
  /// order.
  static let verificationColumns = """
    id, player_id, kind, state, content_type, document_size, submitted_at_ms, reviewed_at_ms,
    reviewer_id, review_note
    """

  /// Checks the player's pending requests and stores a new one whose document is upload
  /// `uploadID`'s.
  static func insertVerification(
    _ db: any StoreSession, playerID: Int64, kind: ChampionshipKind, contentType: String,
    uploadID: Int64, size: Int64, atUnixMs: Int64
  ) throws -> VerificationRecord {
    try VerificationRules.checkPendingLimit(
      pending: db.row(VerificationPendingCount.self, playerID, ReviewState.pending.rawValue)?
        .decode(Int.self) ?? 0)
    return try verification(
      from: try PlayerRows.returned(
        db.row(
          VerificationInsert.self, playerID, kind.rawValue, ReviewState.pending.rawValue,
          contentType, atUnixMs, uploadID, size),
        VerificationInsert.self))
  }

  /// Throws `OpenUploadsFull` when the bytes the unfinished uploads hold, with `bytes` more,
  /// would pass `limit`.
  static func checkOpenBytes(
    _ db: any StoreSession, adding bytes: Int, limit: Int64, atUnixMs: Int64
  ) throws {
    let held: Int64 = try db.row(UploadOpenBytes.self, atUnixMs)?.decode(Int64.self) ?? 0
    guard held <= limit - Int64(bytes) else { throw OpenUploadsFull(limit: limit) }
  }

  /// The player's upload `id` if it is unfinished and has not expired at `atUnixMs`.
  static func fetchOpenUpload(
    _ db: any StoreSession, id: Int64, playerID: Int64, atUnixMs: Int64
  ) throws -> DocumentUploadRecord? {
    try db.row(UploadOpen.self, id, playerID, atUnixMs).map { row in
      let (id, playerID, contentType, total, received, expires) = try row.decode(
        (Int64, Int64, String, Int64, Int64, Int64).self)
      return DocumentUploadRecord(
        id: id, playerID: playerID, contentType: contentType, totalSize: total,
        received: received, expiresAtUnixMs: expires)
    }
  }

  /// The upload a statement of this transaction just stored or changed, read back.
  static func openUpload(_ db: any StoreSession, id: Int64, playerID: Int64, atUnixMs: Int64)
    throws -> DocumentUploadRecord
  {
    guard let upload = try fetchOpenUpload(db, id: id, playerID: playerID, atUnixMs: atUnixMs)
    else { throw RowMissing(statement: "UploadOpen") }
    return upload
  }

  /// The request with `id`.
  static func fetchVerification(_ db: any StoreSession, id: Int64) throws -> VerificationRecord? {
    try db.row(VerificationByID.self, id).map(verification(from:))
  }

  /// A row of `verificationColumns` as a record.
  static func verification(from row: StoreRow) throws -> VerificationRecord {
    let (id, playerID, kind, state, contentType, size, submitted, reviewed, reviewer, note) =
      try row.decode((Int64, Int64, Int, Int, String, Int, Int64, Int64?, Int64?, String).self)
    return VerificationRecord(
      id: id, playerID: playerID, kind: ChampionshipKind(rawValue: kind) ?? .regional,
      state: ReviewState(rawValue: state) ?? .pending, contentType: contentType,
      documentSize: size, submittedAtUnixMs: submitted, reviewedAtUnixMs: reviewed,
      reviewerID: reviewer, reviewNote: note)
  }
}

// MARK: Statements

private enum UploadInsert: StoreStatement {
  static let sql = """
    INSERT INTO document_upload (player_id, content_type, total_size, received, expires_at_ms)
    VALUES ($1, $2, $3, $4, $5) RETURNING id
    """
}

private enum PieceInsert: StoreStatement {
  static let sql = "INSERT INTO document_piece (upload_id, start, data) VALUES ($1, $2, $3)"
}

private enum UploadDeletePlayersExpired: StoreStatement {
  static let sql = """
    DELETE FROM document_upload
    WHERE player_id = $1 AND expires_at_ms IS NOT NULL AND expires_at_ms <= $2
    """
}

private enum UploadOpenCount: StoreStatement {
  static let sql = """
    SELECT count(*) FROM document_upload WHERE player_id = $1 AND expires_at_ms IS NOT NULL
    """
}

private enum UploadOpenBytes: StoreStatement {
  static let sql = """
    SELECT COALESCE(sum(received), 0)::bigint FROM document_upload
    WHERE expires_at_ms IS NOT NULL AND expires_at_ms > $1
    """
  static let sqlite = """
    SELECT coalesce(sum(received), 0) FROM document_upload
    WHERE expires_at_ms IS NOT NULL AND expires_at_ms > ?1
    """
}

private enum UploadOpen: StoreStatement {
  static let sql = """
    SELECT id, player_id, content_type, total_size, received, expires_at_ms
    FROM document_upload WHERE id = $1 AND player_id = $2 AND expires_at_ms > $3
    """
}

private enum UploadReceived: StoreStatement {
  static let sql = """
    UPDATE document_upload SET received = received + $1, expires_at_ms = $2 WHERE id = $3
    """
}

private enum UploadSubmitted: StoreStatement {
  static let sql = "UPDATE document_upload SET expires_at_ms = NULL WHERE id = $1"
}

private enum UploadCountExpired: StoreStatement {
  static let sql = """
    SELECT count(*) FROM document_upload WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= $1
    """
}

private enum UploadDeleteExpired: StoreStatement {
  static let sql = """
    DELETE FROM document_upload WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= $1
    """
}

private enum VerificationDocumentRef: StoreStatement {
  static let sql = "SELECT document_upload_id, document_size FROM verification WHERE id = $1"
}

/// The bytes of the piece that holds byte `$1`, from that byte on.
private enum PieceFrom: StoreStatement {
  static let sql = """
    SELECT substring(data FROM ($1 - start + 1)::integer) FROM document_piece
    WHERE upload_id = $2 AND start <= $1 ORDER BY start DESC LIMIT 1
    """
  static let sqlite = """
    SELECT substr(data, ?1 - start + 1) FROM document_piece
    WHERE upload_id = ?2 AND start <= ?1 ORDER BY start DESC LIMIT 1
    """
}

private enum PiecesOfUpload: StoreStatement {
  static let sql = "SELECT data FROM document_piece WHERE upload_id = $1 ORDER BY start"
}

private enum VerificationByID: StoreStatement {
  static let sql = "SELECT \(DocumentRows.verificationColumns) FROM verification WHERE id = $1"
}

private enum VerificationsOfPlayer: StoreStatement {
  static let sql = """
    SELECT \(DocumentRows.verificationColumns) FROM verification WHERE player_id = $1
    ORDER BY id DESC
    """
}

private enum VerificationsInState: StoreStatement {
  static let sql = """
    SELECT \(DocumentRows.verificationColumns) FROM verification WHERE state = $1 ORDER BY id
    """
}

private enum VerificationPendingCount: StoreStatement {
  static let sql = "SELECT count(*) FROM verification WHERE player_id = $1 AND state = $2"
}

/// A new request; its document is its upload's pieces, so the old `document` column stays empty.
private enum VerificationInsert: StoreStatement {
  static let sql = """
    INSERT INTO verification (player_id, kind, state, content_type, document, submitted_at_ms,
      document_upload_id, document_size)
    VALUES ($1, $2, $3, $4, ''::bytea, $5, $6, $7)
    RETURNING \(DocumentRows.verificationColumns)
    """
  static let sqlite = """
    INSERT INTO verification (player_id, kind, state, content_type, document, submitted_at_ms,
      document_upload_id, document_size)
    VALUES (?1, ?2, ?3, ?4, x'', ?5, ?6, ?7)
    RETURNING \(DocumentRows.verificationColumns)
    """
}

private enum VerificationReview: StoreStatement {
  static let sql = """
    UPDATE verification SET state = $1, reviewed_at_ms = $2, reviewer_id = $3, review_note = $4
    WHERE id = $5 RETURNING \(DocumentRows.verificationColumns)
    """
}

/// Raises the player's ($2) verified maximum level to $1, never lowers it.
private enum PlayerRaiseVerifiedLevel: StoreStatement {
  static let sql = """
    UPDATE player SET verified_max_level = GREATEST(verified_max_level, $1) WHERE id = $2
    """
  static let sqlite = """
    UPDATE player SET verified_max_level = max(verified_max_level, ?1) WHERE id = ?2
    """
}
