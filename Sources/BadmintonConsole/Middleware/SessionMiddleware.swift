import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Lets a request through only when it may pass: without a valid session (none, expired, or of
/// an administrator who may no longer administer, which ends it), only the sign-in page and the
/// stylesheet are served (anything else is redirected to /sign-in with 303); a POST must
/// be a bounded `application/x-www-form-urlencoded` form carrying its token (the session's, or
/// the sign-in form's), or it is refused before any page sees it.
struct SessionMiddleware: RouterMiddleware {
  typealias Context = ConsoleRequestContext

  /// The session cookie's name.
  static let cookieName = "console_session"
  /// The paths served without a session.
  static let publicPaths: Set<String> = ["/sign-in", "/console.css"]

  let core: ConsoleCore

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var context = context
    let now = core.backend.nowUnixMs()
    let presentedID = request.cookies[Self.cookieName]?.value
    if let presentedID, !presentedID.isEmpty {
      context.sessionID = presentedID
      context.session = core.sessions.touch(id: presentedID, nowUnixMs: now)
      // An administrator suspended since they signed in (on any instance) is signed out at
      // their next request, as if the session had expired; lifting the suspension does not
      // bring the session back.
      if let session = context.session,
        !(await core.backend.mayAdminister(session.administrator.id))
      {
        core.sessions.end(id: presentedID)
        context.session = nil
        core.logger.notice(
          "console session ended: the administrator may no longer administer",
          metadata: ["administrator": "\(session.administrator.id)"])
      }
    }
    let path = request.uri.path
    guard context.session != nil || Self.publicPaths.contains(path) else {
      var headers = HTTPFields()
      if presentedID != nil {
        headers.append(
          HTTPField(
            name: .setCookie, value: core.cookie(Self.cookieName, value: "", maxAgeSeconds: 0))
        )
      }
      return .seeOther(to: "/sign-in", headers: headers)
    }
    if request.method == .post {
      switch await readForm(request) {
      case .success(let form): context.form = form
      case .failure(let refusal): return refusal.response(core: core, session: context.session)
      }
      guard tokenIsValid(request: request, context: context, nowUnixMs: now) else {
        return Refusal.csrf(path: path).response(core: core, session: context.session)
      }
    }
    do {
      return try await next(request, context)
    } catch let error as HTTPError {
      let title = error.status == .notFound ? "Not found" : error.status.reasonPhrase
      let text =
        error.status == .notFound
        ? "There is no page at this address." : (error.body ?? error.status.reasonPhrase)
      return core.renderer.problem(
        title: title, session: context.session, status: error.status,
        message: .error(text, reason: error.status == .notFound ? "NOT_FOUND" : nil),
        link: context.session == nil ? nil : ("/players", "Back to Players"))
    }
  }

  /// Why a POST was refused before any page saw it.
  enum Refusal: Error {
    case unsupportedMediaType
    case tooLarge
    case unreadable
    case csrf(path: String)

    func response(core: ConsoleCore, session: ConsoleSession?) -> Response {
      switch self {
      case .unsupportedMediaType:
        core.renderer.problem(
          title: "Form not accepted", session: session, status: .unsupportedMediaType,
          message: .error(
            "Forms must be sent as application/x-www-form-urlencoded.",
            reason: "UNSUPPORTED_MEDIA_TYPE"))
      case .tooLarge:
        core.renderer.problem(
          title: "Form too large", session: session, status: .contentTooLarge,
          message: .error(
            "The form is larger than \(core.maximumBodyBytes / 1024) KiB.", reason: "BODY_TOO_LARGE"
          ))
      case .unreadable:
        core.renderer.problem(
          title: "Form not accepted", session: session, status: .badRequest,
          message: .error("The form could not be read.", reason: "FORM_UNREADABLE"))
      case .csrf(let path):
        core.renderer.problem(
          title: "Form expired", session: session, status: .forbidden,
          message: .error(
            "This form has expired or did not come from the console. Open the page again and "
              + "resubmit it.", reason: "CSRF_INVALID"),
          link: Self.pageOfForm(at: path))
      }
    }

    /// The page whose form posts to `path`, to open again.
    private static func pageOfForm(at path: String) -> (href: String, text: String) {
      if path == "/sign-in" { return ("/sign-in", "Open the sign-in page again") }
      let parts = path.split(separator: "/")
      if parts.count == 3, parts[0] == "players", let id = Int64(parts[1]), id > 0 {
        return ("/players/\(id)", "Open the player's page again")
      }
      if parts.count == 3, parts[0] == "verifications", let id = Int64(parts[1]), id > 0 {
        return ("/verifications/\(id)", "Open the request again")
      }
      return ("/players", "Open Players again")
    }
  }

  /// The POST's form: only `application/x-www-form-urlencoded`, at most the console's body
  /// limit.
  private func readForm(_ request: Request) async -> Result<FormFields, Refusal> {
    let mediaType = request.headers[.contentType]?
      .split(separator: ";", maxSplits: 1).first?
      .trimmedOfWhitespace.lowercased()
    guard mediaType == "application/x-www-form-urlencoded" else {
      return .failure(.unsupportedMediaType)
    }
    if let length = request.headers[.contentLength].flatMap({ Int($0) }),
      length > core.maximumBodyBytes
    {
      return .failure(.tooLarge)
    }
    let body: ByteBuffer
    do {
      body = try await request.body.collect(upTo: core.maximumBodyBytes)
    } catch {
      return .failure(.tooLarge)
    }
    guard let form = FormFields(encoded: String(buffer: body)) else {
      return .failure(.unreadable)
    }
    return .success(form)
  }

  /// Whether the form carries the token it must: the sign-in form's signed token, or the
  /// session's token on every other form.
  private func tokenIsValid(request: Request, context: Context, nowUnixMs: Int64) -> Bool {
    if request.uri.path == "/sign-in" {
      return core.signInGuard.accepts(
        cookie: request.cookies[SignInGuard.cookieName]?.value, formToken: context.form["csrf"],
        nowUnixMs: nowUnixMs)
    }
    guard let session = context.session, let token = context.form["csrf"] else { return false }
    return Secrets.constantTimeEquals(session.csrfToken, token)
  }
}
