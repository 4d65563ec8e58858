import HTTPTypes
import Hummingbird
import Logging
import Mustache

/// Renders the console's pages from the templates in `ConsoleResources`, loaded and compiled
/// once when the console starts.
struct PageRenderer: Sendable {
  /// The templates, one for every `PageTemplate`.
  let library: MustacheLibrary
  /// The stylesheet, served at `/console.css`.
  let stylesheet: String
  private let logger: Logger

  /// A renderer over `resources`, whose library holds every `PageTemplate` (`load` checks it).
  init(resources: ConsoleResources, logger: Logger) {
    self.library = resources.library
    self.stylesheet = resources.stylesheet
    self.logger = logger
  }

  /// A renderer over the templates and stylesheet found beside the executable (or in the build
  /// folder); throws, naming the paths, when they are missing or broken.
  static func load(logger: Logger) async throws -> PageRenderer {
    PageRenderer(resources: try await ConsoleResources.load(), logger: logger)
  }

  /// The page `page` titled `title` as a response: the layout's values (the nav and the
  /// sign-out form's token when signed in, the message, the reload) and the page's own. A
  /// template missing from the library is a programming error: a 500 page and an error log,
  /// never an empty page.
  func page<Page: PageContext>(
    _ page: Page, title: String, session: ConsoleSession?, status: HTTPResponse.Status = .ok,
    message: Message? = nil, refreshSeconds: Int? = nil, headers: HTTPFields = [:]
  ) -> Response {
    let context = PageRenderContext(
      layout: LayoutContext(
        title: title, session: session, message: message, refreshSeconds: refreshSeconds),
      page: page)
    guard let html = library.render(context, withTemplate: Page.template.rawValue) else {
      logger.error(
        "console template missing", metadata: ["template": "\(Page.template.fileName)"])
      return templateMissing(session: session)
    }
    var headers = headers
    headers[.contentType] = "text/html; charset=utf-8"
    return Response(
      status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
  }

  /// A page that says what went wrong, with a link onwards.
  func problem(
    title: String, session: ConsoleSession?, status: HTTPResponse.Status, message: Message,
    link: (href: String, text: String)? = nil, headers: HTTPFields = [:]
  ) -> Response {
    page(
      ProblemPageContext(link: link.map { ProblemPageContext.Link(href: $0.href, text: $0.text) }),
      title: title, session: session, status: status, message: message, headers: headers)
  }

  /// The 500 answer to a page whose template is missing: the problem page, or when that one is
  /// missing too, a fixed one.
  private func templateMissing(session: ConsoleSession?) -> Response {
    let title = "Something went wrong"
    let message = Message.error("The console could not show this page.", reason: "INTERNAL")
    if library.getTemplate(named: ProblemPageContext.template.rawValue) != nil {
      return problem(title: title, session: session, status: .internalServerError, message: message)
    }
    let html = """
      <!DOCTYPE html>
      <html lang="en">
      <head><meta charset="utf-8"><title>\(title) · BadmintonBuddy console</title></head>
      <body><main><h1>\(title)</h1>
      <div id="message" class="message error" role="status"><p>\(message.text) \
      <code class="reason">INTERNAL</code></p></div></main></body>
      </html>

      """
    return Response(
      status: .internalServerError, headers: [.contentType: "text/html; charset=utf-8"],
      body: .init(byteBuffer: ByteBuffer(string: html)))
  }
}

/// Numbers as the pages show them.
enum Figures {
  /// `value` with one decimal, e.g. `4.0`.
  static func oneDecimal(_ value: Double) -> String {
    guard value.isFinite else { return "—" }
    let tenths = (value * 10).rounded()
    let whole = Int64(tenths / 10)
    let fraction = Int64(abs(tenths.truncatingRemainder(dividingBy: 10)))
    let sign = tenths < 0 && whole == 0 ? "-" : ""
    return "\(sign)\(whole).\(fraction)"
  }

  /// `value` with `places` decimals (0 to 6), e.g. `fixed(2.346, places: 2)` is `2.35`.
  static func fixed(_ value: Double, places: Int) -> String {
    guard value.isFinite else { return "—" }
    let places = min(max(places, 0), 6)
    var scale: Int64 = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = (abs(value) * Double(scale)).rounded()
    guard scaled < 9e15 else { return value < 0 ? "-∞" : "∞" }
    let units = Int64(scaled)
    let sign = value < 0 && units != 0 ? "-" : ""
    let whole = String(units / scale)
    guard places > 0 else { return sign + whole }
    let fraction = String(units % scale)
    return sign + whole + "." + String(repeating: "0", count: places - fraction.count) + fraction
  }

  /// A rate of calls: two decimals below 10 per second, one above, e.g. `0.25/s`, `12.5/s`.
  static func rate(_ callsPerSecond: Double) -> String {
    fixed(callsPerSecond, places: callsPerSecond < 10 ? 2 : 1) + "/s"
  }

  /// A latency given in microseconds, in the unit that suits it: `850 µs`, `1.2 ms`, `2.35 s`.
  static func latency(micros: Double) -> String {
    if micros < 999.5 { return fixed(micros, places: 0) + " µs" }
    if micros < 999_950 { return fixed(micros / 1000, places: 1) + " ms" }
    return fixed(micros / 1_000_000, places: 2) + " s"
  }

  /// A span of time in whole minutes, hours and days, e.g. `3 h 12 min`, `2 d 5 h`, `4 min`;
  /// under a minute is `under 1 min`.
  static func duration(ms: Int64) -> String {
    let minutes = max(0, ms) / 60_000
    if minutes == 0 { return "under 1 min" }
    let days = minutes / 1440
    let hours = minutes / 60 % 24
    if days > 0 { return hours > 0 ? "\(days) d \(hours) h" : "\(days) d" }
    if hours > 0 { return "\(hours) h \(minutes % 60) min" }
    return "\(minutes) min"
  }

  /// A span of seconds as the charts label it: `5 min` when it is whole minutes, else `45 s`.
  static func span(seconds: Int) -> String {
    seconds >= 60 && seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
  }

  /// A size in bytes, e.g. `812 bytes`, `240.5 KiB`, `4.2 MiB`.
  static func size(bytes: Int) -> String {
    if bytes < 1024 { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
    if bytes < 1024 * 1024 { return fixed(Double(bytes) / 1024, places: 1) + " KiB" }
    return fixed(Double(bytes) / (1024 * 1024), places: 1) + " MiB"
  }
}
