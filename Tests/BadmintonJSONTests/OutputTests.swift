import BadmintonAPI
import BadmintonJSON
import BadmintonRPC
import Testing

@Suite("JSON output is pretty-printed and stable")
struct OutputTests {
  @Test("a profile, golden: .proto order, 2-space indent, defaults left out, 64-bit as strings")
  func goldenProfile() throws {
    var profile = Profile(
      userID: 42, nickname: "Ana \"Smash\"\n", selfLevel: 5, newPlayer: true, winRate: 0.5,
      joinedAtUnixMs: 1_700_000_000_000, locale: "zh-CN")
    profile.reputation.averageSkillAccuracy = 1
    let expected = """
      {
        "userId": "42",
        "nickname": "Ana \\"Smash\\"\\n",
        "selfLevel": 5,
        "newPlayer": true,
        "winRate": 0.5,
        "joinedAtUnixMs": "1700000000000",
        "reputation": {
          "averageSkillAccuracy": 1
        },
        "locale": "zh-CN"
      }

      """
    #expect(ProtoJSON.encode(profile) == expected)
    #expect(try ProtoJSON.decode(expected, as: Profile.self) == profile)
  }

  @Test("compact output is the same JSON on one line, without spaces outside strings")
  func compactProfile() throws {
    var profile = Profile(
      userID: 42, nickname: "Ana Smash", selfLevel: 5, newPlayer: true, winRate: 0.5,
      joinedAtUnixMs: 1_700_000_000_000, locale: "zh-CN")
    profile.reputation.averageSkillAccuracy = 1
    let compact = try ProtoJSON.encode(
      profile.serializedBytes(), as: Profile.cDescriptor, compact: true)
    #expect(
      compact == #"{"userId":"42","nickname":"Ana Smash","selfLevel":5,"newPlayer":true,"#
        + #""winRate":0.5,"joinedAtUnixMs":"1700000000000","#
        + #""reputation":{"averageSkillAccuracy":1},"locale":"zh-CN"}"# + "\n")
    #expect(try ProtoJSON.decode(compact, as: Profile.self) == profile)
  }

  @Test("an empty message is {}; a present empty message field is {}")
  func empty() {
    #expect(ProtoJSON.encode(GetMyProfileRequest()) == "{}\n")
    #expect(ProtoJSON.encode(Profile()) == "{\n  \"reputation\": {}\n}\n")
  }

  @Test("enums by name, unknown numbers as numbers, bytes as base64")
  func enumsAndBytes() throws {
    var request = FriendRequest()
    request.state = .declined
    #expect(ProtoJSON.encode(request).contains("\"state\": \"FRIEND_REQUEST_DECLINED\""))
    request.state = FriendRequestState(rawValue: 42)
    #expect(ProtoJSON.encode(request).contains("\"state\": 42"))
    let descriptor = VerificationDocument.cDescriptor
    let json = "{\n  \"document\": \"AQL/\"\n}\n"
    let bytes = try ProtoJSON.decode(json, as: descriptor)
    #expect(try ProtoJSON.encode(bytes, as: descriptor) == json)
  }
}
