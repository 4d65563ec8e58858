public import BadmintonDomain
public import BadmintonStore
import Foundation
import GRDB

/// Verification documents are stored in pieces of at most `DocumentUploadRules.maximumPieceBytes`
/// (`document_piece`), under an upload (`document_upload`): an unfinished upload has an expiry,
/// and a verification request that takes one over clears it. No document is ever held whole in
/// memory to be stored or read.
extension SQLitePlayerStore {
  static func registerDocumentPieceMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v11: documents in pieces") { db in
      try db.execute(
        sql: """
          CREATE TABLE document_upload (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            content_type TEXT NOT NULL,
            total_size INTEGER NOT NULL CHECK (total_size > 0),
            received INTEGER NOT NULL CHECK (received BETWEEN 0 AND total_size),
            expires_at_ms INTEGER
          );
          CREATE INDEX document_upload_open ON document_upload(player_id)
            WHERE expires_at_ms IS NOT NULL;
          CREATE INDEX document_upload_expiry ON document_upload(expires_at_ms)
            WHERE expires_at_ms IS NOT NULL;
          CREATE TABLE document_piece (
            upload_id INTEGER NOT NULL REFERENCES document_upload(id) ON DELETE CASCADE,
            start INTEGER NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (upload_id, start)
          );
          ALTER TABLE verification
            ADD COLUMN document_upload_id INTEGER REFERENCES document_upload(id);
          ALTER TABLE verification ADD COLUMN document_size INTEGER NOT NULL DEFAULT 0;
          INSERT INTO document_upload (id, player_id, content_type, total_size, received)
            SELECT id, player_id, content_type, length(document), length(document)
            FROM verification WHERE length(document) > 0;
          WITH RECURSIVE cut(id, start) AS (
            SELECT id, 0 FROM verification WHERE length(document) > 0
            UNION ALL
            SELECT cut.id, cut.start + \(DocumentUploadRules.maximumPieceBytes)
            FROM cut JOIN verification ON verification.id = cut.id
            WHERE cut.start + \(DocumentUploadRules.maximumPieceBytes) < length(verification.document)
          )
          INSERT INTO document_piece (upload_id, start, data)
            SELECT cut.id, cut.start,
              substr(verification.document, cut.start + 1, \(DocumentUploadRules.maximumPieceBytes))
            FROM cut JOIN verification ON verification.id = cut.id;
          UPDATE verification SET
            document_upload_id = CASE WHEN length(document) > 0 THEN id END,
            document_size = length(document),
            document = x'';
          """)
    }
  }

  public func startDocumentUpload(
    playerID: Int64, contentType: String, totalSize: Int64, firstPiece: [UInt8], atUnixMs: Int64,
    openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    try await grouped.write { db in
      try db.execute(
        sql: """
          DELETE FROM document_upload
          WHERE player_id = ? AND expires_at_ms IS NOT NULL AND expires_at_ms <= ?
          """,
        arguments: [playerID, atUnixMs])
      let open = try Int.fetchOne(
        try db.cachedStatement(
          sql:
            "SELECT count(*) FROM document_upload WHERE player_id = ? AND expires_at_ms IS NOT NULL"
        ),
        arguments: [playerID])!
      guard open < DocumentUploadRules.maximumOpenUploads else {
        throw DocumentUploadRules.openLimitReached
      }
      try Self.checkOpenBytes(
        db, adding: firstPiece.count, limit: openBytesLimit, atUnixMs: atUnixMs)
      try db.execute(
        sql: """
          INSERT INTO document_upload (player_id, content_type, total_size, received, expires_at_ms)
          VALUES (?, ?, ?, ?, ?)
          """,
        arguments: [
          playerID, contentType, totalSize, firstPiece.count,
          atUnixMs + DocumentUploadRules.lifetimeMs,
        ])
      let uploadID = db.lastInsertedRowID
      try db.execute(
        sql: "INSERT INTO document_piece (upload_id, start, data) VALUES (?, 0, ?)",
        arguments: [uploadID, Data(firstPiece)])
      return try Self.fetchOpenUpload(db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)!
    }
  }

  public func appendDocumentPiece(
    playerID: Int64, uploadID: Int64, offset: Int64, statedTotal: Int64, data: [UInt8],
    atUnixMs: Int64, openBytesLimit: Int64
  ) async throws -> DocumentUploadRecord {
    try await grouped.write { db in
      guard
        let upload = try Self.fetchOpenUpload(
          db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
      else { throw DocumentUploadRules.notFound }
      let placement = try DocumentUploadRules.place(
        offset: offset, length: data.count, statedTotal: statedTotal, received: upload.received,
        totalSize: upload.totalSize)
      guard placement == .append else { return upload }
      try Self.checkOpenBytes(db, adding: data.count, limit: openBytesLimit, atUnixMs: atUnixMs)
      try db.execute(
        sql: "INSERT INTO document_piece (upload_id, start, data) VALUES (?, ?, ?)",
        arguments: [uploadID, offset, Data(data)])
      try db.execute(
        sql: "UPDATE document_upload SET received = received + ?, expires_at_ms = ? WHERE id = ?",
        arguments: [data.count, atUnixMs + DocumentUploadRules.lifetimeMs, uploadID])
      return try Self.fetchOpenUpload(db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)!
    }
  }

  public func deleteDocumentUploads(expiredBefore unixMs: Int64) async throws -> Int {
    try await grouped.write { db in
      try db.execute(
        sql: "DELETE FROM document_upload WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ?",
        arguments: [unixMs])
      return db.changesCount
    }
  }

  public func createVerification(
    playerID: Int64, kind: ChampionshipKind, uploadID: Int64, atUnixMs: Int64
  ) async throws -> VerificationRecord {
    try await grouped.write { db in
      guard
        let upload = try Self.fetchOpenUpload(
          db, id: uploadID, playerID: playerID, atUnixMs: atUnixMs)
      else { throw DocumentUploadRules.notFound }
      try DocumentUploadRules.checkFinished(received: upload.received, totalSize: upload.totalSize)
      let record = try Self.insertVerification(
        db, playerID: playerID, kind: kind, contentType: upload.contentType, uploadID: uploadID,
        size: upload.totalSize, atUnixMs: atUnixMs)
      try db.execute(
        sql: "UPDATE document_upload SET expires_at_ms = NULL WHERE id = ?", arguments: [uploadID])
      return record
    }
  }

  public func verificationDocumentPart(id: Int64, offset: Int64) async throws -> [UInt8]? {
    try await writer.read { db in
      guard
        let row = try Row.fetchOne(
          try db.cachedStatement(
            sql: "SELECT document_upload_id, document_size FROM verification WHERE id = ?"),
          arguments: [id]),
        let uploadID = row["document_upload_id"] as Int64?,
        offset >= 0, offset < row["document_size"] as Int64
      else { return nil }
      return try Data.fetchOne(
        try db.cachedStatement(
          sql: """
            SELECT substr(data, ? - start + 1) FROM document_piece
            WHERE upload_id = ? AND start <= ? ORDER BY start DESC LIMIT 1
            """),
        arguments: [offset, uploadID, offset]
      ).map { [UInt8]($0) }
    }
  }

  /// Checks the player's pending requests and stores a new one whose document is upload
  /// `uploadID`'s.
  static func insertVerification(
    _ db: Database, playerID: Int64, kind: ChampionshipKind, contentType: String,
    uploadID: Int64, size: Int64, atUnixMs: Int64
  ) throws -> VerificationRecord {
    let pending = try Int.fetchOne(
      try db.cachedStatement(
        sql: "SELECT count(*) FROM verification WHERE player_id = ? AND state = ?"),
      arguments: [playerID, ReviewState.pending.rawValue])!
    guard pending < VerificationRules.maximumPending else {
      throw VerificationRules.pendingLimitReached
    }
    try db.execute(
      sql: """
        INSERT INTO verification (player_id, kind, state, content_type, document, submitted_at_ms,
          document_upload_id, document_size)
        VALUES (?, ?, ?, ?, x'', ?, ?, ?)
        """,
      arguments: [
        playerID, kind.rawValue, ReviewState.pending.rawValue, contentType, atUnixMs, uploadID,
        size,
      ])
    return try fetchVerification(db, id: db.lastInsertedRowID)!
  }

  /// Throws `OpenUploadsFull` when the bytes the unfinished uploads hold, with `bytes` more,
  /// would pass `limit`.
  private static func checkOpenBytes(
    _ db: Database, adding bytes: Int, limit: Int64, atUnixMs: Int64
  ) throws {
    let held = try Int64.fetchOne(
      try db.cachedStatement(
        sql: """
          SELECT coalesce(sum(received), 0) FROM document_upload
          WHERE expires_at_ms IS NOT NULL AND expires_at_ms > ?
          """),
      arguments: [atUnixMs])!
    guard held <= limit - Int64(bytes) else { throw OpenUploadsFull(limit: limit) }
  }

  /// The player's upload `id` if it is unfinished and has not expired at `atUnixMs`.
  private static func fetchOpenUpload(
    _ db: Database, id: Int64, playerID: Int64, atUnixMs: Int64
  ) throws -> DocumentUploadRecord? {
    try Row.fetchOne(
      try db.cachedStatement(
        sql: """
          SELECT id, player_id, content_type, total_size, received, expires_at_ms
          FROM document_upload WHERE id = ? AND player_id = ? AND expires_at_ms > ?
          """),
      arguments: [id, playerID, atUnixMs]
    ).map { row in
      DocumentUploadRecord(
        id: row["id"], playerID: row["player_id"], contentType: row["content_type"],
        totalSize: row["total_size"], received: row["received"],
        expiresAtUnixMs: row["expires_at_ms"])
    }
  }
}
