/// Who a call comes from, once the server has checked its session token.
public struct Principal: Hashable, Sendable {
  /// The player's id.
  public let userID: Int64
  /// True for the operators the server names as administrators.
  public let isAdministrator: Bool

  /// A principal for `userID`.
  public init(userID: Int64, isAdministrator: Bool) {
    self.userID = userID
    self.isAdministrator = isAdministrator
  }
}

/// Checks the bearer token of calls to methods that need authentication. The server core calls
/// it before the handler runs; the handler then finds the caller in `ServerContext.principal`.
public protocol Authenticator: Sendable {
  /// The principal the token belongs to, or nil when the token is unknown or expired.
  func authenticate(bearerToken: String) async throws -> Principal?
}

/// An authenticator that answers from memory without waiting. The server checks the session of
/// a call to a method served inline (`HandlerRegistry.register(_:inline:)`) with it on the
/// connection's event loop; with an authenticator that is not one, such calls run in a task
/// like any other.
public protocol ImmediateAuthenticator: Authenticator {
  /// The answer `authenticate(bearerToken:)` gives, given at once.
  func authenticateNow(bearerToken: String) throws -> Principal?
}

extension RPCError {
  /// The call needs `authorization: Bearer <token>` and has none.
  public static let authenticationRequired = RPCError(
    code: .unauthenticated, reason: "AUTHENTICATION_REQUIRED",
    message: LocalizedText(
      en: "Log in first: this call needs the header authorization: Bearer <token>.",
      zhCN: "请先登录：此请求需要 authorization: Bearer <token>。"))

  /// The token is malformed, unknown, expired or ended by logout.
  public static let sessionInvalid = RPCError(
    code: .unauthenticated, reason: "SESSION_INVALID",
    message: LocalizedText(
      en: "The session is invalid or has expired; log in again.",
      zhCN: "登录已失效或已过期，请重新登录。"))
}
