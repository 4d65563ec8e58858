public import Hummingbird
import NIOCore

/// What the console knows of one request: the client's address, its session and its form.
public struct ConsoleRequestContext: RequestContext {
  /// Hummingbird's own part of the context.
  public var coreContext: CoreRequestContextStorage
  /// The client's IP address, for the sign-in throttle; `unknown` when there is none (tests).
  let remoteAddress: String
  /// The signed-in session, set by `SessionMiddleware`.
  var session: ConsoleSession?
  /// The session's id as the browser sent it.
  var sessionID: String?
  /// A POST's form fields, read by `SessionMiddleware`.
  var form = FormFields()

  /// The context of a request on `source`'s channel.
  public init(source: ApplicationRequestContextSource) {
    self.coreContext = .init(source: source)
    self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
  }
}
