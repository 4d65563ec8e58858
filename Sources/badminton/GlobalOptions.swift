import ArgumentParser
import BadmintonRPC
import Foundation

/// The options every subcommand takes: which server, in which language, how long to wait, and
/// how to print JSON.
struct GlobalOptions: ParsableArguments {
  /// The default server when neither `--server` nor `BADMINTON_SERVER` names one.
  static let defaultServer = "127.0.0.1:7420"

  @Option(
    help: ArgumentHelp(
      "The server as HOST:PORT (default: $BADMINTON_SERVER, else \(GlobalOptions.defaultServer)).",
      valueName: "host:port"))
  var server: String?

  @Option(help: "The language of status messages: en or zh-CN.")
  var locale: String = "en"

  @Option(
    help: ArgumentHelp(
      "Time limit in seconds for each call to the server, retries included.",
      valueName: "seconds"))
  var timeout: Double?

  @Flag(help: "Print JSON compactly, one message a line, instead of indented.")
  var jsonLines = false

  @Flag(
    help:
      "Connect with TLS, verifying the server's certificate against the system's trust store and its name against the host of --server."
  )
  var tls = false

  @Option(
    help: ArgumentHelp(
      "With TLS (implies --tls), trust only the CA certificates in this PEM file instead of the system's.",
      valueName: "file"))
  var caFile: String?

  func validate() throws {
    guard RPCLocale(rawValue: locale) != nil else {
      throw ValidationError("--locale must be en or zh-CN")
    }
    if let timeout, !(0.001...31_536_000).contains(timeout) {
      throw ValidationError("--timeout must be from 0.001 to 31536000 seconds (a year)")
    }
    _ = try endpoint()
  }

  /// The server's `HOST:PORT` as given, or from the environment, or the default.
  var serverAddress: String {
    if let server { return server }
    if let fromEnvironment = ProcessInfo.processInfo.environment["BADMINTON_SERVER"],
      !fromEnvironment.isEmpty
    {
      return fromEnvironment
    }
    return Self.defaultServer
  }

  /// The server's host and port; `[::1]:7420` for IPv6 hosts.
  func endpoint() throws -> (host: String, port: Int) {
    let address = serverAddress
    guard let colon = address.lastIndex(of: ":"),
      let port = Int(address[address.index(after: colon)...]), (1...65535).contains(port)
    else {
      throw ValidationError("the server \"\(address)\" is not HOST:PORT")
    }
    var host = String(address[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { throw ValidationError("the server \"\(address)\" has no host") }
    return (host, port)
  }

  /// The locale of status messages.
  var rpcLocale: RPCLocale { RPCLocale(rawValue: locale) ?? .en }

  /// A client of the server, which asks for messages in the chosen locale, over TLS with
  /// `--tls` or `--ca-file`; a CA file that cannot be used is a usage error naming it.
  func makeClient() throws -> RPCClient {
    let (host, port) = try endpoint()
    var configuration = ClientConfiguration(defaultLocale: rpcLocale)
    if tls || caFile != nil {
      do {
        configuration.tls = try ClientTLSConfiguration(caFile: caFile)
      } catch {
        throw CLIFailure(message: "cannot use TLS: \(error)", status: ExitStatus.usage)
      }
    }
    return RPCClient(host: host, port: port, configuration: configuration)
  }

  /// Runs `body` with a client of the server, closed afterwards.
  func withClient<T>(_ body: (RPCClient) async throws -> T) async throws -> T {
    let client = try makeClient()
    do {
      let result = try await body(client)
      await client.close()
      return result
    } catch {
      await client.close()
      throw error
    }
  }

  /// Call options with the chosen timeout and locale, and `token` when given.
  func callOptions(token: String? = nil) -> CallOptions {
    CallOptions(
      timeout: timeout.map { .milliseconds(Int64(($0 * 1000).rounded())) }, locale: rpcLocale,
      bearerToken: token)
  }
}
