public import Hummingbird
import NIOCore

/// What the console knows of one request: the client's address, its session and its form.
public struct ConsoleRequestContext: RequestContext {
  /// Hummingbird's own part of the context.
  public var coreContext: CoreRequestContextStorage
  /// The client's IP address, for the sign-in throttle; `unknown` when there is none (tests).
  let remoteAddress: String
  /// The signed-in session, set by `SignInGateMiddleware`.
  var session: ConsoleSession?
  /// The session's id as the browser sent it.
  var sessionID: String?
  /// A POST's body as it came (`application/x-www-form-urlencoded`), read by
  /// `FormBodyMiddleware`; the page decodes its own form from it (`form(_:)`).
  var formBody: String?

  /// The POST's form as `Form`; a form that cannot be decoded is a 400 page.
  func form<Form: ConsoleForm>(_: Form.Type) throws -> Form {
    do {
      return try Form.decode(formBody ?? "")
    } catch {
      throw HTTPError(.badRequest, message: "The form could not be read.")
    }
  }

  /// The context of a request on `source`'s channel.
  public init(source: ApplicationRequestContextSource) {
    self.coreContext = .init(source: source)
    self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
  }
}
