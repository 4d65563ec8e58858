import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import StoreTestSupport
import Testing

@Suite("Input validation over the wire")
struct InputValidationTests {
  /// `request`'s encoding with the byte `marker` (which must occur once) replaced by 0.
  private func withNUL<M: ProtobufMessage>(_ request: M, at marker: Character) throws -> [UInt8] {
    var bytes = request.serializedBytes()
    let ascii = try #require(marker.asciiValue)
    #expect(bytes.filter { $0 == ascii }.count == 1)
    bytes[try #require(bytes.firstIndex(of: ascii))] = 0
    return bytes
  }

  @Test(
    "a nickname holding U+0000 is refused naming the field, and no account is created",
    arguments: StoreKind.allCases)
  func register_nicknameWithNUL(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let phone = PlayerWorld.newPhone()
      let payload = try withNUL(
        RegisterRequest(
          phone: phone, nickname: "Lin~Wang", password: "shuttlecock", selfLevel: 4), at: "~")
      let error = await rpcError {
        _ = try await world.client.unary(
          path: Accounts.register.path, payload: payload, idempotent: false)
      }
      #expect(error?.code == .invalidArgument)
      #expect(error?.reason == "STRING_CONTAINS_NUL")
      #expect(error?.violations.map(\.field) == ["nickname"])
      #expect(try await world.store.player(phone: phone) == nil)
    }
  }

  @Test(
    "invisible and spoofing nicknames are refused, in the caller's language",
    arguments: StoreKind.allCases)
  func register_invisibleNickname(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      for (nickname, expected) in [
        ("\u{200D}", "NICKNAME_FORMAT_CHARACTERS"), ("ad\u{202E}nim", "NICKNAME_FORMAT_CHARACTERS"),
        ("\u{FEFF}Lin", "NICKNAME_FORMAT_CHARACTERS"),
        ("Lin\u{2028}", "NICKNAME_FORMAT_CHARACTERS"),
        ("\u{3164}", "NICKNAME_INVISIBLE"),
      ] {
        let error = await rpcError {
          _ = try await world.client.accounts.register(
            RegisterRequest(
              phone: PlayerWorld.newPhone(), nickname: nickname, password: "shuttlecock",
              selfLevel: 4),
            options: CallOptions(locale: .zhCN))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.reason == expected)
        #expect(error?.violations.map(\.field) == ["nickname"])
        #expect(error?.message.en.contains("昵称") == true)
      }
      let player = try await world.player(nickname: "Lin")
      let update = await rpcError {
        _ = try await world.client.players.updateProfile(
          UpdateProfileRequest(nickname: "\u{200B}"), options: player.options)
      }
      #expect(update?.reason == "NICKNAME_FORMAT_CHARACTERS")
    }
  }

  // Padding under the method's request limit reaches the nickname rule; a larger request is
  // refused by the limit itself before it is decoded (ResourceAccountingTests).
  @Test(
    "a nickname padded past the byte limit is refused as too long", arguments: StoreKind.allCases)
  func register_hugeNickname(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let error = await rpcError {
        _ = try await world.client.accounts.register(
          RegisterRequest(
            phone: PlayerWorld.newPhone(),
            nickname: String(repeating: " ", count: 4096) + "Lin",
            password: "shuttlecock", selfLevel: 4))
      }
      #expect(error?.reason == "NICKNAME_LENGTH")
    }
  }

  @Test(
    "abbreviations, fixed offsets and old names are not time zones", arguments: StoreKind.allCases)
  func timeZones_refused(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(level: 5)
      for zone in ["CST", "GMT+14", "GMT+0800", "SystemV/AST4", "Etc/GMT-8", "Asia/Calcutta"] {
        var request = MatchingTests.request()
        request.timeZone = zone
        let posted = await rpcError {
          _ = try await world.client.matching.postAvailability(request, options: player.options)
        }
        #expect(posted?.reason == "TIME_ZONE_UNKNOWN", "\(zone)")
        #expect(posted?.violations.map(\.field) == ["time_zone"], "\(zone)")
        let schedule = await rpcError {
          _ = try await world.client.schedule.getMySchedule(
            .init(timeZone: zone), options: player.options)
        }
        #expect(schedule?.reason == "TIME_ZONE_UNKNOWN", "\(zone)")
      }
      _ = try await world.client.matching.postAvailability(
        MatchingTests.request(), options: player.options)
    }
  }
}
