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

  func addRoutes(to router: Router<ConsoleRequestContext>) {
    router.get("/live") { _, context in
      let figures = await core.backend.liveFigures()
      return core.renderer.page(
        Self.page(of: figures), title: "Live", session: context.session,
        refreshSeconds: Self.refreshSeconds)
    }
  }

  /// What the live page shows of `figures`.
  static func page(of figures: ConsoleLiveFigures) -> LivePageContext {
    let pointCount = figures.methods.first?.points.count ?? defaultPointCount
    let windowSeconds = max(1, figures.intervalSeconds) * max(1, pointCount)
    let span = Figures.span(seconds: windowSeconds)
    return LivePageContext(
      at: UTCTime.format(unixMs: figures.endUnixMs),
      interval: "\(figures.intervalSeconds) s",
      span: span,
      openConnections: figures.openConnections,
      openStreams: figures.openStreams,
      matchBoard: figures.matchBoardRequests,
      nearbyIndex: figures.nearbyIndexPlayers,
      commitLatency: figures.commitLatency.map {
        "p50 \(Figures.latency(micros: $0.p50Micros)), "
          + "p99 \(Figures.latency(micros: $0.p99Micros)) "
          + "(\($0.count) commit\($0.count == 1 ? "" : "s"))"
      } ?? "not timed",
      hasCalls: !figures.methods.isEmpty,
      methods: figures.methods.map { series in
        let latest = series.points.last
        return LivePageContext.MethodRow(
          method: series.method,
          calls: series.calls,
          rate: latest.map { Figures.rate($0.callsPerSecond) } ?? "—",
          p50: latest?.p50Micros.map { Figures.latency(micros: $0) } ?? "—",
          p99: latest?.p99Micros.map { Figures.latency(micros: $0) } ?? "—")
      },
      sections: figures.methods.prefix(chartedMethods).map { series in
        LivePageContext.MethodSection(
          method: series.method,
          calls: "\(series.calls) call\(series.calls == 1 ? "" : "s") in the last \(span)",
          rateChart: rateChart(series, span: span).svg,
          latencyChart: latencyChart(series, span: span).svg)
      },
      emptyWindow: windowSeconds % 60 == 0
        ? "No calls in the last \(windowSeconds / 60) minute\(windowSeconds == 60 ? "" : "s")."
        : "No calls in the last \(windowSeconds) seconds.")
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
