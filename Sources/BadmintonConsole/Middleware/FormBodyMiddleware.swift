import Hummingbird
import NIOCore

/// Reads a POST's body before anything else sees it: only `application/x-www-form-urlencoded`
/// (anything else: 415), at most the console's body limit (larger: 413, without reading past
/// the limit). The body is kept in the context for `CSRFMiddleware` and the page to decode.
struct FormBodyMiddleware: RouterMiddleware {
  typealias Context = ConsoleRequestContext

  let core: ConsoleCore

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard request.method == .post else { return try await next(request, context) }
    let mediaType = request.headers[.contentType]?
      .split(separator: ";", maxSplits: 1).first?
      .trimmedOfWhitespace.lowercased()
    guard mediaType == "application/x-www-form-urlencoded" else {
      return FormRefusal.unsupportedMediaType.response(core: core, session: context.session)
    }
    if let length = request.headers[.contentLength].flatMap({ Int($0) }),
      length > core.maximumBodyBytes
    {
      return FormRefusal.tooLarge.response(core: core, session: context.session)
    }
    let body: ByteBuffer
    do {
      body = try await request.body.collect(upTo: core.maximumBodyBytes)
    } catch {
      return FormRefusal.tooLarge.response(core: core, session: context.session)
    }
    var context = context
    context.formBody = String(buffer: body)
    return try await next(request, context)
  }
}
