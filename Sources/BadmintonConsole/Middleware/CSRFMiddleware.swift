import Hummingbird

/// Refuses a POST that does not carry its form's token, before the page does anything: the
/// sign-in form's signed token (`SignInGuard`), or the session's own token on every other form.
/// Tokens are compared in constant time. A form that cannot be decoded at all is refused here
/// too (400).
struct CSRFMiddleware: RouterMiddleware {
  typealias Context = ConsoleRequestContext

  let core: ConsoleCore

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard request.method == .post else { return try await next(request, context) }
    let token: String?
    do {
      token = try TokenForm.decode(context.formBody ?? "").csrf
    } catch {
      return FormRefusal.unreadable.response(core: core, session: context.session)
    }
    let path = request.uri.path
    let valid: Bool
    if path == "/sign-in" {
      valid = core.signInGuard.accepts(
        cookie: request.cookies[ConsoleCookies.signInName]?.value, formToken: token,
        nowUnixMs: core.backend.nowUnixMs())
    } else if let session = context.session, let token {
      valid = Secrets.constantTimeEquals(session.csrfToken, token)
    } else {
      valid = false
    }
    guard valid else {
      return FormRefusal.csrf(path: path).response(core: core, session: context.session)
    }
    return try await next(request, context)
  }
}
