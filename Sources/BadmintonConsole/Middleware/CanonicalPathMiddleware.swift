import Hummingbird

/// Each console resource has one address: a path with an empty segment (`//`), a trailing slash,
/// a dot segment, a percent-encoded or other character outside `A-Z a-z 0-9 - _ .`, or a number
/// written with a leading zero (`/verifications/01/document`) is a 404, never another spelling
/// of a page. Runs after `SignInGateMiddleware`, so without a session every address still answers
/// with the way to sign in.
struct CanonicalPathMiddleware: RouterMiddleware {
  typealias Context = ConsoleRequestContext

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard Self.isCanonical(request.uri.path) else { throw HTTPError(.notFound) }
    return try await next(request, context)
  }

  /// Whether `path` is written the one way the console's addresses are.
  static func isCanonical(_ path: String) -> Bool {
    guard path.utf8.first == UInt8(ascii: "/") else { return false }
    if path == "/" { return true }
    let segments = path.utf8.dropFirst().split(
      separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    return segments.allSatisfy { segment in
      guard !segment.isEmpty, segment.allSatisfy(isAllowed) else { return false }
      if segment.allSatisfy({ $0 == UInt8(ascii: ".") }) { return false }
      let isNumber = segment.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
      return !isNumber || segment.count == 1 || segment.first != UInt8(ascii: "0")
    }
  }

  private static func isAllowed(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
      UInt8(ascii: "."):
      true
    default: false
    }
  }
}
