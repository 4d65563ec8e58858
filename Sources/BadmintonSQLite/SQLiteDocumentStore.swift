import BadmintonDomain
import GRDB

/// The tables of verification documents in pieces; the operations are written once in
/// `BadmintonStoreSQL` (Documents.swift).
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
}
