import ArgumentParser
import BadmintonJSON
import BadmintonRPC
import Foundation

/// `badminton call METHOD [REQUEST]`: one request from JSON, the response as JSON.
struct CallCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "call",
    abstract: "Send one request, written as JSON, and print the response as JSON.",
    discussion: """
      REQUEST is the JSON itself, @FILE to read it from a file, or - to read standard input; \
      without it the request is {}. The session of `badminton login` is sent to methods that \
      need one. A server-streaming method prints each response as it arrives. A refused call \
      prints its status code, reason, message and field violations on standard error.

      \(ExitStatus.helpText)
      """)

  @OptionGroup var global: GlobalOptions

  @Argument(help: "The method: Players/GetMyProfile, or its full path (see `badminton list`).")
  var method: String

  @Argument(help: "The request: JSON, @FILE, or - for standard input (default: {}).")
  var request: String?

  @Option(
    help: ArgumentHelp(
      "Send this idempotency key with a write (see `badminton describe`): running the same call again with the same key gets the first answer and writes nothing.",
      valueName: "key"))
  var idempotencyKey: String?

  func run() async throws {
    try await Output.reporting(locale: global.rpcLocale) {
      let json = try Self.readRequest(request)
      try await global.withClient { client in
        let catalog = try await MethodCatalog.fetch(client, options: global.callOptions())
        let info = try catalog.resolve(method)
        let requestType = try MethodCatalog.message(info.requestType)
        let responseType = try MethodCatalog.message(info.responseType)
        let payload: [UInt8]
        do {
          payload = try ProtoJSON.decode(json, as: requestType)
        } catch {
          throw CLIFailure(
            message: "the request is not a valid \(info.requestType): \(error)",
            status: ExitStatus.badJSON)
        }
        var options = global.callOptions(
          token: info.requiresAuthentication ? Self.token(for: global) : nil)
        options.idempotencyKey = idempotencyKey
        // A keyed repeat is answered from the first: safe to retry as an idempotent call.
        let retriable = info.idempotent || (info.takesIdempotencyKey && idempotencyKey != nil)
        if info.serverStreaming {
          let responses = try await client.serverStreaming(
            path: info.path, payload: payload, idempotent: info.idempotent, options: options)
          for try await response in responses {
            Output.write(try Output.json(response, as: responseType, compact: global.jsonLines))
          }
        } else {
          let response = try await client.unary(
            path: info.path, payload: payload, idempotent: retriable, options: options)
          Output.write(try Output.json(response, as: responseType, compact: global.jsonLines))
        }
      }
    }
  }

  /// The request JSON: `argument` itself, a file's contents for `@FILE`, standard input for
  /// `-`, `{}` without one.
  static func readRequest(_ argument: String?) throws(CLIFailure) -> String {
    guard let argument else { return "{}" }
    if argument == "-" {
      return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }
    if argument.hasPrefix("@") {
      let path = String(argument.dropFirst())
      guard let data = FileManager.default.contents(atPath: path) else {
        throw CLIFailure(
          message: "cannot read the request file \(path)", status: ExitStatus.noInput)
      }
      return String(decoding: data, as: UTF8.self)
    }
    return argument
  }

  /// The saved session's token when it is for the chosen server; a note on standard error when
  /// the session is for another one.
  static func token(for global: GlobalOptions) -> String? {
    guard let session = Session.load() else { return nil }
    guard session.server == global.serverAddress else {
      Output.error(
        "note: the saved session is for \(session.server), not \(global.serverAddress); "
          + "calling without it")
      return nil
    }
    return session.token
  }
}
