import Testing

@testable import BadmintonConsole

@Suite("Console support: forms, times, tokens, templates")
struct SupportTests {
  @Test("a urlencoded form decodes %-escapes and +, keeps the first of repeated names")
  func formFields_decode() throws {
    let form = try #require(
      FormFields(encoded: "reason=No+shows%20%E2%80%94+again&until=&a=1&a=2&flag"))
    #expect(form["reason"] == "No shows — again")
    #expect(form["until"] == "")
    #expect(form["a"] == "1")
    #expect(form["flag"] == "")
    #expect(form["missing"] == nil)
  }

  @Test(
    "a malformed form is nil",
    arguments: ["a=%", "a=%4", "a=%ZZ", "a=%FF", "%C3=1"])
  func formFields_malformed(encoded: String) {
    #expect(FormFields(encoded: encoded) == nil)
  }

  @Test("times are shown in UTC to the minute")
  func utcTime_format() {
    #expect(UTCTime.format(unixMs: 0) == "1970-01-01 00:00 UTC")
    #expect(UTCTime.format(unixMs: 951_782_400_000) == "2000-02-29 00:00 UTC")
    #expect(UTCTime.format(unixMs: 1_740_837_900_000) == "2025-03-01 14:05 UTC")
    #expect(UTCTime.format(unixMs: -60_000) == "1969-12-31 23:59 UTC")
    #expect(UTCTime.format(unixMs: 4_107_542_340_000) == "2100-02-28 23:59 UTC")
  }

  @Test("datetime-local values are read as UTC; impossible dates are refused")
  func utcTime_parse() {
    #expect(UTCTime.parseDateTimeLocal("2025-03-01T14:05") == 1_740_837_900_000)
    #expect(UTCTime.parseDateTimeLocal("2025-03-01T14:05:30") == 1_740_837_930_000)
    #expect(UTCTime.parseDateTimeLocal("2000-02-29T00:00") == 951_782_400_000)
    for bad in [
      "2025-02-29T00:00", "2100-02-29T00:00", "2025-13-01T00:00", "2025-04-31T00:00",
      "2025-01-01T24:00", "2025-01-01T23:60", "2025-01-01 10:00", "2025-1-01T10:00", "",
      "2025-01-01T10:00:61", "+025-01-01T10:00",
    ] {
      #expect(UTCTime.parseDateTimeLocal(bad) == nil, "\(bad)")
    }
  }

  @Test("reading back a shown time gives the same minute, over four centuries")
  func utcTime_roundTrip() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      // 1970 to 2370, whole minutes.
      let minutes = Int64.random(in: 0..<(400 * 525_960), using: &generator)
      let unixMs = minutes * 60_000
      #expect(UTCTime.parseDateTimeLocal(UTCTime.dateTimeLocal(unixMs: unixMs)) == unixMs)
    }
  }

  @Test("tokens compare equal only when every byte is")
  func secrets_compare() {
    let token = Secrets.randomHex()
    #expect(token.count == 64)
    #expect(token != Secrets.randomHex())
    #expect(Secrets.constantTimeEquals(token, token))
    #expect(!Secrets.constantTimeEquals(token, String(token.dropLast()) + "x"))
    #expect(!Secrets.constantTimeEquals(token, String(token.dropLast())))
    #expect(!Secrets.constantTimeEquals(token, ""))
  }

  @Test("a sign-in token belongs to its cookie and expires with it")
  func signInGuard() {
    let guardian = SignInGuard(lifetimeMs: 600_000)
    let cookie = guardian.issueCookie(nowUnixMs: 1_000)
    let token = guardian.token(forCookie: cookie, nowUnixMs: 1_000)
    #expect(guardian.accepts(cookie: cookie, formToken: token, nowUnixMs: 600_999))
    #expect(!guardian.accepts(cookie: cookie, formToken: token, nowUnixMs: 601_000))
    #expect(!guardian.accepts(cookie: cookie, formToken: token, nowUnixMs: 999))
    let other = guardian.issueCookie(nowUnixMs: 1_000)
    #expect(!guardian.accepts(cookie: other, formToken: token, nowUnixMs: 1_000))
    #expect(!guardian.accepts(cookie: nil, formToken: token, nowUnixMs: 1_000))
    #expect(
      !SignInGuard(lifetimeMs: 600_000).accepts(cookie: cookie, formToken: token, nowUnixMs: 1_000)
    )
  }

  @Test("no template writes a value unescaped, and none has a script or a style attribute")
  func templates_escapeEverything() throws {
    for (name, text) in Templates.all {
      #expect(!text.contains("{{{"), "\(name)")
      #expect(!text.contains("{{&"), "\(name)")
      #expect(!text.contains("<script"), "\(name)")
      #expect(!text.contains("style="), "\(name)")
      #expect(!text.contains(" on"), "\(name)")
    }
    _ = try PageRenderer()
  }

  @Test("figures show one decimal")
  func figures() {
    #expect(Figures.oneDecimal(4.25) == "4.3")
    #expect(Figures.oneDecimal(3) == "3.0")
    #expect(Figures.oneDecimal(0.04) == "0.0")
    #expect(Figures.oneDecimal(-0.26) == "-0.3")
    #expect(Figures.oneDecimal(.nan) == "—")
  }
}
