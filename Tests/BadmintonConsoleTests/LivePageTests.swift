import BadmintonConsole
import Foundation
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing

@Suite("Console Live page")
struct LivePageTests {
  /// A method with `rates` calls per second and latencies `p50` / `p99` (µs) per point.
  static func series(
    _ method: String, calls: Int, rates: [Double], p50: [Double?]? = nil, p99: [Double?]? = nil
  ) -> ConsoleMethodSeries {
    ConsoleMethodSeries(
      method: method, calls: calls,
      points: rates.indices.map { index in
        ConsoleMethodPoint(
          callsPerSecond: rates[index], p50Micros: p50?[index], p99Micros: p99?[index])
      })
  }

  static func figures(methods: [ConsoleMethodSeries]) -> ConsoleLiveFigures {
    ConsoleLiveFigures(
      intervalSeconds: 5, endUnixMs: 1_740_000_000_000, methods: methods, openConnections: 42,
      openStreams: 17, matchBoardRequests: 9, nearbyIndexPlayers: 1_234,
      commitLatency: ConsoleLatency(count: 40, p50Micros: 1_234, p99Micros: 8_000))
  }

  /// The section of `method` (its path as the page escapes it), up to its end.
  static func section(_ escapedMethod: String, in html: String) -> String? {
    guard let start = html.range(of: "<section class=\"method\" data-method=\"\(escapedMethod)\">")
    else { return nil }
    guard let end = html[start.upperBound...].range(of: "</section>") else { return nil }
    return String(html[start.lowerBound..<end.upperBound])
  }

  /// The `points` of the polylines of class `line NAME` in `html`, in order.
  static func polylines(_ name: String, in html: String) -> [String] {
    var found: [String] = []
    var rest = html[...]
    while let start = rest.range(of: "<polyline class=\"line \(name)\"") {
      let tail = rest[start.upperBound...]
      guard let points = tail.range(of: "points=\"") else { break }
      let value = tail[points.upperBound...].prefix { $0 != "\"" }
      found.append(String(value))
      rest = tail[points.upperBound...]
    }
    return found
  }

  @Test("the page refreshes itself and shows the sizes and the store's commit latency")
  func live_figures() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.live = Self.figures(methods: [
          Self.series("/badminton.v1.Players/GetMyProfile", calls: 3, rates: [0.2, 0.4])
        ])
      }
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/live")
      #expect(response.status == .ok)
      expectSecurityHeaders(response)
      let html = response.text
      #expect(html.contains("<meta http-equiv=\"refresh\" content=\"5\">"))
      #expect(element("open-connections", in: html) == "42")
      #expect(element("open-streams", in: html) == "17")
      #expect(element("match-board", in: html) == "9")
      #expect(element("nearby-index", in: html) == "1234")
      #expect(element("commit-latency", in: html) == "p50 1.2 ms, p99 8.0 ms (40 commits)")
      #expect(!html.contains(" style="))
      #expect(!html.contains("<script"))
      let other = try await browser.get(client, "/players").text
      #expect(!other.contains("http-equiv=\"refresh\""))
    }
  }

  @Test("a store that does not time its commits says so")
  func live_commitsNotTimed() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.live = Self.figures(methods: [])
        $0.live.commitLatency = nil
      }
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/live").text
      #expect(element("commit-latency", in: html) == "not timed")
    }
  }

  @Test("each method gets a calls chart and a latency chart whose lines follow its series")
  func live_charts() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.live = Self.figures(methods: [
          Self.series(
            "/badminton.v1.Matching/FindMatches", calls: 75, rates: [0, 5, 10],
            p50: [nil, 500, 1_000], p99: [nil, 2_000, 4_000])
        ])
      }
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/live").text
      let section = try #require(Self.section("/badminton.v1.Matching/FindMatches", in: html))
      #expect(section.contains("<h2><code>/badminton.v1.Matching/FindMatches</code></h2>"))
      #expect(section.contains("75 calls in the last 15 s"))
      #expect(section.components(separatedBy: "<svg").count - 1 == 2)
      // 3 points across x 64…472, values 0…max across y 134…14.
      #expect(Self.polylines("rate", in: section) == ["64.0,134.0 268.0,74.0 472.0,14.0"])
      #expect(Self.polylines("p50", in: section) == ["268.0,119.0 472.0,104.0"])
      #expect(Self.polylines("p99", in: section) == ["268.0,74.0 472.0,14.0"])
      #expect(section.contains(">10.0/s</text>"))
      #expect(section.contains(">4.0 ms</text>"))
      #expect(section.contains(">last 15 s</text>"))
      #expect(section.contains(">p50</text>"))
      #expect(section.contains(">p99</text>"))
      #expect(
        html.contains(
          "<tr><td><code>/badminton.v1.Matching/FindMatches</code></td><td>75</td>"
            + "<td>10.0/s</td><td>1.0 ms</td><td>4.0 ms</td></tr>"))
    }
  }

  @Test("a stream's latency chart says it is not timed; a 5-minute window is labelled so")
  func live_untimedStream() async throws {
    try await withConsole { client, backend in
      let rates = (0..<60).map { Double($0 % 4) }
      backend.state.withLock {
        $0.live = Self.figures(methods: [
          Self.series("/badminton.v1.Events/Subscribe", calls: 450, rates: rates)
        ])
      }
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/live").text
      let section = try #require(Self.section("/badminton.v1.Events/Subscribe", in: html))
      #expect(section.contains(">last 5 min</text>"))
      #expect(section.contains(">not timed</text>"))
      #expect(Self.polylines("p50", in: section).isEmpty)
      let rate = try #require(Self.polylines("rate", in: section).first)
      let points = rate.split(separator: " ")
      #expect(points.count == 60)
      // Point 3 of 60 (value 3, the maximum): x = 64 + 408 × 3 / 59.
      #expect(points[3] == "84.7,14.0")
      #expect(points.last == "472.0,14.0")
      #expect(html.contains("<td>3.00/s</td><td>—</td><td>—</td>"))
    }
  }

  @Test("the ten busiest methods get charts; the table lists every method")
  func live_topTen() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.live = Self.figures(
          methods: (1...12).map { index in
            Self.series("/badminton.v1.S/M\(index)", calls: 100 - index, rates: [1, 2])
          })
      }
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/live").text
      #expect(html.components(separatedBy: "<section class=\"method\"").count - 1 == 10)
      #expect(html.components(separatedBy: "<svg").count - 1 == 20)
      #expect(Self.section("/badminton.v1.S/M10", in: html) != nil)
      #expect(Self.section("/badminton.v1.S/M11", in: html) == nil)
      #expect(html.contains("<td><code>/badminton.v1.S/M12</code></td>"))
    }
  }

  @Test("method paths are escaped in the section, the table and the charts")
  func live_escapesMethodPaths() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.live = Self.figures(methods: [
          Self.series("/x.Y/<script>alert(\"1\")</script>", calls: 1, rates: [0.2])
        ])
      }
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/live").text
      #expect(!html.contains("<script"))
      let escaped = "/x.Y/&lt;script&gt;alert(&quot;1&quot;)&lt;/script&gt;"
      #expect(Self.section(escaped, in: html) != nil)
      #expect(html.contains("<title>Calls per second of \(escaped)</title>"))
      #expect(html.contains("<td><code>\(escaped)</code></td>"))
      // One point: a dot where the newest point is.
      #expect(Self.polylines("rate", in: html) == ["472.0,14.0 472.0,14.0"])
    }
  }

  @Test("an empty window says no calls were made, and draws no chart")
  func live_noCalls() async throws {
    try await withConsole { client, backend in
      backend.state.withLock { $0.live = Self.figures(methods: []) }
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/live").text
      #expect(element("no-calls", in: html) == "No calls in the last 5 minutes.")
      #expect(!html.contains("<svg"))
      #expect(!html.contains("id=\"methods\""))
    }
  }
}
