import HTTPTypes
import Hummingbird
import Logging

/// The outermost middleware: every response, errors included, gets the console's security
/// headers; an error no page handled becomes a plain 500 page. A route that answers with a
/// policy of its own (a verification's certificate, and the page that shows a PDF certificate)
/// keeps it.
struct ResponseHeadersMiddleware: RouterMiddleware {
  typealias Context = ConsoleRequestContext

  let renderer: PageRenderer
  let logger: Logger
  /// Served over TLS: browsers are told to come back over HTTPS only (HSTS).
  let tls: Bool

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var response: Response
    do {
      response = try await next(request, context)
    } catch let error as HTTPError {
      response = renderer.problem(
        title: error.status.reasonPhrase, session: nil, status: error.status,
        message: .error(error.body ?? error.status.reasonPhrase))
    } catch {
      logger.error("console request failed", metadata: ["error": "\(error)"])
      response = renderer.problem(
        title: "Something went wrong", session: nil, status: .internalServerError,
        message: .error("The console could not complete the request.", reason: "INTERNAL"))
    }
    SecurityHeaders.add(to: &response.headers, tls: tls)
    return response
  }
}

/// The headers every console answer carries, errors included.
enum SecurityHeaders {
  /// The Content-Security-Policy of every response: nothing but the console's own stylesheet,
  /// images and forms; no scripts, no framing.
  static let contentSecurityPolicy =
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    + "frame-ancestors 'none'; base-uri 'none'"

  /// The policy of a page that shows a PDF certificate: the console's, and the certificate
  /// (`/verifications/{id}/document`, from the console itself) in an `<object>`. Chromium needs
  /// both: `object-src` for the object's data and `frame-src` for the frame its PDF viewer is
  /// drawn in. Images need nothing more than `img-src 'self'`.
  static let contentSecurityPolicyShowingPDF =
    contentSecurityPolicy + "; object-src 'self'; frame-src 'self'"

  /// Gives `headers` the console's security headers; a policy and a framing rule of their own
  /// (a certificate's, a page showing a PDF) are kept. `tls`: browsers are told to come back
  /// over HTTPS only (HSTS).
  static func add(to headers: inout HTTPFields, tls: Bool) {
    if headers[.contentSecurityPolicy] == nil {
      headers[.contentSecurityPolicy] = contentSecurityPolicy
    }
    if headers[.xFrameOptions] == nil {
      headers[.xFrameOptions] = "DENY"
    }
    headers[.xContentTypeOptions] = "nosniff"
    headers[.referrerPolicy] = "no-referrer"
    headers[.cacheControl] = "no-store"
    if tls { headers[.strictTransportSecurity] = "max-age=31536000" }
  }
}

extension HTTPField.Name {
  /// `Strict-Transport-Security`.
  static var strictTransportSecurity: Self { Self("Strict-Transport-Security")! }
  /// `Referrer-Policy`.
  static var referrerPolicy: Self { Self("Referrer-Policy")! }
  /// `X-Frame-Options`, for browsers that predate `frame-ancestors`.
  static var xFrameOptions: Self { Self("X-Frame-Options")! }
}
