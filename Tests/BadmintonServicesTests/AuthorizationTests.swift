import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonStore
import StoreTestSupport
import Testing

@Suite("Authentication and ownership, enforced by the server")
struct AuthorizationTests {
  /// A descriptor for calling any unary method with an empty request; the calls below fail
  /// before any response is decoded.
  private func anyMethod(_ path: String) -> MethodDescriptor<ListMethodsRequest, ListMethodsRequest>
  {
    let parts = path.split(separator: "/")
    return MethodDescriptor(
      service: String(parts[0]), method: String(parts[1]), kind: .unary, idempotent: false)
  }

  @Test(
    "every method but Register, Login, Health and Reflection needs a valid session",
    arguments: StoreKind.allCases)
  func everyMethod_needsSession(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let methods = try await world.client.reflection.listMethods().methods
      let open = Set(methods.filter { !$0.requiresAuthentication }.map(\.path))
      #expect(
        open == [
          "/badminton.v1.Accounts/Register", "/badminton.v1.Accounts/Login",
          "/badminton.rpc.v1.Health/Check", "/badminton.rpc.v1.Health/Watch",
          "/badminton.rpc.v1.Reflection/ListMethods",
        ])
      let guarded = methods.filter(\.requiresAuthentication)
      #expect(guarded.count == 57)  // the API methods and Health/CheckSession
      for method in guarded {
        let missing = await rpcError {
          _ = try await world.client.unary(anyMethod(method.path), .init())
        }
        #expect(missing?.code == .unauthenticated, "\(method.path)")
        #expect(missing?.reason == "AUTHENTICATION_REQUIRED", "\(method.path)")
        let forged = await rpcError {
          _ = try await world.client.unary(
            anyMethod(method.path), .init(),
            options: CallOptions(bearerToken: String(repeating: "a", count: 64)))
        }
        #expect(forged?.reason == "SESSION_INVALID", "\(method.path)")
        let malformed = await rpcError {
          _ = try await world.client.unary(
            anyMethod(method.path), .init(),
            options: CallOptions(metadata: [.init(key: "authorization", value: "Basic x")]))
        }
        #expect(malformed?.reason == "AUTHENTICATION_REQUIRED", "\(method.path)")
      }
    }
  }

  @Test("each mutating method changes only the caller's own data", arguments: StoreKind.allCases)
  func mutatingMethods_actOnTheCallerOnly(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player(nickname: "Alice", level: 6)
      let bob = try await world.player(nickname: "Bob", level: 2)
      let admin = try await world.administrator()
      _ = try await world.client.players.updateLocation(
        .init(latitude: 31.2, longitude: 121.4), options: alice.options)
      let aliceBefore = try await world.client.players.getMyProfile(options: alice.options)

      // UpdateProfile and UpdateLocation as Bob touch Bob only.
      _ = try await world.client.players.updateProfile(
        .init(nickname: "Mallory", selfLevel: 7), options: bob.options)
      _ = try await world.client.players.updateLocation(
        .init(latitude: -33.9, longitude: 151.2), options: bob.options)
      let aliceAfter = try await world.client.players.getMyProfile(options: alice.options)
      #expect(aliceAfter == aliceBefore)
      #expect(try await world.store.player(id: alice.id)?.location?.latitude == 31.2)

      // Alice's verification is hers: Bob neither sees it nor can use or review it.
      let request = try await world.client.players.submitVerification(
        .init(kind: .nationalChampionship, document: pngDocument), options: alice.options)
      #expect(request.userID == alice.id)
      #expect(
        try await world.client.players.listMyVerifications(options: bob.options).verifications
          .isEmpty)
      for reviewer in [bob, alice] {
        let refused = await rpcError {
          _ = try await world.client.players.reviewVerification(
            .init(verificationID: request.id, approve: true), options: reviewer.options)
        }
        #expect(refused?.code == .permissionDenied)
        #expect(refused?.reason == "ADMINISTRATOR_ONLY")
        let listing = await rpcError {
          _ = try await world.client.players.listPendingVerifications(options: reviewer.options)
        }
        #expect(listing?.reason == "ADMINISTRATOR_ONLY")
      }
      #expect(
        try await world.client.players.listMyVerifications(options: alice.options).verifications
          .first?.state == .pending)

      _ = try await world.client.players.reviewVerification(
        .init(verificationID: request.id, approve: true, note: "certificate checked"),
        options: admin.options)
      let bobLevel = await rpcError {
        _ = try await world.client.players.setVerifiedLevel(.init(level: 9), options: bob.options)
      }
      #expect(bobLevel?.reason == "SKILL_LEVEL_REQUIRES_VERIFICATION")
      #expect(try await world.client.players.getMyProfile(options: bob.options).selfLevel == 7)
      let aliceVerified = try await world.client.players.setVerifiedLevel(
        .init(level: 9), options: alice.options)
      #expect(aliceVerified.selfLevel == 9)

      // Logout as Bob ends Bob's session only.
      _ = try await world.client.accounts.logout(options: bob.options)
      _ = try await world.client.players.getMyProfile(options: alice.options)
    }
  }

  @Test("other players' profiles never show their phone or locale", arguments: StoreKind.allCases)
  func publicProfile_hidesPhone(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let alice = try await world.player(nickname: "Alice")
      let bob = try await world.player(nickname: "Bob")
      let seen = try await world.client.players.getProfile(
        .init(userID: alice.id), options: bob.options)
      #expect(seen.nickname == "Alice")
      #expect(seen.phone.isEmpty)
      #expect(seen.locale.isEmpty)
      let own = try await world.client.players.getProfile(
        .init(userID: alice.id), options: alice.options)
      #expect(own.phone == alice.phone)
      let missing = await rpcError {
        _ = try await world.client.players.getProfile(.init(userID: 999_999), options: bob.options)
      }
      #expect(missing?.code == .notFound)
      #expect(missing?.reason == "PLAYER_NOT_FOUND")
    }
  }
}
