import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("Names, byte limits and time zones")
struct InputRulesTests {
  private func reason(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "\(error)"
    }
  }

  /// Format characters and separators (general categories Cf, Zl, Zp), listed from the Unicode
  /// Character Database rather than asked of the rule's own source.
  static let formatAndSeparators: [ClosedRange<UInt32>] = [
    0x00AD...0x00AD, 0x0600...0x0605, 0x061C...0x061C, 0x06DD...0x06DD, 0x070F...0x070F,
    0x180E...0x180E, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x206F,
    0xFEFF...0xFEFF, 0xFFF9...0xFFFB, 0x110BD...0x110BD, 0x1D173...0x1D17A, 0xE0001...0xE0001,
    0xE0020...0xE007F,
  ]

  /// Letters a nickname may hold: Latin, CJK, and a sport emoji.
  static func visibleScalar(_ rng: inout any SeededRandomNumberGenerator) -> Unicode.Scalar {
    switch Int.random(in: 0..<3, using: &rng) {
    case 0: Unicode.Scalar(UInt8.random(in: 0x61...0x7A, using: &rng))
    case 1: Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &rng))!
    default: "🏸"
    }
  }

  /// A valid nickname of 1 to 20 scalars, a position in it, and a format or separator scalar.
  static let namesWithFormat = Generator { rng in
    var scalars = (0..<Int.random(in: 1...20, using: &rng)).map { _ in visibleScalar(&rng) }
    let range = formatAndSeparators.randomElement(using: &rng)!
    let hidden = Unicode.Scalar(UInt32.random(in: range, using: &rng))!
    scalars.insert(hidden, at: Int.random(in: 0...scalars.count, using: &rng))
    var name = String.UnicodeScalarView()
    name.append(contentsOf: scalars)
    return String(name)
  }

  @Test("any nickname holding a format character or a line or paragraph separator is refused")
  func nickname_withFormatOrSeparator_isRefused() async {
    await propertyCheck(count: 1000, input: Self.namesWithFormat) { name in
      #expect(
        reason { _ = try PlayerRules.validateNickname(name) } == "NICKNAME_FORMAT_CHARACTERS",
        "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
    }
  }

  @Test("any nickname of visible letters, with white space around it, is accepted trimmed")
  func nickname_visible_isAccepted() async {
    let names = Generator { rng in
      var name = String.UnicodeScalarView()
      for _ in 0..<Int.random(in: 1...20, using: &rng) { name.append(Self.visibleScalar(&rng)) }
      return String(name)
    }
    await propertyCheck(count: 500, input: names) { name in
      #expect((try? PlayerRules.validateNickname(" \u{3000}" + name + "\t ")) == name)
    }
  }

  @Test("invisible and spoofing nicknames are refused with their reasons")
  func nickname_invisibleOrSpoofed() throws {
    let cases: [(String, String)] = [
      ("\u{200D}", "NICKNAME_FORMAT_CHARACTERS"),  // zero-width joiner only
      ("\u{200B}\u{200B}", "NICKNAME_FORMAT_CHARACTERS"),  // zero-width spaces
      ("admin\u{202E}nimda", "NICKNAME_FORMAT_CHARACTERS"),  // right-to-left override
      ("\u{FEFF}Lin", "NICKNAME_FORMAT_CHARACTERS"),  // byte order mark
      ("Lin\u{2028}Wang", "NICKNAME_FORMAT_CHARACTERS"),  // line separator
      ("Lin\u{2029}", "NICKNAME_FORMAT_CHARACTERS"),  // paragraph separator at the end
      ("\u{3164}", "NICKNAME_INVISIBLE"),  // Hangul filler
      ("\u{3164}\u{3164}\u{3164}", "NICKNAME_INVISIBLE"),
      ("\u{2800}", "NICKNAME_INVISIBLE"),  // blank Braille pattern
      ("\u{301}\u{301}", "NICKNAME_INVISIBLE"),  // combining marks alone
      ("\u{FE0F}", "NICKNAME_INVISIBLE"),  // a variation selector alone
      ("\u{3000}\u{3000}", "NICKNAME_LENGTH"),  // ideographic spaces only
    ]
    for (name, expected) in cases {
      #expect(reason { _ = try PlayerRules.validateNickname(name) } == expected, "\(name)")
    }
    #expect(try PlayerRules.validateNickname("José") == "José")
    #expect(try PlayerRules.validateNickname("❤️小林") == "❤️小林")
    #expect(try PlayerRules.validateNickname("Anne Marie") == "Anne Marie")
  }

  @Test("a nickname over the byte limit is refused before trimming, whatever it holds")
  func nickname_hugeInput_refusedByBytes() async throws {
    // White space that trimming would remove: were it trimmed first, the name would pass.
    let padded = Generator { rng in
      String(repeating: " ", count: Int.random(in: 1025...100_000, using: &rng)) + "小林"
    }
    await propertyCheck(count: 50, input: padded) { name in
      #expect(reason { _ = try PlayerRules.validateNickname(name) } == "NICKNAME_LENGTH")
    }
    #expect(try PlayerRules.validateNickname(String(repeating: " ", count: 1000) + "小林") == "小林")
    let sixMiB = String(repeating: "\u{200D}", count: 2 * 1024 * 1024)
    #expect(reason { _ = try PlayerRules.validateNickname(sixMiB) } == "NICKNAME_LENGTH")
  }

  @Test("a password over the byte limit is refused as too long before its characters are counted")
  func password_bytesFirst() {
    // One character of 600 combining marks: counted first, it would be too short.
    let oneCharacter = "a" + String(repeating: "\u{301}", count: 600)
    #expect(oneCharacter.count == 1)
    #expect(reason { try PlayerRules.validatePassword(oneCharacter) } == "PASSWORD_TOO_LONG")
  }

  @Test("a room code over the byte limit is not a code, even one that trims to a code")
  func roomCode_bytesFirst() {
    #expect(RoomCode.normalized("  abcdef ") == "ABCDEF")
    #expect(RoomCode.normalized(String(repeating: " ", count: 58) + "ABCDEF") == "ABCDEF")
    #expect(RoomCode.normalized(String(repeating: " ", count: 59) + "ABCDEF") == nil)
    #expect(RoomCode.normalized(String(repeating: " ", count: 1_000_000) + "ABCDEF") == nil)
  }

  @Test("other string rules refuse huge inputs by their bytes")
  func otherRules_hugeInputs() {
    let huge = String(repeating: "a", count: 1_000_000)
    #expect(reason { _ = try PlayerRules.validateLocale(huge) } == "LOCALE_UNSUPPORTED")
    #expect(reason { _ = try PlayerRules.validatePhone("+" + huge) } == "PHONE_INVALID")
    #expect(reason { try TimeSlotRules.validateTimeZone(huge) } == "TIME_ZONE_UNKNOWN")
    #expect(reason { _ = try MatchCursor(token: huge) } == "PAGE_TOKEN_INVALID")
  }

  @Test("time zones must be canonical IANA names or UTC")
  func timeZones_canonicalOnly() throws {
    for name in [
      "Asia/Shanghai", "UTC", "America/New_York", "Europe/Oslo", "Pacific/Kiritimati",
      "America/Argentina/Buenos_Aires", "Asia/Kolkata",
    ] {
      #expect(reason { try TimeSlotRules.validateTimeZone(name) } == nil, "\(name)")
    }
    for name in [
      "CST", "GMT+14", "GMT+0800", "SystemV/AST4", "Etc/GMT-8", "GMT", "Etc/UTC", "PRC",
      "Asia/Calcutta", "US/Eastern", "Asia/Chongqing", "EST5EDT", "asia/shanghai", "",
      "Asia/Shanghai ", "Nowhere",
    ] {
      #expect(
        reason { try TimeSlotRules.validateTimeZone(name) } == "TIME_ZONE_UNKNOWN", "\(name)")
      #expect(
        reason { _ = try TimeSlotRules.today(timeZone: name, nowUnixMs: 0) }
          == "TIME_ZONE_UNKNOWN", "\(name)")
    }
    // China Standard Time given as CST is refused rather than read as US Central time.
    #expect(
      reason {
        _ = try TimeSlotRules.slot(
          date: LocalDate(year: 1970, month: 1, day: 2), startMinute: 600, endMinute: 660,
          timeZone: "CST", nowUnixMs: 0)
      } == "TIME_ZONE_UNKNOWN")
  }

  @Test("every accepted time zone name is one the platform's calendar knows")
  func timeZones_allKnownToFoundation() {
    #expect(TimeSlotRules.timeZoneNames.count > 400)
    for name in TimeSlotRules.timeZoneNames {
      #expect(TimeZone(identifier: name) != nil, "\(name)")
      #expect(name == "UTC" || name.contains("/"), "\(name)")
      #expect(name.utf8.count <= TimeSlotRules.maximumTimeZoneBytes, "\(name)")
    }
  }
}
