import ArgumentParser
import BadmintonRPC

/// `badminton list`: every method the server serves, with its request and response types.
struct ListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List every method the server serves, with its request and response types.",
    discussion: """
      One line per method: PATH REQUEST -> RESPONSE, then [stream] for a server-streaming \
      method, [login] for one that needs a session, [idempotent] for one that may be retried and \
      [key] for a write that takes --idempotency-key. \
      With --json-lines, each method as one line of JSON (a badminton.rpc.v1.MethodInfo).

      \(ExitStatus.helpText)
      """)

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await Output.reporting(locale: global.rpcLocale) {
      try await global.withClient { client in
        let catalog = try await MethodCatalog.fetch(client, options: global.callOptions())
        for method in catalog.methods {
          if global.jsonLines {
            Output.write(
              try Output.json(method.serializedBytes(), as: MethodInfo.cDescriptor, compact: true))
          } else {
            Output.line(Self.line(method))
          }
        }
      }
    }
  }

  /// `PATH REQUEST -> RESPONSE [stream] [login] [idempotent] [key]`.
  static func line(_ method: MethodInfo) -> String {
    var text = "\(method.path) \(method.requestType) -> \(method.responseType)"
    if method.serverStreaming { text += " [stream]" }
    if method.requiresAuthentication { text += " [login]" }
    if method.idempotent { text += " [idempotent]" }
    if method.takesIdempotencyKey { text += " [key]" }
    return text
  }
}
