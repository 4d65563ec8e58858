import BadmintonDomain
import BadmintonStoreSQL
import Foundation
import GRDB
import PostgresNIO
import PropertyBased
import StoreTestSupport
import Testing

@testable import BadmintonPostgres
@testable import BadmintonSQLite
@testable import BadmintonStore

@Suite("Player store: verification documents in pieces")
struct DocumentUploadStoreTests {
  /// A PNG document of `size` bytes whose bytes differ from piece to piece.
  static func document(size: Int) -> [UInt8] {
    let signature = EvidenceDocument.ContentType.png.signature
    return Array(
      (signature
        + (0..<max(0, size - signature.count)).map { UInt8(truncatingIfNeeded: $0 * 31 + $0 / 251) })
        .prefix(size))
  }

  static let limit: Int64 = 1 << 30

  /// The document pieces stored, counted in the store's database.
  static func pieceCount(_ store: any ServerStore) async throws -> Int {
    if let sqlite = store as? SQLitePlayerStore {
      return try await sqlite.writer.read { db in
        try Int.fetchOne(db, sql: "SELECT count(*) FROM document_piece")!
      }
    }
    let postgres = try #require(store as? PostgresStore)
    return try await postgres.read { db in
      var count = 0
      for try await n in try await db.connection.query(
        "SELECT count(*) FROM document_piece", logger: db.logger
      ).decode(Int.self) {
        count = n
      }
      return count
    }
  }

  @Test(
    "for any piece sizes, resends and misplaced pieces, the stored document is the one sent and reads back part by part",
    arguments: StoreKind.allCases)
  func pieces_rebuildTheDocument(kind: StoreKind) async throws {
    // Each case is a new store: a PostgreSQL database each, so fewer of them.
    await propertyCheck(
      count: kind == .sqlite ? 40 : 10, input: Gen.int(in: 1...200_000),
      Gen.int(in: 1...60_000).array(of: 1...12),
      Gen.int(in: 0...3).array(of: 40)
    ) { size, sizes, actions in
      try await withStore(kind) { store in
        let player = try await store.createPlayer(StoreFixtures.newPlayer())
        let document = Self.document(size: size)
        // The model: the bytes the server holds.
        var received = 0
        var step = 0
        var lastPiece: Range<Int>? = nil
        var upload: DocumentUploadRecord? = nil
        while received < size {
          let wanted = max(sizes[step % sizes.count], received == 0 ? min(8, size) : 1)
          let action = actions[step % actions.count]
          step += 1
          let end = min(received + wanted, size)
          guard let current = upload else {
            upload = try await store.startDocumentUpload(
              playerID: player.id, contentType: "image/png", totalSize: Int64(size),
              firstPiece: Array(document[0..<end]), atUnixMs: 0, openBytesLimit: Self.limit)
            received = end
            lastPiece = 0..<end
            #expect(upload?.received == Int64(received))
            continue
          }
          func append(_ range: Range<Int>, at offset: Int) async throws -> DocumentUploadRecord {
            try await store.appendDocumentPiece(
              playerID: player.id, uploadID: current.id, offset: Int64(offset), statedTotal: 0,
              data: Array(document[range]), atUnixMs: Int64(step), openBytesLimit: Self.limit)
          }
          switch action {
          case 1:
            // The last piece again, as after a lost answer: acknowledged, nothing stored.
            let again = try await append(lastPiece!, at: lastPiece!.lowerBound)
            #expect(again.received == Int64(received))
          case 2:
            // A piece after a gap is refused.
            let gap = await #expect(throws: DomainError.self) {
              _ = try await append(received..<end, at: received + 1)
            }
            #expect(gap?.reason == "UPLOAD_OFFSET_MISMATCH")
          case 3 where received + wanted > size:
            // A piece past the stated size is refused.
            let over = await #expect(throws: DomainError.self) {
              _ = try await store.appendDocumentPiece(
                playerID: player.id, uploadID: current.id, offset: Int64(received),
                statedTotal: 0, data: [UInt8](repeating: 1, count: size - received + 1),
                atUnixMs: Int64(step), openBytesLimit: Self.limit)
            }
            #expect(over?.reason == "DOCUMENT_SIZE_MISMATCH")
          default:
            break
          }
          let stored = try await append(received..<end, at: received)
          lastPiece = received..<end
          received = end
          #expect(stored.received == Int64(received))
          #expect(stored.expiresAtUnixMs == Int64(step) + DocumentUploadRules.lifetimeMs)
        }
        let request = try await store.createVerification(
          playerID: player.id, kind: .regional, uploadID: upload!.id, atUnixMs: 1)
        #expect(request.documentSize == size)
        #expect(request.contentType == "image/png")
        #expect(try await store.verificationDocument(id: request.id) == document)
        // Part by part, from wherever the last part ended.
        var read: [UInt8] = []
        while read.count < size {
          let part = try #require(
            try await store.verificationDocumentPart(id: request.id, offset: Int64(read.count)))
          #expect(!part.isEmpty && part.count <= DocumentUploadRules.maximumPieceBytes)
          read += part
        }
        #expect(read == document)
        // Any offset inside reads the bytes from there; outside, nothing.
        let offset = (size * 7) / 11
        let part = try #require(
          try await store.verificationDocumentPart(id: request.id, offset: Int64(offset)))
        #expect(Array(document[offset..<(offset + part.count)]) == part)
        #expect(
          try await store.verificationDocumentPart(id: request.id, offset: Int64(size)) == nil)
        #expect(try await store.verificationDocumentPart(id: request.id, offset: -1) == nil)
      }
    }
  }

  @Test(
    "only unfinished uploads expire; a submitted one keeps its pieces",
    arguments: StoreKind.allCases)
  func expiry_removesOnlyUnfinished(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let document = Self.document(size: 100)
      var uploads: [DocumentUploadRecord] = []
      for start in [0, 10, 20] as [Int64] {
        uploads.append(
          try await store.startDocumentUpload(
            playerID: player.id, contentType: "image/png", totalSize: 100,
            firstPiece: document, atUnixMs: start, openBytesLimit: Self.limit))
      }
      let submitted = try await store.createVerification(
        playerID: player.id, kind: .regional, uploadID: uploads[2].id, atUnixMs: 21)
      let lifetime = DocumentUploadRules.lifetimeMs
      #expect(try await store.deleteDocumentUploads(expiredBefore: lifetime + 9) == 1)
      #expect(try await store.deleteDocumentUploads(expiredBefore: lifetime + 9) == 0)
      #expect(try await store.deleteDocumentUploads(expiredBefore: .max) == 1)
      #expect(try await store.verificationDocument(id: submitted.id) == document)
      #expect(try await Self.pieceCount(store) == 1)
    }
  }

  @Test(
    "a player with the most unfinished uploads is UPLOAD_LIMIT until one expires",
    arguments: StoreKind.allCases)
  func start_openUploadLimit(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let document = Self.document(size: 20)
      for start in 0..<Int64(DocumentUploadRules.maximumOpenUploads) {
        _ = try await store.startDocumentUpload(
          playerID: player.id, contentType: "image/png", totalSize: 40, firstPiece: document,
          atUnixMs: start, openBytesLimit: Self.limit)
      }
      let error = await #expect(throws: DomainError.self) {
        _ = try await store.startDocumentUpload(
          playerID: player.id, contentType: "image/png", totalSize: 40, firstPiece: document,
          atUnixMs: 100, openBytesLimit: Self.limit)
      }
      #expect(error?.reason == "UPLOAD_LIMIT")
      // Once the first has expired it is removed, and a new one may start.
      let later = try await store.startDocumentUpload(
        playerID: player.id, contentType: "image/png", totalSize: 40, firstPiece: document,
        atUnixMs: DocumentUploadRules.lifetimeMs, openBytesLimit: Self.limit)
      #expect(later.received == 20)
      #expect(try await Self.pieceCount(store) == DocumentUploadRules.maximumOpenUploads)
    }
  }

  @Test(
    "pieces that would take everyone's unfinished uploads past the byte limit are refused",
    arguments: StoreKind.allCases)
  func openBytes_limitOverEveryone(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let a = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000001"))
      let b = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000002"))
      let document = Self.document(size: 100)
      let limit: Int64 = 150
      let first = try await store.startDocumentUpload(
        playerID: a.id, contentType: "image/png", totalSize: 100,
        firstPiece: Array(document[0..<60]), atUnixMs: 0, openBytesLimit: limit)
      _ = try await store.startDocumentUpload(
        playerID: b.id, contentType: "image/png", totalSize: 100,
        firstPiece: Array(document[0..<80]), atUnixMs: 0, openBytesLimit: limit)
      await #expect(throws: OpenUploadsFull(limit: limit)) {
        _ = try await store.appendDocumentPiece(
          playerID: a.id, uploadID: first.id, offset: 60, statedTotal: 100,
          data: Array(document[60..<71]), atUnixMs: 1, openBytesLimit: limit)
      }
      let fits = try await store.appendDocumentPiece(
        playerID: a.id, uploadID: first.id, offset: 60, statedTotal: 100,
        data: Array(document[60..<70]), atUnixMs: 1, openBytesLimit: limit)
      #expect(fits.received == 70)
      // Another player's upload is not found under this one's id.
      let error = await #expect(throws: DomainError.self) {
        _ = try await store.appendDocumentPiece(
          playerID: b.id, uploadID: first.id, offset: 70, statedTotal: 100,
          data: [1], atUnixMs: 1, openBytesLimit: limit)
      }
      #expect(error?.reason == "UPLOAD_NOT_FOUND")
      await #expect(throws: OpenUploadsFull(limit: limit)) {
        _ = try await store.startDocumentUpload(
          playerID: b.id, contentType: "image/png", totalSize: 100, firstPiece: [1],
          atUnixMs: 2, openBytesLimit: limit)
      }
    }
  }

  @Test("migrating to pieces cuts each stored document into pieces that read back whole")
  func migration_cutsStoredDocuments() async throws {
    let queue = try DatabaseQueue()
    try SQLitePlayerStore.migrator.migrate(queue, upTo: "v10: matches by player and start")
    let sizes = [1, 60_000, 130_001]
    try await queue.write { db in
      try db.execute(
        sql: """
          INSERT INTO player (id, phone, nickname, password_hash, password_salt,
            password_parameters, self_level, locale, joined_at_ms)
          VALUES (1, '+8613800000001', 'P', x'00', x'00', 'scrypt', 5, 'en', 0)
          """)
      for size in sizes {
        try db.execute(
          sql: """
            INSERT INTO verification (player_id, kind, state, content_type, document,
              submitted_at_ms) VALUES (1, 1, 1, 'image/png', ?, 0)
            """,
          arguments: [Data(Self.document(size: size))])
      }
    }
    let store = try SQLitePlayerStore(writer: queue)
    for (index, size) in sizes.enumerated() {
      let id = Int64(index + 1)
      #expect(try await store.verification(id: id)?.documentSize == size)
      #expect(try await store.verificationDocument(id: id) == Self.document(size: size))
    }
    let pieces = try await queue.read { db in
      try Int.fetchAll(db, sql: "SELECT length(data) FROM document_piece ORDER BY upload_id, start")
    }
    #expect(pieces == [1, 60_000, 60_000, 60_000, 10_001])
    // New uploads take ids after the migrated ones.
    let upload = try await store.startDocumentUpload(
      playerID: 1, contentType: "image/png", totalSize: 10,
      firstPiece: Self.document(size: 10), atUnixMs: 0, openBytesLimit: Self.limit)
    #expect(upload.id == 4)
  }
}
