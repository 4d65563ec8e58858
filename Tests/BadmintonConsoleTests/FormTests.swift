import Hummingbird
import Testing

@testable import BadmintonConsole

@Suite("Console forms, decoded with URLEncodedFormDecoder, and cookies")
struct FormTests {
  @Test("a urlencoded form decodes %-escapes and +; a field left out is nil")
  func decode_escapesAndMissing() throws {
    let form = try SuspendForm.decode("reason=No+shows%20%E2%80%94+again&until=&for=7d&other=1")
    #expect(form.reason == "No shows — again")
    #expect(form.until == "")
    #expect(form.duration == "7d")
    let empty = try LiftForm.decode("")
    #expect(empty.note == nil)
    #expect(empty.trimmedNote == "")
  }

  @Test(
    "a malformed form, or one with a field given twice, is refused",
    arguments: ["note=%", "note=%4", "note=%ZZ", "note=a&note=b"])
  func decode_malformed(encoded: String) {
    #expect(throws: (any Error).self) { try LiftForm.decode(encoded) }
  }

  @Test("bytes that are not UTF-8 once decoded reach no page as such: each is U+FFFD")
  func decode_notUTF8() throws {
    #expect(try LiftForm.decode("note=a%FFb").note == "a\u{FFFD}b")
  }

  @Test("the token is read from any form, whatever else it holds")
  func token_read() throws {
    #expect(try TokenForm.decode("csrf=abc&note=x").csrf == "abc")
    #expect(try TokenForm.decode("note=x").csrf == nil)
  }

  @Test("sign-in: phone 1 to 32 characters once trimmed, password 1 to 256")
  func signIn_bounds() throws {
    #expect(try SignInForm.decode("phone=+8613800000001&password=pw").violations.isEmpty)
    let blank = try SignInForm.decode("phone=+++&password=")
    #expect(blank.violations.map(\.field) == ["phone", "password"])
    #expect(blank.violations.map(\.reason) == ["REQUIRED", "REQUIRED"])
    let long = try SignInForm.decode(
      "phone=\(String(repeating: "1", count: 33))&password=\(String(repeating: "p", count: 257))")
    #expect(long.violations.map(\.reason) == ["TOO_LONG", "TOO_LONG"])
    #expect(
      try SignInForm.decode(
        "phone=\(String(repeating: "1", count: 32))&password=\(String(repeating: "p", count: 256))"
      ).violations.isEmpty)
  }

  @Test("suspend: a reason of 1 to 500 characters, and a time or a quick choice")
  func suspend_bounds() throws {
    let now: Int64 = 1_740_000_000_000
    let quick = try SuspendForm.decode("reason=spam&for=30d").checked(nowUnixMs: now)
    #expect(quick.untilUnixMs == now + 30 * 86_400_000)
    #expect(quick.violations.isEmpty)
    let timed = try SuspendForm.decode("reason=spam&until=2025-03-01T14%3A05&for=1d")
      .checked(nowUnixMs: now)
    #expect(timed.untilUnixMs == 1_740_837_900_000)
    let bad = try SuspendForm.decode("reason=&until=tomorrow").checked(nowUnixMs: now)
    #expect(bad.untilUnixMs == nil)
    #expect(bad.violations.map(\.reason) == ["REQUIRED", "INVALID_TIME"])
    let none = try SuspendForm.decode("reason=spam&for=2d").checked(nowUnixMs: now)
    #expect(none.violations.map(\.field) == ["until"])
    let long = try SuspendForm.decode("reason=\(String(repeating: "r", count: 501))&for=1d")
    #expect(long.checked(nowUnixMs: now).violations.map(\.reason) == ["TOO_LONG"])
  }

  @Test("review: approve or reject, and a note of at most 500 characters")
  func review_bounds() throws {
    #expect(try ReviewForm.decode("decision=approve").approves == true)
    #expect(try ReviewForm.decode("decision=reject&note=blurry").approves == false)
    let neither = try ReviewForm.decode("decision=maybe&note=\(String(repeating: "n", count: 501))")
    #expect(neither.approves == nil)
    #expect(neither.violations.map(\.reason) == ["TOO_LONG", "INVALID_DECISION"])
    #expect(try LiftForm.decode("note=+ok+").trimmedNote == "ok")
  }

  @Test(
    "cookies are HttpOnly, SameSite=Strict, Path=/; Secure only over TLS; cleared with Max-Age=0")
  func cookies_attributes() {
    let plain = ConsoleCookies(secure: false).session("abc")
    #expect(plain.name == "console_session")
    #expect(plain.value == "abc")
    #expect(plain.httpOnly)
    #expect(plain.sameSite == .strict)
    #expect(plain.path == "/")
    #expect(!plain.secure)
    #expect(plain.maxAge == nil)
    let tls = ConsoleCookies(secure: true).signIn("v", maxAgeSeconds: 600)
    #expect(tls.name == "console_sign_in")
    #expect(tls.secure)
    #expect(tls.maxAge == 600)
    let cleared = ConsoleCookies(secure: false).cleared("console_session")
    #expect(cleared.value == "")
    #expect(cleared.maxAge == 0)
  }
}
