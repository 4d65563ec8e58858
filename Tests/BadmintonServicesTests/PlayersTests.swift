import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonStore
import StoreTestSupport
import Testing

@Suite("Profiles, verification and nearby players")
struct PlayersTests {
  @Test(
    "UpdateProfile changes the given fields and keeps the rest; 8-9 need verification",
    arguments: StoreKind.allCases)
  func updateProfile(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(nickname: "Old", level: 3)
      let renamed = try await world.client.players.updateProfile(
        .init(nickname: "  New  "), options: player.options)
      #expect(renamed.nickname == "New")
      #expect(renamed.selfLevel == 3)
      let leveled = try await world.client.players.updateProfile(
        .init(selfLevel: 7, locale: "zh-CN"), options: player.options)
      #expect(leveled.nickname == "New" && leveled.selfLevel == 7 && leveled.locale == "zh-CN")
      let refused = await rpcError {
        _ = try await world.client.players.updateProfile(
          .init(nickname: "Sneaky", selfLevel: 8), options: player.options)
      }
      #expect(refused?.reason == "SKILL_LEVEL_REQUIRES_VERIFICATION")
      // Nothing of the refused update was written.
      #expect(
        try await world.client.players.getMyProfile(options: player.options).nickname == "New")
    }
  }

  @Test(
    "a verified championship unlocks its level: regional 8, national 9",
    arguments: StoreKind.allCases)
  func verification_unlocksLevels(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(level: 7)
      let admin = try await world.administrator()
      let regional = try await world.client.players.submitVerification(
        .init(kind: .regionalChampionship, document: Array("%PDF-1.7 certificate".utf8)),
        options: player.options)
      #expect(regional.state == .pending)
      #expect(regional.contentType == "application/pdf")
      let pending = try await world.client.players.listPendingVerifications(options: admin.options)
        .verifications
      #expect(pending.map(\.id) == [regional.id])

      let approved = try await world.client.players.reviewVerification(
        .init(verificationID: regional.id, approve: true, note: "ok"), options: admin.options)
      #expect(approved.state == .approved)
      #expect(approved.reviewNote == "ok")
      #expect(approved.reviewedAtUnixMs == world.clock.nowUnixMs())
      let again = await rpcError {
        _ = try await world.client.players.reviewVerification(
          .init(verificationID: regional.id, approve: false), options: admin.options)
      }
      #expect(again?.reason == "VERIFICATION_ALREADY_REVIEWED")

      let eight = try await world.client.players.setVerifiedLevel(
        .init(level: 8), options: player.options)
      #expect(eight.selfLevel == 8 && eight.verifiedMaxLevel == 8)
      let nine = await rpcError {
        _ = try await world.client.players.setVerifiedLevel(
          .init(level: 9), options: player.options)
      }
      #expect(nine?.reason == "SKILL_LEVEL_REQUIRES_VERIFICATION")
      let seven = await rpcError {
        _ = try await world.client.players.setVerifiedLevel(
          .init(level: 7), options: player.options)
      }
      #expect(seven?.reason == "VERIFIED_LEVEL_INVALID")

      let national = try await world.client.players.submitVerification(
        .init(kind: .nationalChampionship, document: [0xFF, 0xD8, 0xFF, 0xE0, 1, 2]),
        options: player.options)
      let rejected = try await world.client.players.reviewVerification(
        .init(verificationID: national.id, approve: false, note: "unreadable"),
        options: admin.options)
      #expect(rejected.state == .rejected)
      #expect(
        try await world.client.players.getMyProfile(options: player.options).verifiedMaxLevel == 8)
      let mine = try await world.client.players.listMyVerifications(options: player.options)
        .verifications
      #expect(mine.map(\.id) == [national.id, regional.id])
    }
  }

  @Test(
    "a review note is at most 500 characters, and nobody reviews their own request",
    arguments: StoreKind.allCases)
  func review_noteAndOwnRequest(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let admin = try await world.administrator()
      let player = try await world.player()
      let own = try await world.client.players.submitVerification(
        .init(kind: .regionalChampionship, document: pngDocument), options: admin.options)
      let selfReview = await rpcError {
        _ = try await world.client.players.reviewVerification(
          .init(verificationID: own.id, approve: true), options: admin.options)
      }
      #expect(selfReview?.code == .permissionDenied)
      #expect(selfReview?.reason == "VERIFICATION_OWN_REQUEST")
      #expect(
        try await world.client.players.getMyProfile(options: admin.options).verifiedMaxLevel == 7)

      let request = try await world.client.players.submitVerification(
        .init(kind: .regionalChampionship, document: pngDocument), options: player.options)
      let long = await rpcError {
        _ = try await world.client.players.reviewVerification(
          .init(
            verificationID: request.id, approve: true, note: String(repeating: "n", count: 501)),
          options: admin.options)
      }
      #expect(long?.reason == "REVIEW_NOTE_TOO_LONG")
      #expect(long?.violations.map(\.field) == ["note"])
      let heavy = await rpcError {
        _ = try await world.client.players.reviewVerification(
          .init(
            verificationID: request.id, approve: true,
            note: "a" + String(repeating: "\u{301}", count: 1000)),
          options: admin.options)
      }
      #expect(heavy?.reason == "REVIEW_NOTE_TOO_LONG")
      // Neither refusal reviewed the request; a note of 500 characters is fine.
      let reviewed = try await world.client.players.reviewVerification(
        .init(verificationID: request.id, approve: true, note: String(repeating: "审", count: 500)),
        options: admin.options)
      #expect(reviewed.state == .approved)
    }
  }

  @Test(
    "documents must be PNG, JPEG or PDF by their bytes, at most 5 MiB, 3 pending at most",
    arguments: StoreKind.allCases)
  func verification_documentRules(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      func refusal(_ request: SubmitVerificationRequest) async -> String? {
        await rpcError {
          _ = try await world.client.players.submitVerification(request, options: player.options)
        }?.reason
      }
      #expect(
        await refusal(.init(kind: .regionalChampionship, document: Array("GIF89a....".utf8)))
          == "DOCUMENT_TYPE_UNSUPPORTED")
      #expect(await refusal(.init(kind: .regionalChampionship, document: [])) == "DOCUMENT_MISSING")
      #expect(
        await refusal(.init(kind: .unspecified, document: pngDocument))
          == "VERIFICATION_KIND_INVALID")
      let overOnePiece = [UInt8](pngDocument) + [UInt8](repeating: 0, count: 60_001)
      #expect(
        await refusal(.init(kind: .regionalChampionship, document: Array(overOnePiece[..<60_001])))
          == "DOCUMENT_NEEDS_UPLOAD")
      let tooLarge = await rpcError {
        _ = try await world.client.players.uploadDocumentPiece(
          .init(totalSize: 5 * 1024 * 1024 + 1, data: pngDocument), options: player.options)
      }
      #expect(tooLarge?.reason == "DOCUMENT_TOO_LARGE")
      #expect(tooLarge?.violations.map(\.field) == ["total_size"])
      for _ in 0..<3 {
        _ = try await world.client.players.submitVerification(
          .init(kind: .regionalChampionship, document: pngDocument), options: player.options)
      }
      #expect(
        await refusal(.init(kind: .regionalChampionship, document: pngDocument))
          == "VERIFICATION_PENDING_LIMIT")
    }
  }

  @Test(
    "a document of up to 5 MiB arrives in pieces, is submitted by its upload and read in parts",
    arguments: StoreKind.allCases)
  func verification_documentInPieces(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let admin = try await world.administrator()
      var document = [UInt8](pngDocument)
      var generator = SystemRandomNumberGenerator()
      while document.count < 5 * 1024 * 1024 {
        document.append(.random(in: 0...255, using: &generator))
      }
      let verification = try await world.client.players.submitVerification(
        kind: .nationalChampionship, document: document, options: player.options)
      #expect(verification.contentType == "image/png")
      #expect(verification.documentSize == Int64(document.count))
      let read = try await world.client.players.verificationDocument(
        verificationID: verification.id, options: admin.options)
      #expect(read.contentType == "image/png")
      #expect(read.document == document)
      // One part is at most one piece.
      let part = try await world.client.players.getVerificationDocument(
        .init(verificationID: verification.id, offset: 70_000), options: player.options)
      #expect(part.offset == 70_000 && part.totalSize == Int64(document.count))
      #expect(part.document == Array(document[70_000..<120_000]))
      let past = await rpcError {
        _ = try await world.client.players.getVerificationDocument(
          .init(verificationID: verification.id, offset: Int64(document.count)),
          options: player.options)
      }
      #expect(past?.reason == "DOCUMENT_OFFSET_INVALID")
      // A small document sent whole is read the same way.
      let small = try await world.client.players.submitVerification(
        kind: .regionalChampionship, document: pngDocument, options: player.options)
      #expect(
        try await world.client.players.verificationDocument(
          verificationID: small.id, options: player.options
        ).document == pngDocument)
    }
  }

  @Test(
    "an upload takes pieces in order, acknowledges a resent piece and is used once",
    arguments: StoreKind.allCases)
  func upload_rules(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let other = try await world.player()
      let document = [UInt8](pngDocument) + [UInt8](repeating: 7, count: 100_000)
      func send(_ request: UploadDocumentPieceRequest, as who: PlayerWorld.Player? = nil)
        async throws -> DocumentUpload
      {
        try await world.client.players.uploadDocumentPiece(
          request, options: (who ?? player).options)
      }
      func reason(_ body: () async throws -> Void) async -> String? { await rpcError(body)?.reason }
      let start = try await send(
        .init(totalSize: Int64(document.count), data: Array(document[..<50_000])))
      #expect(start.receivedBytes == 50_000 && start.contentType == "image/png")
      #expect(start.expiresAtUnixMs == world.clock.nowUnixMs() + DocumentUploadRules.lifetimeMs)
      let id = start.uploadID
      // A gap, an overlap and a piece past the stated size are refused.
      #expect(
        await reason {
          _ = try await send(.init(uploadID: id, offset: 50_001, data: [1]))
        } == "UPLOAD_OFFSET_MISMATCH")
      #expect(
        await reason {
          _ = try await send(.init(uploadID: id, offset: 49_999, data: [1, 2]))
        } == "UPLOAD_OFFSET_MISMATCH")
      #expect(
        await reason {
          _ = try await send(
            .init(uploadID: id, offset: 50_000, data: [UInt8](repeating: 0, count: 60_000)))
        } == "DOCUMENT_SIZE_MISMATCH")
      #expect(
        await reason {
          _ = try await send(.init(uploadID: id, totalSize: 9, offset: 50_000, data: [1]))
        } == "DOCUMENT_SIZE_MISMATCH")
      // Someone else's upload does not exist for them.
      #expect(
        await reason {
          _ = try await send(
            .init(uploadID: id, offset: 50_000, data: Array(document[50_000..<60_000])), as: other)
        } == "UPLOAD_NOT_FOUND")
      // Unfinished, it cannot be submitted.
      #expect(
        await reason {
          _ = try await world.client.players.submitVerification(
            .init(kind: .regionalChampionship, uploadID: id), options: player.options)
        } == "UPLOAD_INCOMPLETE")
      let more = try await send(
        .init(uploadID: id, offset: 50_000, data: Array(document[50_000..<100_000])))
      #expect(more.receivedBytes == 100_000)
      // The same piece again (its answer was lost) is acknowledged, not stored twice.
      let again = try await send(
        .init(uploadID: id, offset: 50_000, data: Array(document[50_000..<100_000])))
      #expect(again == more)
      _ = try await send(
        .init(
          uploadID: id, totalSize: Int64(document.count), offset: 100_000,
          data: Array(document[100_000...])))
      #expect(
        await reason {
          _ = try await world.client.players.submitVerification(
            .init(kind: .regionalChampionship, document: pngDocument, uploadID: id),
            options: player.options)
        } == "DOCUMENT_GIVEN_TWICE")
      #expect(
        await reason {
          _ = try await world.client.players.submitVerification(
            .init(kind: .regionalChampionship, uploadID: id), options: other.options)
        } == "UPLOAD_NOT_FOUND")
      let submitted = try await world.client.players.submitVerification(
        .init(kind: .regionalChampionship, uploadID: id), options: player.options)
      #expect(submitted.documentSize == Int64(document.count))
      #expect(
        try await world.client.players.verificationDocument(
          verificationID: submitted.id, options: player.options
        ).document == document)
      // Taken over, the upload is gone.
      #expect(
        await reason {
          _ = try await world.client.players.submitVerification(
            .init(kind: .regionalChampionship, uploadID: id), options: player.options)
        } == "UPLOAD_NOT_FOUND")
      #expect(
        await reason {
          _ = try await send(.init(uploadID: id, offset: 0, data: [1]))
        } == "UPLOAD_NOT_FOUND")
    }
  }

  @Test(
    "a first piece must say the type, start at 0 and state a size; 3 open uploads at most",
    arguments: StoreKind.allCases)
  func upload_start(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      func start(_ request: UploadDocumentPieceRequest) async -> String? {
        await rpcError {
          _ = try await world.client.players.uploadDocumentPiece(request, options: player.options)
        }?.reason
      }
      #expect(
        await start(.init(totalSize: 100, data: Array("GIF89a..".utf8)))
          == "DOCUMENT_TYPE_UNSUPPORTED")
      #expect(
        await start(.init(totalSize: 100, data: Array(pngDocument.prefix(7))))
          == "UPLOAD_FIRST_PIECE_TOO_SMALL")
      #expect(await start(.init(totalSize: 0, data: pngDocument)) == "DOCUMENT_SIZE_MISSING")
      #expect(
        await start(.init(totalSize: 100, offset: 5, data: pngDocument)) == "UPLOAD_OFFSET_MISMATCH"
      )
      #expect(await start(.init(totalSize: 100, data: [])) == "UPLOAD_PIECE_EMPTY")
      #expect(
        await start(.init(totalSize: 100_000, data: [UInt8](repeating: 0, count: 60_001)))
          == "UPLOAD_PIECE_TOO_LARGE")
      #expect(await start(.init(totalSize: 4, data: pngDocument)) == "DOCUMENT_SIZE_MISMATCH")
      // A document shorter than 8 bytes may be whole in its first piece.
      #expect(await start(.init(totalSize: 3, data: [0xFF, 0xD8, 0xFF])) == nil)
      let size = Int64(pngDocument.count) + 100
      #expect(await start(.init(totalSize: size, data: pngDocument)) == nil)
      #expect(await start(.init(totalSize: size, data: pngDocument)) == nil)
      #expect(await start(.init(totalSize: size, data: pngDocument)) == "UPLOAD_LIMIT")
      // An hour after its last piece, an unfinished upload is gone and frees its place; the
      // hourly housekeeping removes it from the disk.
      world.clock.advance(by: DocumentUploadRules.lifetimeMs)
      try await world.sweep()
      #expect(await start(.init(totalSize: size, data: pngDocument)) == nil)
    }
  }

  @Test(
    "UpdateLocation refuses coordinates out of range, naming each field",
    arguments: StoreKind.allCases)
  func updateLocation_validation(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let refused = await rpcError {
        _ = try await world.client.players.updateLocation(
          .init(latitude: 91, longitude: -181), options: player.options)
      }
      #expect(refused?.code == .invalidArgument)
      #expect(refused?.violations.map(\.field) == ["latitude", "longitude"])
      let nan = await rpcError {
        _ = try await world.client.players.updateLocation(
          .init(latitude: .nan, longitude: 0), options: player.options)
      }
      #expect(nan?.violations.map(\.reason) == ["LATITUDE_OUT_OF_RANGE"])
      let stored = try await world.client.players.updateLocation(
        .init(latitude: 31.23, longitude: 121.47), options: player.options)
      #expect(stored.updatedAtUnixMs == world.clock.nowUnixMs())
      #expect(
        try await world.client.players.getMyProfile(options: player.options).locationUpdatedAtUnixMs
          == stored.updatedAtUnixMs)
    }
  }

  @Test(
    "nearby players: within the radius, nearest first, never the caller, paged without gaps",
    arguments: StoreKind.allCases)
  func nearbyPlayers(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let me = try await world.player(nickname: "Me")
      let unknown = await rpcError {
        _ = try await world.client.players.nearbyPlayers(options: me.options)
      }
      #expect(unknown?.code == .failedPrecondition)
      #expect(unknown?.reason == "LOCATION_UNKNOWN")

      let center = Coordinate(latitude: 31.2304, longitude: 121.4737)
      _ = try await world.client.players.updateLocation(
        .init(latitude: center.latitude, longitude: center.longitude), options: me.options)
      var expected: [(Int64, Double)] = []
      for index in 0..<25 {
        let player = try await world.player(nickname: "P\(index)", level: Int32(index % 7 + 1))
        // Spread along a line east: 0.2 degrees of longitude is about 11.8 miles here.
        let location = Coordinate(
          latitude: center.latitude, longitude: center.longitude + Double(index) * 0.2 + 0.01)
        _ = try await world.client.players.updateLocation(
          .init(latitude: location.latitude, longitude: location.longitude), options: player.options
        )
        // Others are shown distances between cell centres, in whole bands.
        let distance = LocationPrivacy.shownDistanceMiles(center, location)
        if distance <= 50 { expected.append((player.id, distance)) }
      }
      world.clock.advance(by: 90_000)
      expected.sort { ($0.1, $0.0) < ($1.1, $1.0) }
      #expect(expected.count == 5)

      var seen: [NearbyPlayer] = []
      var token = ""
      repeat {
        let page = try await world.client.players.nearbyPlayers(
          .init(pageSize: 2, pageToken: token), options: me.options)
        #expect(page.players.count <= 2)
        seen += page.players
        token = page.nextPageToken
      } while !token.isEmpty
      #expect(seen.map(\.userID) == expected.map(\.0))
      #expect(!seen.contains { $0.userID == me.id })
      for (entry, want) in zip(seen, expected) {
        #expect(entry.distanceMiles == want.1)
        #expect(entry.locationAgeSeconds == 90)
        #expect(entry.newPlayer)
        #expect(entry.reputation == ReputationSummary.empty)
      }
      let close = try await world.client.players.nearbyPlayers(
        .init(radiusMiles: 12), options: me.options)
      #expect(close.players.map(\.userID) == expected.filter { $0.1 <= 12 }.map(\.0))

      for (radius, size) in [(50.01, 0), (-1, 0), (10, 101)] {
        let bad = await rpcError {
          _ = try await world.client.players.nearbyPlayers(
            .init(radiusMiles: radius, pageSize: Int32(size)), options: me.options)
        }
        #expect(bad?.code == .invalidArgument)
      }
      let badToken = await rpcError {
        _ = try await world.client.players.nearbyPlayers(
          .init(pageToken: "nonsense"), options: me.options)
      }
      #expect(badToken?.reason == "PAGE_TOKEN_INVALID")
    }
  }
}
