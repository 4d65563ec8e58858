import Hummingbird
import Logging

/// Finds the request's session and lets the request through only with one: without a valid
/// session (none, expired, or of an administrator who may no longer administer, which ends it)
/// only the sign-in page and the stylesheet are served; every other address, known or not, is
/// sent to `/sign-in` with 303, and a stale session cookie is cleared.
struct SignInGateMiddleware: RouterMiddleware {
  typealias Context = ConsoleRequestContext

  /// The paths served without a session.
  static let publicPaths: Set<String> = ["/sign-in", "/console.css"]

  let core: ConsoleCore

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var context = context
    let presentedID = request.cookies[ConsoleCookies.sessionName]?.value
    if let presentedID, !presentedID.isEmpty {
      context.sessionID = presentedID
      context.session = core.sessions.touch(id: presentedID, nowUnixMs: core.backend.nowUnixMs())
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
    guard context.session != nil || Self.publicPaths.contains(request.uri.path) else {
      let redirect = Response.seeOther(to: "/sign-in")
      return presentedID == nil
        ? redirect : redirect.setting(core.cookies.cleared(ConsoleCookies.sessionName))
    }
    return try await next(request, context)
  }
}
