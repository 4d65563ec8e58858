import HTTPTypes
import Hummingbird
import Mustache

/// Renders the console's pages from `Templates`, compiled once.
struct PageRenderer: Sendable {
  private let library: MustacheLibrary

  /// A renderer with every template compiled.
  init() throws {
    var library = MustacheLibrary()
    for (name, text) in Templates.all {
      try library.register(text, named: name)
    }
    self.library = library
  }

  /// The page `template` titled `title` as a response: the layout's values (the nav and the
  /// sign-out form's token when signed in, the message) and the page's own `values`.
  func page(
    _ template: String, title: String, session: ConsoleSession?, status: HTTPResponse.Status = .ok,
    message: Message? = nil, values: [String: Any] = [:], headers: HTTPFields = [:]
  ) -> Response {
    var object = values
    object["title"] = title
    if let session {
      object["signedIn"] = true
      object["csrf"] = session.csrfToken
      object["administratorNickname"] = session.administrator.nickname
      object["administratorID"] = String(session.administrator.id)
    }
    if let message {
      object["message"] = message.templateValue
    }
    let html = library.render(object, withTemplate: template) ?? ""
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
    var values: [String: Any] = [:]
    if let link {
      values["link"] = ["href": link.href, "text": link.text]
    }
    return page(
      "problem", title: title, session: session, status: status, message: message,
      values: values, headers: headers)
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
}
