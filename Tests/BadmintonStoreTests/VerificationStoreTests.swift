import BadmintonDomain
import BadmintonStore
import StoreTestSupport
import Testing

@Suite("Player store: championship verifications")
struct VerificationStoreTests {
  @Test(
    "createVerification stores a pending request with the document's size and type",
    arguments: StoreKind.allCases)
  func createVerification_isPending(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let request = try await store.createVerification(
        playerID: player.id, kind: .national, contentType: "application/pdf",
        document: StoreFixtures.pdfDocument, atUnixMs: 1_700_000_000_777)

      #expect(request.id > 0)
      #expect(request.playerID == player.id)
      #expect(request.kind == .national)
      #expect(request.state == .pending)
      #expect(request.contentType == "application/pdf")
      #expect(request.documentSize == StoreFixtures.pdfDocument.count)
      #expect(request.submittedAtUnixMs == 1_700_000_000_777)
      #expect(request.reviewedAtUnixMs == nil)
      #expect(request.reviewerID == nil)
      #expect(request.reviewNote == "")

      #expect(try await store.verificationDocument(id: request.id) == StoreFixtures.pdfDocument)
      #expect(try await store.verificationDocument(id: request.id + 1) == nil)
      // Submitting does not change the player's verified maximum.
      #expect(try await store.player(id: player.id)?.verifiedMaxLevel == 7)
    }
  }

  @Test(
    "verificationDocument returns the exact bytes, zeros and all", arguments: StoreKind.allCases)
  func verificationDocument_exactBytes(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let document =
        EvidenceDocument.ContentType.jpeg.signature + (0...255).map { UInt8($0) } + [0, 0, 0]
      let request = try await store.createVerification(
        playerID: player.id, kind: .regional, contentType: "image/jpeg", document: document,
        atUnixMs: 5)
      #expect(request.documentSize == document.count)
      #expect(request.contentType == "image/jpeg")
      #expect(try await store.verificationDocument(id: request.id) == document)
    }
  }

  @Test(
    "a player's requests are listed newest first; pending requests oldest first",
    arguments: StoreKind.allCases)
  func verifications_ordering(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let alice = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000001"))
      let bob = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000002"))
      let admin = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000009"))

      let alice1 = try await store.createVerification(
        playerID: alice.id, kind: .regional, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 1_000)
      let bob1 = try await store.createVerification(
        playerID: bob.id, kind: .national, contentType: "application/pdf",
        document: StoreFixtures.pdfDocument, atUnixMs: 2_000)
      let alice2 = try await store.createVerification(
        playerID: alice.id, kind: .national, contentType: "application/pdf",
        document: StoreFixtures.pdfDocument, atUnixMs: 3_000)
      let alice3 = try await store.createVerification(
        playerID: alice.id, kind: .regional, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 4_000)

      #expect(try await store.verifications(playerID: alice.id) == [alice3, alice2, alice1])
      #expect(try await store.verifications(playerID: bob.id) == [bob1])
      #expect(try await store.verifications(playerID: admin.id).isEmpty)
      #expect(try await store.pendingVerifications() == [alice1, bob1, alice2, alice3])

      let reviewed = try await store.reviewVerification(
        id: alice2.id, approve: false, note: "Certificate unreadable", reviewerID: admin.id,
        atUnixMs: 5_000)
      #expect(try await store.pendingVerifications() == [alice1, bob1, alice3])
      // Reviewed requests stay in the player's list, in the same place.
      #expect(try await store.verifications(playerID: alice.id) == [alice3, reviewed, alice1])
    }
  }

  @Test(
    "approving a national championship records the review and raises the player to 9",
    arguments: StoreKind.allCases)
  func reviewVerification_approveNational(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer(selfLevel: 7))
      let admin = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000009"))
      let request = try await store.createVerification(
        playerID: player.id, kind: .national, contentType: "application/pdf",
        document: StoreFixtures.pdfDocument, atUnixMs: 1_000)

      let approved = try await store.reviewVerification(
        id: request.id, approve: true, note: "National final 2023, confirmed", reviewerID: admin.id,
        atUnixMs: 2_500)
      var expected = request
      expected.state = .approved
      expected.reviewerID = admin.id
      expected.reviewNote = "National final 2023, confirmed"
      expected.reviewedAtUnixMs = 2_500
      #expect(approved == expected)
      #expect(try await store.verifications(playerID: player.id) == [expected])
      #expect(try await store.pendingVerifications().isEmpty)

      let raised = try #require(try await store.player(id: player.id))
      #expect(raised.verifiedMaxLevel == 9)
      // Only the verified maximum moved.
      var expectedPlayer = player
      expectedPlayer.verifiedMaxLevel = 9
      #expect(raised == expectedPlayer)
      #expect(try await store.player(id: admin.id) == admin)

      // The level is now open to the player.
      let updated = try await store.updateProfile(id: player.id, ProfileChanges(selfLevel: 9))
      #expect(updated.selfLevel == 9)

      // A later regional approval does not lower the maximum.
      let regional = try await store.createVerification(
        playerID: player.id, kind: .regional, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 3_000)
      let regionalApproved = try await store.reviewVerification(
        id: regional.id, approve: true, note: "", reviewerID: admin.id, atUnixMs: 3_500)
      #expect(regionalApproved.state == .approved)
      #expect(try await store.player(id: player.id)?.verifiedMaxLevel == 9)
    }
  }

  @Test(
    "approving a regional championship raises the player to 8, not 9", arguments: StoreKind.allCases
  )
  func reviewVerification_approveRegional(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let request = try await store.createVerification(
        playerID: player.id, kind: .regional, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 1_000)
      _ = try await store.reviewVerification(
        id: request.id, approve: true, note: "ok", reviewerID: 77, atUnixMs: 2_000)
      #expect(try await store.player(id: player.id)?.verifiedMaxLevel == 8)
      let error = await #expect(throws: DomainError.self) {
        _ = try await store.updateProfile(id: player.id, ProfileChanges(selfLevel: 9))
      }
      #expect(error?.reason == "SKILL_LEVEL_REQUIRES_VERIFICATION")
      #expect(
        try await store.updateProfile(id: player.id, ProfileChanges(selfLevel: 8)).selfLevel == 8)
    }
  }

  @Test("rejecting records the review and leaves the player's level", arguments: StoreKind.allCases)
  func reviewVerification_rejectKeepsLevel(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let request = try await store.createVerification(
        playerID: player.id, kind: .national, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 1_000)
      let rejected = try await store.reviewVerification(
        id: request.id, approve: false, note: "Name does not match", reviewerID: 42, atUnixMs: 1_500
      )
      #expect(rejected.state == .rejected)
      #expect(rejected.reviewerID == 42)
      #expect(rejected.reviewNote == "Name does not match")
      #expect(rejected.reviewedAtUnixMs == 1_500)
      #expect(try await store.player(id: player.id) == player)
      #expect(try await store.pendingVerifications().isEmpty)
    }
  }

  @Test(
    "a request already reviewed cannot be reviewed again and stays as it was",
    arguments: StoreKind.allCases)
  func reviewVerification_alreadyReviewed(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let request = try await store.createVerification(
        playerID: player.id, kind: .national, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 1_000)
      let rejected = try await store.reviewVerification(
        id: request.id, approve: false, note: "Blurry", reviewerID: 42, atUnixMs: 1_500)

      // Approving the rejected request must neither change it nor raise the player.
      let error = await #expect(throws: DomainError.self) {
        _ = try await store.reviewVerification(
          id: request.id, approve: true, note: "Second look", reviewerID: 43, atUnixMs: 9_000)
      }
      #expect(error?.kind == .failedPrecondition)
      #expect(error?.reason == "VERIFICATION_ALREADY_REVIEWED")
      #expect(try await store.verifications(playerID: player.id) == [rejected])
      #expect(try await store.player(id: player.id) == player)

      // Likewise an approved request cannot be rejected afterwards.
      let second = try await store.createVerification(
        playerID: player.id, kind: .regional, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 2_000)
      let approved = try await store.reviewVerification(
        id: second.id, approve: true, note: "", reviewerID: 42, atUnixMs: 2_500)
      let again = await #expect(throws: DomainError.self) {
        _ = try await store.reviewVerification(
          id: second.id, approve: false, note: "Changed my mind", reviewerID: 43, atUnixMs: 9_500)
      }
      #expect(again?.reason == "VERIFICATION_ALREADY_REVIEWED")
      #expect(try await store.verifications(playerID: player.id) == [approved, rejected])
      #expect(try await store.player(id: player.id)?.verifiedMaxLevel == 8)
    }
  }

  @Test("reviewing an unknown request is VERIFICATION_NOT_FOUND", arguments: StoreKind.allCases)
  func reviewVerification_unknown(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let error = await #expect(throws: DomainError.self) {
        _ = try await store.reviewVerification(
          id: 12_345, approve: true, note: "", reviewerID: 1, atUnixMs: 1)
      }
      #expect(error?.kind == .notFound)
      #expect(error?.reason == "VERIFICATION_NOT_FOUND")
      #expect(try await store.player(id: player.id) == player)
    }
  }

  @Test(
    "a player with the most pending requests is VERIFICATION_PENDING_LIMIT until one is reviewed",
    arguments: StoreKind.allCases)
  func createVerification_pendingLimit(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let other = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+447700900123"))
      var pending: [VerificationRecord] = []
      for index in 0..<VerificationRules.maximumPending {
        pending.append(
          try await store.createVerification(
            playerID: player.id, kind: .regional, contentType: "image/png",
            document: StoreFixtures.pngDocument, atUnixMs: Int64(index)))
      }
      let error = await #expect(throws: DomainError.self) {
        _ = try await store.createVerification(
          playerID: player.id, kind: .national, contentType: "image/png",
          document: StoreFixtures.pngDocument, atUnixMs: 10)
      }
      #expect(error?.reason == "VERIFICATION_PENDING_LIMIT")
      #expect(try await store.verifications(playerID: player.id) == pending.reversed())
      // Another player's requests do not count.
      let others = try await store.createVerification(
        playerID: other.id, kind: .regional, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 11)
      #expect(others.state == .pending)
      _ = try await store.reviewVerification(
        id: pending[0].id, approve: false, note: "", reviewerID: other.id, atUnixMs: 12)
      let next = try await store.createVerification(
        playerID: player.id, kind: .national, contentType: "image/png",
        document: StoreFixtures.pngDocument, atUnixMs: 13)
      #expect(next.state == .pending)
    }
  }
}
