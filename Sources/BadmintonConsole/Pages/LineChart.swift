/// A line chart drawn on the server as an inline `<svg>` element: no script, no style attribute,
/// no file of its own. Every coordinate and label is a number formatted here; the only text from
/// elsewhere is the chart's title (a method's path), which is escaped.
struct LineChart: Sendable {
  /// One line of the chart.
  struct Series: Sendable {
    /// The legend's name of the line, e.g. `p99`.
    var name: String
    /// The line's class in console.css, e.g. `p99`.
    var className: String
    /// The line's colour.
    var stroke: String
    /// One value per point, oldest first; nil where there is none (the line joins its
    /// neighbours).
    var values: [Double?]
  }

  /// The chart's width and height in pixels.
  static let width = 480.0
  static let height = 160.0
  /// The plot area inside the chart: left of it the value labels, below it the time labels.
  static let plotLeft = 64.0
  static let plotRight = 472.0
  static let plotTop = 14.0
  static let plotBottom = 134.0

  /// What the chart shows, for screen readers and as a tooltip, e.g. `Calls per second of
  /// /badminton.v1.Players/GetMyProfile`.
  var title: String
  /// The chart's class in console.css besides `chart`, e.g. `rate`.
  var className: String
  /// The lines.
  var series: [Series]
  /// How the value axis labels a value, e.g. `12.5/s`.
  var format: @Sendable (Double) -> String
  /// The time the chart spans, e.g. `last 5 min`.
  var span: String
  /// Whether the chart names its lines in a legend.
  var legend: Bool = false
  /// What the chart says when no line has a value.
  var emptyText = "no values"

  /// The largest value of any line; the value axis goes from 0 to it.
  var maximum: Double {
    series.flatMap(\.values).compactMap { $0 }.filter(\.isFinite).max() ?? 0
  }

  /// The x coordinate of point `index` of `count`: the oldest at the left edge, the newest at
  /// the right.
  static func x(index: Int, count: Int) -> Double {
    guard count > 1 else { return plotRight }
    return plotLeft + (plotRight - plotLeft) * Double(index) / Double(count - 1)
  }

  /// The y coordinate of `value` on an axis from 0 to `maximum`.
  static func y(value: Double, maximum: Double) -> Double {
    let scale = maximum > 0 ? maximum : 1
    let clamped = min(max(value, 0), scale)
    return plotBottom - (plotBottom - plotTop) * clamped / scale
  }

  /// The `points` attribute of a line: `x,y` pairs of the points that have a value. A line of
  /// one point repeats it, so that its round cap draws a dot.
  static func points(_ values: [Double?], maximum: Double) -> String {
    var pairs: [String] = []
    for (index, value) in values.enumerated() {
      guard let value, value.isFinite else { continue }
      pairs.append(
        number(x(index: index, count: values.count)) + ","
          + number(y(value: value, maximum: maximum)))
    }
    if pairs.count == 1 { pairs.append(pairs[0]) }
    return pairs.joined(separator: " ")
  }

  /// The chart as SVG markup.
  var svg: String {
    let maximum = self.maximum
    let title = self.title.htmlEscaped
    let (left, right, top, bottom) = (Self.plotLeft, Self.plotRight, Self.plotTop, Self.plotBottom)
    var svg = """
      <svg class="chart \(className)" xmlns="http://www.w3.org/2000/svg" \
      viewBox="0 0 \(Self.number(Self.width)) \(Self.number(Self.height))" \
      width="\(Self.number(Self.width))" height="\(Self.number(Self.height))" role="img" \
      aria-label="\(title)">
      <title>\(title)</title>
      <line class="axis" x1="\(Self.number(left))" y1="\(Self.number(top))" \
      x2="\(Self.number(left))" y2="\(Self.number(bottom))" stroke="#888888" stroke-width="1"/>
      <line class="axis" x1="\(Self.number(left))" y1="\(Self.number(bottom))" \
      x2="\(Self.number(right))" y2="\(Self.number(bottom))" stroke="#888888" stroke-width="1"/>
      <line class="grid" x1="\(Self.number(left))" y1="\(Self.number(top))" \
      x2="\(Self.number(right))" y2="\(Self.number(top))" stroke="#dddddd" stroke-width="1"/>
      <text class="label span" x="\(Self.number(left))" y="\(Self.number(bottom + 18))">\
      \(span.htmlEscaped)</text>
      <text class="label" x="\(Self.number(right))" y="\(Self.number(bottom + 18))" \
      text-anchor="end">now</text>

      """
    let drawn = series.filter { $0.values.contains { $0?.isFinite == true } }
    if !drawn.isEmpty {
      // The value axis: 0 at the bottom, the largest value at the top.
      svg += """
        <text class="label maximum" x="\(Self.number(left - 6))" y="\(Self.number(top + 4))" \
        text-anchor="end">\(format(maximum).htmlEscaped)</text>
        <text class="label" x="\(Self.number(left - 6))" y="\(Self.number(bottom + 4))" \
        text-anchor="end">0</text>

        """
    } else {
      svg += """
        <text class="label empty" x="\(Self.number((left + right) / 2))" \
        y="\(Self.number((top + bottom) / 2))" text-anchor="middle">\(emptyText.htmlEscaped)</text>

        """
    }
    for line in drawn {
      svg += """
        <polyline class="line \(line.className)" fill="none" stroke="\(line.stroke)" \
        stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round" \
        points="\(Self.points(line.values, maximum: maximum))"/>

        """
    }
    if legend {
      // The legend sits below the plot, between the time labels: a short line and its name.
      var x = (left + right) / 2 - 28 * Double(series.count)
      for line in series {
        svg += """
          <line class="legend \(line.className)" x1="\(Self.number(x))" \
          y1="\(Self.number(bottom + 14))" x2="\(Self.number(x + 16))" \
          y2="\(Self.number(bottom + 14))" stroke="\(line.stroke)" stroke-width="2"/>
          <text class="label legend" x="\(Self.number(x + 20))" y="\(Self.number(bottom + 18))">\
          \(line.name.htmlEscaped)</text>

          """
        x += 56
      }
    }
    return svg + "</svg>"
  }

  /// A coordinate, with one decimal.
  static func number(_ value: Double) -> String {
    Figures.fixed(value, places: 1)
  }
}
