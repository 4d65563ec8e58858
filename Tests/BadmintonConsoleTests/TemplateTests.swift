import BadmintonDomain
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Mustache
import NIOCore
import Testing

@testable import BadmintonConsole

@Suite("Console templates: resource files, typed contexts")
struct TemplateTests {
  @Test("every template and the stylesheet load from the resource folder, and nothing else")
  func resources_load() async throws {
    let folder = try ConsoleResources.locate()
    let resources = try await ConsoleResources.load(from: folder)
    for template in PageTemplate.allCases {
      #expect(resources.library.getTemplate(named: template.rawValue) != nil, "\(template)")
    }
    let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/Templates")
    #expect(Set(files) == Set(PageTemplate.allCases.map(\.fileName)))
    #expect(resources.stylesheet.contains("header nav"))
  }

  @Test("a missing resource folder fails the load, naming where it looked")
  func resources_missingFolder() throws {
    let bundles = ["/nowhere/a/\(ConsoleResources.bundleName)", "/nowhere/b/x.resources"]
    let error = try #require(throws: ConsoleResourceError.self) {
      try ConsoleResources.locate(in: bundles)
    }
    #expect(error.message.contains("/nowhere/a/\(ConsoleResources.bundleName)"))
    #expect(error.message.contains("/nowhere/b/x.resources"))
    #expect(error.message.contains("beside the badminton-server executable"))
    // Where the console looks by default: beside the executable first.
    #expect(
      ConsoleResources.bundleCandidates().first?.hasSuffix(ConsoleResources.bundleName) == true)
  }

  @Test("a template file missing or broken fails the load, naming it")
  func resources_missingTemplate() async throws {
    let folder = try copyOfResources()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.removeItem(atPath: folder + "/Templates/player.mustache")
    let missing = await #expect(throws: ConsoleResourceError.self) {
      _ = try await ConsoleResources.load(from: folder)
    }
    #expect(missing?.message.contains("player.mustache") == true)

    try Data("{{#detail}}never closed".utf8).write(
      to: URL(fileURLWithPath: folder + "/Templates/player.mustache"))
    let broken = await #expect(throws: ConsoleResourceError.self) {
      _ = try await ConsoleResources.load(from: folder)
    }
    #expect(broken?.message.contains("player.mustache") == true)
  }

  @Test("a template missing at render is a 500 page and a log, never an empty page")
  func render_missingTemplate() async throws {
    let resources = try await ConsoleResources.load()
    var library = MustacheLibrary()
    for template in PageTemplate.allCases where template != .players {
      library.register(
        try #require(resources.library.getTemplate(named: template.rawValue)),
        named: template.rawValue)
    }
    let renderer = PageRenderer(
      resources: ConsoleResources(library: library, stylesheet: ""), logger: quietLogger)
    let response = renderer.page(
      PlayersPageContext(query: "", searched: false, hasResults: false, results: []),
      title: "Players", session: Samples.session)
    #expect(response.status == .internalServerError)
    let html = try await text(of: response)
    #expect(html.contains("<h1>Something went wrong</h1>"))
    #expect(html.contains(#"<code class="reason">INTERNAL</code>"#))

    // Without the problem page's template too: a fixed page.
    let bare = PageRenderer(
      resources: ConsoleResources(library: MustacheLibrary(), stylesheet: ""),
      logger: quietLogger)
    let fixed = bare.problem(
      title: "Player", session: nil, status: .notFound, message: .error("No such player."))
    #expect(fixed.status == .internalServerError)
    #expect(try await text(of: fixed).contains(#"<div id="message" class="message error""#))
  }

  @Test("the samples fill every optional and list of every context")
  func samples_fullyPopulated() {
    #expect(
      Set(Samples.pages.map { type(of: $0).template })
        == Set(PageTemplate.allCases).subtracting([.layout]))
    #expect(TemplateNames.unfilled(Samples.layout, path: "layout") == [])
    for page in Samples.pages {
      #expect(TemplateNames.unfilled(page, path: "\(type(of: page))") == [])
    }
  }

  @Test("every name a template reads is a property of its page's context or the layout's")
  func templates_readOnlyKnownNames() async throws {
    let folder = try ConsoleResources.locate()
    for page in Samples.pages {
      let template = type(of: page).template
      let root = TemplateNames.root(page, layout: Samples.layout)
      for checked in [template, .layout] {
        let text = try String(
          contentsOfFile: "\(folder)/Templates/\(checked.fileName)", encoding: .utf8)
        #expect(
          TemplateNames.unknownNames(in: text, root: root) == [], "\(checked) for \(template)")
      }
    }
  }

  @Test("the check finds a name no context holds, and one read outside its section")
  func templateNames_findUnknown() {
    let root = TemplateNames.root(Samples.pages[2], layout: Samples.layout)
    #expect(Samples.pages[2] is PlayerPageContext)
    let good = "{{<layout}}{{$main}}{{#detail}}{{nickname}} {{csrf}}{{/detail}}{{/main}}{{/layout}}"
    #expect(TemplateNames.unknownNames(in: good, root: root) == [])
    let typo = "{{<layout}}{{$main}}{{#detail}}{{nickName}}{{/detail}}{{/main}}{{/layout}}"
    #expect(TemplateNames.unknownNames(in: typo, root: root) == ["nickName"])
    let outside = "{{! matches is inside detail }}{{#matches}}{{mode}}{{/matches}}{{{wins}}}"
    #expect(TemplateNames.unknownNames(in: outside, root: root) == ["matches", "mode", "wins"])
    let layout = "{{#signedIn}}{{administratorId}}{{/signedIn}}{{^message}}{{hint}}{{/message}}"
    #expect(TemplateNames.unknownNames(in: layout, root: root) == ["administratorId", "hint"])
  }

  @Test("no page's context holds a name of the layout's, which it would hide")
  func contexts_doNotHideLayout() {
    let layoutNames = Set(Mirror(reflecting: Samples.layout).children.compactMap(\.label))
    for page in Samples.pages {
      let names = Set(Mirror(reflecting: page).children.compactMap(\.label))
      #expect(names.isDisjoint(with: layoutNames), "\(type(of: page))")
    }
  }

  @Test("only the live page's charts are written unescaped; no script, no style attribute")
  func templates_escapeEverything() throws {
    let folder = try ConsoleResources.locate()
    for template in PageTemplate.allCases {
      var text = try String(
        contentsOfFile: "\(folder)/Templates/\(template.fileName)", encoding: .utf8)
      if template == .live {
        // The charts are markup that LineChart builds and escapes itself.
        text = text.replacing("{{{rateChart}}}", with: "").replacing("{{{latencyChart}}}", with: "")
      }
      #expect(!text.contains("{{{"), "\(template)")
      #expect(!text.contains("{{&"), "\(template)")
      #expect(!text.contains("<script"), "\(template)")
      #expect(!text.contains("style="), "\(template)")
      #expect(!text.contains(" on"), "\(template)")
    }
  }

  @Test("pages render as they did from the templates in Swift literals")
  func pages_renderAsBefore() async throws {
    let renderer = PageRenderer(resources: try await ConsoleResources.load(), logger: quietLogger)
    let player = renderer.page(
      PlayerPageContext(
        detail: PlayerPages.detail(
          of: Samples.detail, nowUnixMs: Samples.now,
          drafts: .init(reason: "r<", until: "2025-01-01T00:00", note: "n&"))),
      title: "Player Bo", session: Samples.session, message: Samples.message)
    #expect(try await text(of: player) == Self.playerPage)

    let pdf = Samples.verification
    let verification = renderer.page(
      VerificationPageContext(
        request: VerificationPages.request(
          of: pdf, shown: VerificationPages.documentType(pdf.contentType), nowUnixMs: Samples.now,
          noteDraft: "dr<aft")),
      title: "Verification request 55", session: Samples.session, message: .done("ok"))
    #expect(try await text(of: verification) == Self.verificationPage)

    let audit = renderer.page(
      AuditPageContext(
        hasEntries: true,
        entries: Samples.audit.map {
          AuditPageContext.Entry(
            id: $0.id, at: UTCTime.format(unixMs: $0.atUnixMs),
            administratorID: $0.administratorID, action: $0.action, playerID: $0.playerID,
            note: $0.note)
        },
        paged: true, older: 8),
      title: "Audit log", session: Samples.session)
    #expect(try await text(of: audit) == Self.auditPage)
  }

  // MARK: - Helpers

  private var quietLogger: Logger {
    var logger = Logger(label: "console-test")
    logger.logLevel = .critical
    return logger
  }

  /// A copy of the built resource folder in a new temporary folder.
  private func copyOfResources() throws -> String {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("console-resources-\(UInt64.random(in: 0...UInt64.max))").path
    try FileManager.default.copyItem(atPath: try ConsoleResources.locate(), toPath: folder)
    return folder
  }

  /// The response's body as text.
  private func text(of response: Response) async throws -> String {
    let sink = BodySink()
    try await response.body.write(BodyCollector(sink: sink))
    return sink.buffer.getString(at: 0, length: sink.buffer.readableBytes) ?? ""
  }

  /// The player page of `Samples.detail`, as the Swift-literal templates rendered it.
  static let playerPage = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">

    <title>Player Bo · BadmintonBuddy console</title>
    <link rel="stylesheet" href="/console.css">
    </head>
    <body>
    <header>
    <span class="brand">BadmintonBuddy console</span>
    <nav>
    <a id="nav-players" href="/players">Players</a>
    <a id="nav-verifications" href="/verifications">Verifications</a>
    <a id="nav-live" href="/live">Live</a>
    <a id="nav-audit" href="/audit">Audit log</a>
    </nav>
    <span id="administrator" class="who">Ada &lt;admin&gt; &amp; co (#7)</span>
    <form id="sign-out" method="post" action="/sign-out">
    <input type="hidden" name="csrf" value="cs&quot;rf&amp;1">
    <button type="submit">Sign out</button>
    </form>
    </header>
    <main>
    <h1>Player Bo</h1>
    <div id="message" class="message error" role="status">
    <p>Bad &lt;input&gt; <code class="reason">INVALID_ARGUMENT</code></p>
    <ul id="violations">
    <li><code>reason</code>: Too &quot;long&quot; <code class="reason">TOO_LONG</code></li>
    <li><code>until</code>: Bad time <code class="reason">INVALID_TIME</code></li>
    </ul>
    </div>
    <section id="profile">
    <h2>Profile</h2>
    <dl>
    <dt>Id</dt><dd id="player-id">3</dd>
    <dt>Nickname</dt><dd id="nickname">Bo &lt;b&gt;</dd>
    <dt>Phone</dt><dd id="phone">+86 1</dd>
    <dt>Joined</dt><dd id="joined">2020-09-13 12:26 UTC</dd>
    <dt>Locale</dt><dd id="locale">zh-CN</dd>
    </dl>
    </section>
    <section id="levels">
    <h2>Levels</h2>
    <dl>
    <dt>Self</dt><dd id="self-level">4</dd>
    <dt>Calculated</dt><dd id="calculated-level">4.3</dd>
    <dt>Verified max</dt><dd id="verified-max-level">7</dd>
    </dl>
    </section>
    <section id="reputation">
    <h2>Reputation</h2>
    <dl>
    <dt>Games played</dt><dd id="games-played">12</dd>
    <dt>Wins</dt><dd id="wins">5</dd>
    <dt>Punctuality</dt><dd id="punctuality">97.5%</dd>
    <dt>Character rating</dt><dd id="character-rating">4.4</dd>
    <dt>Skill accuracy</dt><dd id="skill-accuracy">0.8</dd>
    <dt>Evaluations</dt><dd id="evaluation-count">9</dd>
    </dl>
    </section>
    <section id="matches">
    <h2>Recent matches</h2>
    <table id="recent-matches">
    <thead><tr><th>Id</th><th>Starts (UTC)</th><th>Mode</th><th>State</th></tr></thead>
    <tbody>
    <tr><td>100</td><td>2022-04-15 05:20 UTC</td><td>singles</td><td>open</td></tr>
    <tr><td>101</td><td>2022-04-15 05:30 UTC</td><td>doubles &lt;x&gt;</td><td>finished</td></tr>
    </tbody>
    </table>

    </section>
    <section id="safety">
    <h2>Blocks and sessions</h2>
    <dl>
    <dt>Blocking</dt><dd id="blocking">1</dd>
    <dt>Blocked by</dt><dd id="blocked-by">2</dd>
    <dt>Open sessions</dt><dd id="open-sessions">3</dd>
    </dl>
    <form id="end-sessions" method="post" action="/players/3/end-sessions">
    <input type="hidden" name="csrf" value="cs&quot;rf&amp;1">
    <button id="end-sessions-submit" type="submit">End all sessions</button>
    </form>
    </section>
    <section id="suspension-section">
    <h2>Suspension</h2>
    <p id="suspension">Suspended until 2030-03-17 17:46 UTC: Rude &amp; &lt;loud&gt;</p>
    <p id="suspended-by">By administrator #7 at 2023-07-22 04:26 UTC.</p>
    <form id="suspend" method="post" action="/players/3/suspend">
    <input type="hidden" name="csrf" value="cs&quot;rf&amp;1">
    <p><label for="reason">Reason</label>
    <textarea id="reason" name="reason" maxlength="500" required>r&lt;</textarea></p>
    <p><label for="until">Until (UTC)</label>
    <input id="until" name="until" type="datetime-local" value="2025-01-01T00:00">
    <label for="for">or for</label>
    <select id="for" name="for">
    <option value="">—</option>
    <option value="1d">1 day</option>
    <option value="7d">7 days</option>
    <option value="30d">30 days</option>
    <option value="365d">365 days</option>
    </select></p>
    <p><button id="suspend-submit" type="submit">Suspend</button></p>
    </form>
    <form id="lift" method="post" action="/players/3/lift">
    <input type="hidden" name="csrf" value="cs&quot;rf&amp;1">
    <p><label for="note">Note</label>
    <input id="note" name="note" type="text" maxlength="500" value="n&amp;"></p>
    <p><button id="lift-submit" type="submit">Lift suspension</button></p>
    </form>
    </section>

    </main>
    </body>
    </html>

    """#

  /// The approved request with a PDF certificate, as the Swift-literal templates rendered it.
  static let verificationPage = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">

    <title>Verification request 55 · BadmintonBuddy console</title>
    <link rel="stylesheet" href="/console.css">
    </head>
    <body>
    <header>
    <span class="brand">BadmintonBuddy console</span>
    <nav>
    <a id="nav-players" href="/players">Players</a>
    <a id="nav-verifications" href="/verifications">Verifications</a>
    <a id="nav-live" href="/live">Live</a>
    <a id="nav-audit" href="/audit">Audit log</a>
    </nav>
    <span id="administrator" class="who">Ada &lt;admin&gt; &amp; co (#7)</span>
    <form id="sign-out" method="post" action="/sign-out">
    <input type="hidden" name="csrf" value="cs&quot;rf&amp;1">
    <button type="submit">Sign out</button>
    </form>
    </header>
    <main>
    <h1>Verification request 55</h1>
    <div id="message" class="message done" role="status">
    <p>ok</p>
    </div>
    <section id="facts">
    <dl>
    <dt>Id</dt><dd id="verification-id">55</dd>
    <dt>Player</dt><dd id="player"><a href="/players/3">Bo &lt;b&gt;</a> (#3)</dd>
    <dt>Level asked</dt><dd id="level-asked">8</dd>
    <dt>Championship</dt><dd id="kind">regional championship</dd>
    <dt>Submitted</dt><dd id="submitted">2023-11-03 08:26 UTC</dd>
    <dt>State</dt><dd id="state">Approved</dd>

    <dt>Reviewed by</dt><dd id="reviewer"><a href="/players/7">#7</a></dd>
    <dt>Reviewed</dt><dd id="reviewed-at">2023-11-09 03:20 UTC</dd>
    <dt>Note</dt><dd id="review-note">Looks &lt;fine&gt;</dd>
    <dt>Certificate</dt><dd id="document">PDF, 239.3 KiB</dd>
    </dl>
    </section>
    <section id="certificate-section">
    <h2>Certificate</h2>

    <object id="certificate" class="certificate" data="/verifications/55/document" type="application/pdf">
    <p id="certificate-fallback">This browser does not show the PDF here: <a href="/verifications/55/document">open the certificate</a>.</p>
    </object>

    <p><a id="open-certificate" href="/verifications/55/document">Open the certificate by itself</a></p>
    </section>
    <p><a id="back" href="/verifications">Back to Verifications</a></p>

    </main>
    </body>
    </html>

    """#

  /// An older page of the audit log, as the Swift-literal templates rendered it.
  static let auditPage = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">

    <title>Audit log · BadmintonBuddy console</title>
    <link rel="stylesheet" href="/console.css">
    </head>
    <body>
    <header>
    <span class="brand">BadmintonBuddy console</span>
    <nav>
    <a id="nav-players" href="/players">Players</a>
    <a id="nav-verifications" href="/verifications">Verifications</a>
    <a id="nav-live" href="/live">Live</a>
    <a id="nav-audit" href="/audit">Audit log</a>
    </nav>
    <span id="administrator" class="who">Ada &lt;admin&gt; &amp; co (#7)</span>
    <form id="sign-out" method="post" action="/sign-out">
    <input type="hidden" name="csrf" value="cs&quot;rf&amp;1">
    <button type="submit">Sign out</button>
    </form>
    </header>
    <main>
    <h1>Audit log</h1>
    <table id="audit">
    <thead><tr><th>Id</th><th>Time (UTC)</th><th>Administrator</th><th>Action</th><th>Player</th><th>Note</th></tr></thead>
    <tbody>
    <tr><td>9</td><td>2023-11-14 22:13 UTC</td><td>7</td><td>suspend</td><td><a href="/players/3">3</a></td><td>n &lt;1&gt;</td></tr>
    <tr><td>8</td><td>2023-11-14 22:13 UTC</td><td>7</td><td>sign-in</td><td></td><td></td></tr>
    </tbody>
    </table>

    <p class="paging">
    <a id="newest" href="/audit">Newest</a>
    <a id="older" href="/audit?before=8">Older</a>
    </p>

    </main>
    </body>
    </html>

    """#
}

/// Where a response's body is collected; only the test that made it reads it, after the write.
private final class BodySink: @unchecked Sendable {
  var buffer = ByteBuffer()
}

/// Writes a response's body into a `BodySink`.
private struct BodyCollector: ResponseBodyWriter {
  let sink: BodySink

  mutating func write(_ buffer: ByteBuffer) async throws {
    var buffer = buffer
    sink.buffer.writeBuffer(&buffer)
  }

  consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// The names a template reads, checked against the values it is rendered with as mustache looks
/// them up: from the innermost section's value outwards to the root.
enum TemplateNames {
  /// The root a page's template is rendered with.
  static func root(_ page: some PageContext, layout: LayoutContext) -> any MustacheParent {
    PageRenderContext(layout: layout, page: page)
  }

  /// The names in `template` that are not found where they are read, in order. Tags: `{{name}}`,
  /// `{{{name}}}`, `{{&name}}`, `{{#name}}`, `{{^name}}` are checked; `{{<parent}}`, `{{$block}}`,
  /// `{{/name}}` and `{{!comment}}` are not names.
  static func unknownNames(in template: String, root: Any) -> [String] {
    // The values of the open sections, innermost last; nil for a section that pushes nothing
    // (an inverted one, a Bool, a parent or a block).
    var sections: [(name: String, value: Any?)] = []
    var unknown: [String] = []
    let tag = #/\{\{(\{?)\s*([#^/!<>$&=]?)\s*(.*?)\s*\}\}\}?/#
    for match in template.matches(of: tag) {
      let kind = String(match.output.2)
      let name = String(match.output.3)
      switch kind {
      case "!":
        continue
      case "<", "$":
        sections.append((name, nil))
      case "/":
        if sections.last?.name == name { sections.removeLast() } else { unknown.append("/" + name) }
      case "#", "^":
        let value = lookUp(name, in: [root] + sections.compactMap(\.value))
        if value == nil { unknown.append(name) }
        sections.append((name, kind == "#" ? value.flatMap(sectionValue) : nil))
      case "", "&":
        if lookUp(name, in: [root] + sections.compactMap(\.value)) == nil { unknown.append(name) }
      default:
        unknown.append(kind + name)
      }
    }
    if !sections.isEmpty { unknown.append(contentsOf: sections.map { "unclosed " + $0.name }) }
    return unknown
  }

  /// `name` (dotted names walk down) in the innermost of `scopes` that has it.
  private static func lookUp(_ name: String, in scopes: [Any]) -> Any? {
    if name == "." { return scopes.last }
    let parts = name.split(separator: ".").map(String.init)
    for scope in scopes.reversed() {
      guard var value = child(parts[0], of: scope) else { continue }
      for part in parts.dropFirst() {
        guard let next = child(part, of: value) else { return nil }
        value = next
      }
      return value
    }
    return nil
  }

  private static func child(_ name: String, of value: Any) -> Any? {
    if let parent = value as? any MustacheParent { return parent.child(named: name) }
    return PageRenderContext<ProblemPageContext>.property(name, of: value)
  }

  /// What a section over `value` pushes: a list's first element, nothing for a Bool.
  private static func sectionValue(_ value: Any) -> Any? {
    if value is Bool { return nil }
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .collection { return mirror.children.first?.value }
    return value
  }

  /// The paths in `value` of optionals that are nil and of lists that are empty.
  static func unfilled(_ value: Any, path: String) -> [String] {
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return [path] }
      return unfilled(wrapped, path: path)
    case .collection:
      guard !mirror.children.isEmpty else { return [path] }
      return mirror.children.enumerated().flatMap { unfilled($1.value, path: "\(path)[\($0)]") }
    case .struct:
      return mirror.children.flatMap { unfilled($0.value, path: path + "." + ($0.label ?? "?")) }
    default:
      return []
    }
  }
}

/// Values for the pages, every optional filled and every list non-empty, with characters that
/// HTML escapes.
enum Samples {
  static let now: Int64 = 1_700_000_000_000

  static let session = ConsoleSession(
    administrator: ConsoleAdministrator(id: 7, nickname: "Ada <admin> & co"),
    csrfToken: "cs\"rf&1")

  static let message = Message(
    kind: .error, text: "Bad <input>", reason: "INVALID_ARGUMENT",
    violations: [
      .init(field: "reason", text: "Too \"long\"", reason: "TOO_LONG"),
      .init(field: "until", text: "Bad time", reason: "INVALID_TIME"),
    ])

  static let layout = LayoutContext(
    title: "Sample", session: session, message: message, refreshSeconds: 5)

  static let player = ConsolePlayer(
    id: 3, nickname: "Bo <b>", phone: "+86 1", selfLevel: 4,
    suspendedUntilUnixMs: 1_700_000_000_000)

  static let detail = ConsolePlayerDetail(
    player: player, joinedAtUnixMs: 1_600_000_000_000, locale: "zh-CN", selfLevel: 4,
    calculatedLevel: 4.25, verifiedMaxLevel: 7, gamesPlayed: 12, wins: 5,
    punctualityPercentage: 97.5, characterRating: 4.44, skillAccuracy: 0.8, evaluationCount: 9,
    recentMatches: [
      .init(id: 100, startUnixMs: 1_650_000_000_000, mode: "singles", state: "open"),
      .init(id: 101, startUnixMs: 1_650_000_600_000, mode: "doubles <x>", state: "finished"),
    ],
    blocking: 1, blockedBy: 2, openSessions: 3,
    suspension: ConsoleSuspension(
      untilUnixMs: 1_900_000_000_000, reason: "Rude & <loud>", administratorID: 7,
      atUnixMs: 1_690_000_000_000))

  static let verification = ConsoleVerification(
    id: 55, playerID: 3, nickname: "Bo <b>", levelAsked: 8, kind: "regional championship",
    state: "approved", submittedAtUnixMs: 1_699_000_000_000, contentType: "application/pdf",
    documentSize: 245_000, reviewNote: "Looks <fine>", reviewerID: 7,
    reviewedAtUnixMs: 1_699_500_000_000)

  static let audit = [
    ConsoleAuditEntry(
      id: 9, atUnixMs: now, administratorID: 7, action: "suspend", playerID: 3, note: "n <1>"),
    ConsoleAuditEntry(
      id: 8, atUnixMs: now - 1000, administratorID: 7, action: "sign-in", playerID: nil, note: ""),
  ]

  static let live = ConsoleLiveFigures(
    intervalSeconds: 5, endUnixMs: now,
    methods: [
      .init(
        method: "/badminton.v1.Players/Login", calls: 12,
        points: [
          .init(callsPerSecond: 0.2, p50Micros: 800, p99Micros: 2500),
          .init(callsPerSecond: 0.6, p50Micros: 1200, p99Micros: 90_000),
        ])
    ],
    openConnections: 3, openStreams: 1, matchBoardRequests: 2, nearbyIndexPlayers: 5,
    commitLatency: .init(count: 4, p50Micros: 300, p99Micros: 1500))

  /// One fully filled context of every page. A request is either pending (it waits) or
  /// reviewed, never both; the sample holds both to check both parts of the template.
  static let pages: [any PageContext] = [
    SignInPageContext(signInToken: "tok<&>"),
    PlayersPageContext(
      query: "B\"o", searched: true, hasResults: true,
      results: [
        .init(id: 3, nickname: "Bo", phone: "+86 1", selfLevel: 4, suspendedUntil: "later")
      ]),
    PlayerPageContext(
      detail: PlayerPages.detail(of: detail, nowUnixMs: now, drafts: .init(reason: "r"))),
    VerificationsPageContext(
      hasRequests: true,
      requests: [
        .init(
          id: 55, playerID: 3, nickname: "Bo", levelAsked: 8, kind: "regional championship",
          submitted: "then", waiting: "3 min")
      ]),
    {
      var request = VerificationPages.request(
        of: verification, shown: .pdf, nowUnixMs: now, noteDraft: "")
      request.waiting = "3 min"
      return VerificationPageContext(request: request)
    }(),
    LivePages.page(of: live),
    AuditPageContext(
      hasEntries: true,
      entries: [
        .init(id: 9, at: "now", administratorID: 7, action: "suspend", playerID: 3, note: "n")
      ],
      paged: true, older: 8),
    ProblemPageContext(link: .init(href: "/players", text: "Back to Players")),
  ]
}
