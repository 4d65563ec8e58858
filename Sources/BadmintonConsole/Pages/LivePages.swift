import Hummingbird

/// The Live page: the server's traffic over the last few minutes and its sizes now, drawn on the
/// server and reloaded by the browser every few seconds (a `<meta>` refresh, no script).
struct LivePages: Sendable {
  /// How often the browser reloads the page, in seconds.
  static let refreshSeconds = 5
  /// How many methods get a section with charts; the table lists them all.
  static let chartedMethods = 10
  /// The points a window holds when no method says (no call in the window): 5 minutes of
  /// 5-second points.
  static let defaultPointCount = 60

  /// The colours of the lines.
  static let rateStroke = "#1f4e3d"
  static let p50Stroke = "#2b6cb0"
  static let p99Stroke = "#c05621"

  let core: ConsoleCore

  func register(on router: Router<ConsoleRequestContext>) {
    router.get("/live") { _, context in
      var values = Self.values(of: await core.backend.liveFigures())
      values["refreshSeconds"] = String(Self.refreshSeconds)
      return core.renderer.page("live", title: "Live", session: context.session, values: values)
    }
  }

  /// The live page's values for `figures`.
  static func values(of figures: ConsoleLiveFigures) -> [String: Any] {
    let pointCount = figures.methods.first?.points.count ?? defaultPointCount
    let windowSeconds = max(1, figures.intervalSeconds) * max(1, pointCount)
    let span = Figures.span(seconds: windowSeconds)
    var values: [String: Any] = [
      "at": UTCTime.format(unixMs: figures.endUnixMs),
      "interval": "\(figures.intervalSeconds) s",
      "span": span,
      "openConnections": String(figures.openConnections),
      "openStreams": String(figures.openStreams),
      "matchBoard": String(figures.matchBoardRequests),
      "nearbyIndex": String(figures.nearbyIndexPlayers),
      "commitLatency": figures.commitLatency.map {
        "p50 \(Figures.latency(micros: $0.p50Micros)), "
          + "p99 \(Figures.latency(micros: $0.p99Micros)) "
          + "(\($0.count) commit\($0.count == 1 ? "" : "s"))"
      } ?? "not timed",
      "hasCalls": !figures.methods.isEmpty,
      "emptyWindow": windowSeconds % 60 == 0
        ? "No calls in the last \(windowSeconds / 60) minute\(windowSeconds == 60 ? "" : "s")."
        : "No calls in the last \(windowSeconds) seconds.",
    ]
    values["methods"] = figures.methods.map { series -> [String: Any] in
      let latest = series.points.last
      return [
        "method": series.method,
        "calls": String(series.calls),
        "rate": latest.map { Figures.rate($0.callsPerSecond) } ?? "—",
        "p50": latest?.p50Micros.map { Figures.latency(micros: $0) } ?? "—",
        "p99": latest?.p99Micros.map { Figures.latency(micros: $0) } ?? "—",
      ]
    }
    values["sections"] = figures.methods.prefix(chartedMethods).map { series -> [String: Any] in
      [
        "method": series.method,
        "calls": "\(series.calls) call\(series.calls == 1 ? "" : "s") in the last \(span)",
        "rateChart": rateChart(series, span: span).svg,
        "latencyChart": latencyChart(series, span: span).svg,
      ]
    }
    return values
  }

  /// The chart of a method's calls per second.
  static func rateChart(_ series: ConsoleMethodSeries, span: String) -> LineChart {
    LineChart(
      title: "Calls per second of \(series.method)", className: "rate",
      series: [
        .init(
          name: "calls/s", className: "rate", stroke: rateStroke,
          values: series.points.map(\.callsPerSecond))
      ],
      format: { Figures.rate($0) }, span: "last \(span)")
  }

  /// The chart of a method's median and 99th percentile latency.
  static func latencyChart(_ series: ConsoleMethodSeries, span: String) -> LineChart {
    LineChart(
      title: "Latency of \(series.method)", className: "latency",
      series: [
        .init(
          name: "p50", className: "p50", stroke: p50Stroke, values: series.points.map(\.p50Micros)),
        .init(
          name: "p99", className: "p99", stroke: p99Stroke, values: series.points.map(\.p99Micros)),
      ],
      format: { Figures.latency(micros: $0) }, span: "last \(span)", legend: true,
      emptyText: "not timed")
  }
}
