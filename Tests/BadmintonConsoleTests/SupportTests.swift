import Testing

@testable import BadmintonConsole

@Suite("Console support: forms, times, tokens")
struct SupportTests {
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

  @Test("figures show one decimal")
  func figures() {
    #expect(Figures.oneDecimal(4.25) == "4.3")
    #expect(Figures.oneDecimal(3) == "3.0")
    #expect(Figures.oneDecimal(0.04) == "0.0")
    #expect(Figures.oneDecimal(-0.26) == "-0.3")
    #expect(Figures.oneDecimal(.nan) == "—")
  }

  @Test("figures with a number of decimals, rates, latencies, sizes and spans")
  func figures_units() {
    #expect(Figures.fixed(2.346, places: 2) == "2.35")
    #expect(Figures.fixed(84.745_762, places: 1) == "84.7")
    #expect(Figures.fixed(134, places: 1) == "134.0")
    #expect(Figures.fixed(0.05, places: 1) == "0.1")
    #expect(Figures.fixed(-0.04, places: 1) == "0.0")
    #expect(Figures.fixed(-1.25, places: 1) == "-1.3")
    #expect(Figures.fixed(7.6, places: 0) == "8")
    #expect(Figures.fixed(.infinity, places: 1) == "—")
    #expect(Figures.rate(0.25) == "0.25/s")
    #expect(Figures.rate(12.54) == "12.5/s")
    #expect(Figures.latency(micros: 850.2) == "850 µs")
    #expect(Figures.latency(micros: 999.7) == "1.0 ms")
    #expect(Figures.latency(micros: 1_234) == "1.2 ms")
    #expect(Figures.latency(micros: 2_346_000) == "2.35 s")
    #expect(Figures.size(bytes: 1) == "1 byte")
    #expect(Figures.size(bytes: 812) == "812 bytes")
    #expect(Figures.size(bytes: 246_272) == "240.5 KiB")
    #expect(Figures.size(bytes: 5 * 1024 * 1024) == "5.0 MiB")
    #expect(Figures.span(seconds: 300) == "5 min")
    #expect(Figures.span(seconds: 45) == "45 s")
  }

  @Test("waiting times in minutes, hours and days")
  func figures_duration() {
    #expect(Figures.duration(ms: -5_000) == "under 1 min")
    #expect(Figures.duration(ms: 59_999) == "under 1 min")
    #expect(Figures.duration(ms: 60_000) == "1 min")
    #expect(Figures.duration(ms: (3 * 60 + 12) * 60_000 + 59_999) == "3 h 12 min")
    #expect(Figures.duration(ms: 24 * 3_600_000) == "1 d")
    #expect(Figures.duration(ms: (2 * 24 + 5) * 3_600_000 + 60_000) == "2 d 5 h")
  }

  @Test("a chart's points: oldest at the left, 0 at the bottom, the maximum at the top")
  func lineChart_points() {
    #expect(LineChart.points([0, 5, 10], maximum: 10) == "64.0,134.0 268.0,74.0 472.0,14.0")
    #expect(LineChart.points([nil, 1, nil, 4, nil], maximum: 4) == "166.0,104.0 370.0,14.0")
    #expect(LineChart.points([nil, 2], maximum: 2) == "472.0,14.0 472.0,14.0")
    #expect(LineChart.points([0, 0], maximum: 0) == "64.0,134.0 472.0,134.0")
    #expect(LineChart.points([nil, nil], maximum: 0) == "")
    let chart = LineChart(
      title: "Latency of /a/<b>", className: "latency",
      series: [
        .init(name: "p50", className: "p50", stroke: "#000000", values: [nil, nil]),
        .init(name: "p99", className: "p99", stroke: "#000000", values: [nil, nil]),
      ],
      format: { Figures.latency(micros: $0) }, span: "last 10 s", legend: true,
      emptyText: "not timed")
    let svg = chart.svg
    #expect(svg.hasPrefix("<svg class=\"chart latency\""))
    #expect(svg.hasSuffix("</svg>"))
    #expect(svg.contains("<title>Latency of /a/&lt;b&gt;</title>"))
    #expect(svg.contains(">not timed</text>"))
    #expect(!svg.contains("class=\"label maximum\""))
    #expect(!svg.contains("<polyline"))
    #expect(!svg.contains("style="))
  }

  @Test("markup the pages build escapes what HTML would read")
  func htmlEscaped() {
    #expect(
      "<a href=\"x\">'&'</a>".htmlEscaped == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
    )
  }

  @Test(
    "the console's own addresses are canonical",
    arguments: [
      "/", "/sign-in", "/console.css", "/players", "/players/7", "/players/10/lift",
      "/verifications/1/document", "/audit",
    ])
  func canonicalPath_accepted(path: String) {
    #expect(CanonicalPathMiddleware.isCanonical(path))
  }

  @Test(
    "a path with an empty, dot, escaped or zero-led segment, or a trailing slash, is not",
    arguments: [
      "", "players", "//", "/players/", "/players//7", "/players/07", "/players/00", "/./players",
      "/players/..", "/players/%37", "/players/7;x", "/players/7 ", "/pl\u{e9}yers",
    ])
  func canonicalPath_refused(path: String) {
    #expect(!CanonicalPathMiddleware.isCanonical(path))
  }
}
