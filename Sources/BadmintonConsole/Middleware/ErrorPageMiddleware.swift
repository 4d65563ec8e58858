import Hummingbird

/// Turns an `HTTPError` that a page or a later middleware threw (a 404 for an address no page
/// has, another spelling of a page's address, a form the page cannot read) into a page that
/// says so, with the nav when signed in.
struct ErrorPageMiddleware: RouterMiddleware {
  typealias Context = ConsoleRequestContext

  let core: ConsoleCore

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as HTTPError {
      let notFound = error.status == .notFound
      return core.renderer.problem(
        title: notFound ? "Not found" : error.status.reasonPhrase, session: context.session,
        status: error.status,
        message: .error(
          notFound
            ? "There is no page at this address." : (error.body ?? error.status.reasonPhrase),
          reason: notFound ? "NOT_FOUND" : nil),
        link: context.session == nil ? nil : ("/players", "Back to Players"))
    }
  }
}
