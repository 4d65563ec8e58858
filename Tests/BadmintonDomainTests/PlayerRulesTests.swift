import BadmintonDomain
import PropertyBased
import Testing

@Suite("Account rules")
struct PlayerRulesTests {
  private func reason(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "NOT_A_DOMAIN_ERROR"
    }
  }

  @Test("phones are accepted exactly when they are + and 2-15 digits not starting with 0")
  func phone_matchesOracle() async {
    let alphabet = Array("+0123456789 -a")
    let texts = Generator { rng in
      String(
        (0..<Int.random(in: 0...18, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }
    await propertyCheck(count: 1000, input: texts) { text in
      let candidate = Bool.random() ? "+" + text : text
      // Oracle: the E.164 shape spelled out with a regular expression.
      let oracle = candidate.wholeMatch(of: /\+[1-9][0-9]{1,14}/) != nil
      #expect((reason { _ = try PlayerRules.validatePhone(candidate) } == nil) == oracle)
    }
    #expect(reason { _ = try PlayerRules.validatePhone("+8613800138000") } == nil)
    #expect(reason { _ = try PlayerRules.validatePhone("13800138000") } == "PHONE_INVALID")
  }

  @Test("nicknames are trimmed and must keep 1 to 30 characters and at most 240 UTF-8 bytes")
  func nickname_rules() throws {
    #expect(try PlayerRules.validateNickname("  羽毛球小王  ") == "羽毛球小王")
    #expect(try PlayerRules.validateNickname(String(repeating: "🏸", count: 30)).count == 30)
    #expect(
      reason { _ = try PlayerRules.validateNickname(String(repeating: "a", count: 31)) }
        == "NICKNAME_LENGTH")
    #expect(reason { _ = try PlayerRules.validateNickname(" \n\t ") } == "NICKNAME_LENGTH")
    // One character may carry any number of combining marks: bytes are bounded too.
    let heavy = "a" + String(repeating: "\u{301}", count: 200)
    #expect(heavy.count == 1)
    #expect(reason { _ = try PlayerRules.validateNickname(heavy) } == "NICKNAME_LENGTH")
    #expect(try PlayerRules.validateNickname(String(repeating: "林", count: 30)).utf8.count == 90)
    let atLimit = "a" + String(repeating: "\u{301}", count: 119)
    #expect(try PlayerRules.validateNickname(atLimit).utf8.count == 239)
    #expect(
      reason { _ = try PlayerRules.validateNickname("a\u{7}b") } == "NICKNAME_INVALID_CHARACTERS")
  }

  @Test("passwords need 8 to 256 characters and at most 1024 UTF-8 bytes")
  func password_rules() {
    #expect(reason { try PlayerRules.validatePassword("1234567") } == "PASSWORD_TOO_SHORT")
    #expect(reason { try PlayerRules.validatePassword("12345678") } == nil)
    #expect(
      reason { try PlayerRules.validatePassword(String(repeating: "x", count: 257)) }
        == "PASSWORD_TOO_LONG")
    #expect(reason { try PlayerRules.validatePassword(String(repeating: "密", count: 256)) } == nil)
    let heavy = String(repeating: "x" + String(repeating: "\u{301}", count: 60), count: 10)
    #expect(heavy.count == 10)
    #expect(reason { try PlayerRules.validatePassword(heavy) } == "PASSWORD_TOO_LONG")
  }

  @Test("locales are en or zh-CN; empty means en")
  func locale_rules() throws {
    #expect(try PlayerRules.validateLocale("") == "en")
    #expect(try PlayerRules.validateLocale("zh-CN") == "zh-CN")
    #expect(reason { _ = try PlayerRules.validateLocale("fr") } == "LOCALE_UNSUPPORTED")
  }

  @Test("documents are recognised by their leading bytes and limited to 5 MiB")
  func documents() async throws {
    for type in EvidenceDocument.ContentType.allCases {
      #expect(try EvidenceDocument.validate(type.signature + [1, 2, 3]) == type)
    }
    #expect(reason { _ = try EvidenceDocument.validate([]) } == "DOCUMENT_MISSING")
    #expect(
      reason { _ = try EvidenceDocument.validate(Array("GIF89a".utf8)) }
        == "DOCUMENT_TYPE_UNSUPPORTED")
    let tooBig =
      [UInt8]([0xFF, 0xD8, 0xFF]) + [UInt8](repeating: 0, count: EvidenceDocument.maximumSize)
    #expect(reason { _ = try EvidenceDocument.validate(tooBig) } == "DOCUMENT_TOO_LARGE")
    // Random bytes are accepted only when they happen to start with a known signature.
    await propertyCheck(count: 500, input: Gen.uint8(in: 0...255).array(of: 1...12)) { bytes in
      let known = EvidenceDocument.ContentType.allCases.contains {
        bytes.starts(with: $0.signature)
      }
      #expect((reason { _ = try EvidenceDocument.validate(bytes) } == nil) == known)
    }
  }

  @Test("coordinates must be finite and in range, each bad field named")
  func coordinates() {
    #expect(reason { _ = try Coordinate.validated(latitude: 90, longitude: -180) } == nil)
    do {
      _ = try Coordinate.validated(latitude: .nan, longitude: 181)
      Issue.record("accepted")
    } catch {
      #expect(error.reason == "LOCATION_INVALID")
      #expect(error.violations.map(\.field) == ["latitude", "longitude"])
    }
    #expect(
      reason { _ = try Coordinate.validated(latitude: -90.0001, longitude: 0) }
        == "LOCATION_INVALID")
    #expect(
      reason { _ = try Coordinate.validated(latitude: 0, longitude: .infinity) }
        == "LOCATION_INVALID")
  }
}
