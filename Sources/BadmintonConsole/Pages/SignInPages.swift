import BadmintonDomain
import HTTPTypes
import Hummingbird
import Logging

/// Sign-in and sign-out.
struct SignInPages: Sendable {
  /// What a failed sign-in says, whatever failed: the console does not tell an unknown phone,
  /// a wrong password and a player who is not an administrator apart.
  static let wrongCredentials = "Wrong phone or password, or not an administrator's account."

  let core: ConsoleCore

  func addRoutes(to router: Router<ConsoleRequestContext>) {
    router.get("/sign-in") { request, context in
      try await show(request, context)
    }
    router.post("/sign-in") { request, context in
      try await signIn(request, context)
    }
    router.post("/sign-out") { request, context in
      signOut(context)
    }
  }

  /// The sign-in form, with a sign-in cookie that is still valid or a new one.
  private func show(_ request: Request, _ context: ConsoleRequestContext) async throws -> Response {
    if context.session != nil { return .seeOther(to: "/players") }
    return form(request, status: .ok, message: nil)
  }

  private func signIn(_ request: Request, _ context: ConsoleRequestContext) async throws
    -> Response
  {
    let fields = try context.form(SignInForm.self)
    let phone = fields.trimmedPhone
    let password = fields.password ?? ""
    let violations = fields.violations
    if !violations.isEmpty {
      return form(request, status: .badRequest, message: FieldCheck.message(violations))
    }
    let administrator: ConsoleAdministrator?
    do {
      administrator = try await core.backend.signIn(
        phone: phone, password: password, address: context.remoteAddress)
    } catch let error as DomainError {
      if let retryAfterMs = error.retryAfterMs {
        let seconds = max(1, (retryAfterMs + 999) / 1000)
        var message = Message(error)
        message.text =
          "Too many sign-in attempts. Try again in \(seconds) second\(seconds == 1 ? "" : "s")."
        return form(
          request, status: .tooManyRequests, message: message,
          headers: [.retryAfter: String(seconds)])
      }
      return form(request, status: error.pageStatus, message: Message(error))
    }
    guard let administrator else {
      return form(
        request, status: .unauthorized, message: .error(Self.wrongCredentials))
    }
    // A new id at every sign-in: an id set before it (by anyone) is never the signed-in one.
    if let previous = context.sessionID { core.sessions.end(id: previous) }
    let (id, _) = core.sessions.start(for: administrator, nowUnixMs: core.backend.nowUnixMs())
    core.logger.info(
      "console sign-in", metadata: ["administrator": "\(administrator.id)"])
    return Response.seeOther(to: "/players")
      .setting(core.cookies.session(id), core.cookies.cleared(ConsoleCookies.signInName))
  }

  private func signOut(_ context: ConsoleRequestContext) -> Response {
    if let id = context.sessionID { core.sessions.end(id: id) }
    return Response.seeOther(to: "/sign-in")
      .setting(core.cookies.cleared(ConsoleCookies.sessionName))
  }

  /// The sign-in page. The form's token is the HMAC of the sign-in cookie, so a browser that
  /// keeps its cookie gets the same page for the same message.
  private func form(
    _ request: Request, status: HTTPResponse.Status, message: Message?, headers: HTTPFields = [:]
  ) -> Response {
    let now = core.backend.nowUnixMs()
    var token: String?
    var issued: Cookie?
    if let cookie = request.cookies[ConsoleCookies.signInName]?.value {
      token = core.signInGuard.token(forCookie: cookie, nowUnixMs: now)
    }
    if token == nil {
      let cookie = core.signInGuard.issueCookie(nowUnixMs: now)
      token = core.signInGuard.token(forCookie: cookie, nowUnixMs: now)
      issued = core.cookies.signIn(
        cookie, maxAgeSeconds: Int(core.signInGuard.lifetimeMs / 1000))
    }
    let page = core.renderer.page(
      SignInPageContext(signInToken: token ?? ""), title: "Sign in", session: nil,
      status: status, message: message, headers: headers)
    guard let issued else { return page }
    return page.setting(issued)
  }
}
