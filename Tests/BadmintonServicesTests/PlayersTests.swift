import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonStore
import Testing

@Suite("Profiles, verification and nearby players")
struct PlayersTests {
  @Test("UpdateProfile changes the given fields and keeps the rest; 8-9 need verification")
  func updateProfile() async throws {
    try await withPlayerWorld { world in
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

  @Test("a verified championship unlocks its level: regional 8, national 9")
  func verification_unlocksLevels() async throws {
    try await withPlayerWorld { world in
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

  @Test("a review note is at most 500 characters, and nobody reviews their own request")
  func review_noteAndOwnRequest() async throws {
    try await withPlayerWorld { world in
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

  @Test("documents must be PNG, JPEG or PDF by their bytes, at most 5 MiB, 3 pending at most")
  func verification_documentRules() async throws {
    try await withPlayerWorld { world in
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
      let big = [UInt8](pngDocument) + [UInt8](repeating: 0, count: 5 * 1024 * 1024)
      #expect(
        await refusal(.init(kind: .regionalChampionship, document: big)) == "DOCUMENT_TOO_LARGE")
      for _ in 0..<3 {
        _ = try await world.client.players.submitVerification(
          .init(kind: .regionalChampionship, document: pngDocument), options: player.options)
      }
      #expect(
        await refusal(.init(kind: .regionalChampionship, document: pngDocument))
          == "VERIFICATION_PENDING_LIMIT")
    }
  }

  @Test("UpdateLocation refuses coordinates out of range, naming each field")
  func updateLocation_validation() async throws {
    try await withPlayerWorld { world in
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

  @Test("nearby players: within the radius, nearest first, never the caller, paged without gaps")
  func nearbyPlayers() async throws {
    try await withPlayerWorld { world in
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
