import BadmintonAPI
import BadmintonJSON
import BadmintonRPC
import PropertyBased
import Testing

@Suite("JSON round trip over every descriptor (property 22)")
struct RoundTripTests {
  /// Every message in `Proto/`, badminton.rpc.v1 included.
  static let descriptors = (APIContract.messageTypes + RPCContract.messageTypes).map {
    $0.cDescriptor
  }

  @Test(
    "bytes -> JSON -> bytes is identical, JSON -> bytes -> JSON is stable", arguments: descriptors)
  func roundTrip(_ descriptor: CMessageDescriptor) async {
    await propertyCheck(count: 40, input: DescriptorGen.messages(descriptor)) { bytes in
      // The generator encodes as protoc-c does.
      #expect(DescriptorGen.protocC(bytes, descriptor) == bytes, "\(descriptor.fullName)")
      do {
        let json = try ProtoJSON.encode(bytes, as: descriptor)
        let back = try ProtoJSON.decode(json, as: descriptor)
        #expect(back == bytes, "\(descriptor.fullName)\n\(json)")
        #expect(try ProtoJSON.encode(back, as: descriptor) == json)
      } catch {
        Issue.record("\(descriptor.fullName): \(error)")
      }
    }
  }

  @Test("the JSON of a Swift message decodes to an equal value")
  func swiftMessages() throws {
    let profile = Profile(
      userID: 9_007_199_254_740_993, nickname: "羽毛球 \"Ana\"", selfLevel: 5, newPlayer: true,
      winRate: 62.5, joinedAtUnixMs: -1, reputation: ReputationSummary(), locale: "zh-CN")
    #expect(try ProtoJSON.decode(ProtoJSON.encode(profile), as: Profile.self) == profile)

    var request = FriendRequest()
    request.id = 3
    request.state = .accepted
    let event = Event(
      sequence: UInt64.max, createdAtUnixMs: 1, body: .friendRequestReceived(request))
    let decoded = try ProtoJSON.decode(ProtoJSON.encode(event), as: Event.self)
    #expect(decoded == event)
    #expect(ProtoJSON.encode(event).contains("\"friendRequestReceived\": {"))

    var match = Match()
    match.id = 77
    #expect(try ProtoJSON.decode(ProtoJSON.encode(match), as: Match.self) == match)
  }

  @Test("repeated scalars are read packed and unpacked, and written as protoc-c packs them")
  func packedAndUnpacked() throws {
    let descriptor = AckDeliveredRequest.cDescriptor
    // message_ids = 1: packed [1, 300], then the same values unpacked.
    let packed: [UInt8] = [0x0A, 0x03, 0x01, 0xAC, 0x02]
    let unpacked: [UInt8] = [0x08, 0x01, 0x08, 0xAC, 0x02]
    let json = try ProtoJSON.encode(packed, as: descriptor)
    #expect(try ProtoJSON.encode(unpacked, as: descriptor) == json)
    #expect(json == "{\n  \"messageIds\": [\n    \"1\",\n    \"300\"\n  ]\n}\n")
    #expect(try ProtoJSON.decode(json, as: descriptor) == packed)
  }

  @Test("unknown binary fields are skipped; bad binary input is an error at line 0")
  func binaryInput() throws {
    let descriptor = Profile.cDescriptor
    // Field 99 (varint 5), then nickname "A".
    #expect(
      try ProtoJSON.encode([0x98, 0x06, 0x05, 0x12, 0x01, 0x41], as: descriptor)
        == "{\n  \"nickname\": \"A\"\n}\n")
    #expect(throws: ProtoJSONError.self) {
      try ProtoJSON.encode([0x12, 0x05, 0x41], as: descriptor)
    }
    do {
      _ = try ProtoJSON.encode([0x08], as: descriptor)
      Issue.record("truncated varint accepted")
    } catch {
      #expect(error.line == 0 && error.column == 0)
    }
  }
}
