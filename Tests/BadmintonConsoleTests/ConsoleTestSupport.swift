import BadmintonConsole
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The administrator the test backend knows.
let adminPhone = "+8613800000001"
let adminPassword = "right password"

/// A console over a fresh test backend, run without a socket.
func withConsole<Value: Sendable>(
  configuration: ConsoleConfiguration = ConsoleConfiguration(),
  backend: TestBackend = TestBackend(),
  _ test: @Sendable (any TestClientProtocol, TestBackend) async throws -> Value
) async throws -> Value {
  var logger = Logger(label: "console-test")
  logger.logLevel = .warning
  let server = try await ConsoleServer(
    backend: backend, configuration: configuration, logger: logger)
  return try await server.application().test(.router) { client in
    try await test(client, backend)
  }
}

/// What a browser keeps between requests: its cookies and the token of the forms it was shown.
struct Browser: Sendable {
  var cookies: [String: String] = [:]
  var csrf: String?

  var cookieHeader: HTTPFields {
    guard !cookies.isEmpty else { return [:] }
    return [
      .cookie: cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
        separator: "; ")
    ]
  }

  /// Takes in the response's cookies and its forms' token.
  mutating func take(_ response: TestResponse) {
    for setCookie in response.headers[values: .setCookie] {
      let pair = setCookie.split(separator: ";")[0].split(
        separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(pair[0])
      let value = pair.count > 1 ? String(pair[1]) : ""
      if value.isEmpty || setCookie.contains("Max-Age=0") {
        cookies[name] = nil
      } else {
        cookies[name] = value
      }
    }
    if let token = csrfToken(in: response.text) { csrf = token }
  }

  func get(_ client: any TestClientProtocol, _ uri: String) async throws -> TestResponse {
    try await client.execute(uri: uri, method: .get, headers: cookieHeader)
  }

  /// POSTs `fields` (with the browser's form token unless `csrf` is given) as a form.
  func post(
    _ client: any TestClientProtocol, _ uri: String, _ fields: [(String, String)] = [],
    csrf: String? = nil, withToken: Bool = true
  ) async throws -> TestResponse {
    var all = fields
    if withToken, let token = csrf ?? self.csrf { all.append(("csrf", token)) }
    var headers = cookieHeader
    headers[.contentType] = "application/x-www-form-urlencoded"
    return try await client.execute(
      uri: uri, method: .post, headers: headers, body: ByteBuffer(string: formEncode(all)))
  }
}

/// Signs in as the test administrator; the browser then holds the session cookie and the token.
func signedIn(_ client: any TestClientProtocol) async throws -> Browser {
  var browser = Browser()
  browser.take(try await browser.get(client, "/sign-in"))
  let response = try await browser.post(
    client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)])
  #expect(response.status == .seeOther)
  browser.take(response)
  try #require(browser.cookies["console_session"] != nil)
  browser.take(try await browser.get(client, "/players"))
  return browser
}

/// `fields` as `application/x-www-form-urlencoded`.
func formEncode(_ fields: [(String, String)]) -> String {
  fields.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
}

func percentEncode(_ text: String) -> String {
  var output = ""
  for byte in text.utf8 {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
      UInt8(ascii: "."), UInt8(ascii: "~"):
      output.append(Character(Unicode.Scalar(byte)))
    default:
      let digits = Array("0123456789ABCDEF")
      output += "%\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0f)])"
    }
  }
  return output
}

/// The token in the page's first `csrf` field.
func csrfToken(in html: String) -> String? {
  guard let range = html.range(of: "name=\"csrf\" value=\"") else { return nil }
  let token = html[range.upperBound...].prefix { $0 != "\"" }
  return token.isEmpty ? nil : String(token)
}

/// The text of the element with id `id` (up to its first closing tag).
func element(_ id: String, in html: String) -> String? {
  guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
  guard let close = html[start.upperBound...].firstIndex(of: ">") else { return nil }
  let rest = html[html.index(after: close)...]
  guard let end = rest.range(of: "</") else { return nil }
  return String(rest[..<end.lowerBound])
}

extension TestResponse {
  var text: String { String(buffer: body) }
  var location: String? { headers[.location] }
}

/// The security headers every response carries.
func expectSecurityHeaders(
  _ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(
    response.headers[.contentSecurityPolicy]
      == "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
      + "frame-ancestors 'none'; base-uri 'none'", sourceLocation: sourceLocation)
  #expect(response.headers[.xContentTypeOptions] == "nosniff", sourceLocation: sourceLocation)
  #expect(
    response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer",
    sourceLocation: sourceLocation)
  #expect(response.headers[.cacheControl] == "no-store", sourceLocation: sourceLocation)
}
