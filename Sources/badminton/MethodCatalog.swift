import BadmintonAPI
import BadmintonRPC

/// The methods a server serves, as its reflection service lists them, and the lookup of the
/// method a command line names.
struct MethodCatalog {
  /// Every method, sorted by path.
  var methods: [MethodInfo]

  /// The catalog of the server `client` talks to.
  static func fetch(_ client: RPCClient, options: CallOptions) async throws -> MethodCatalog {
    let response = try await client.reflection.listMethods(options: options)
    return MethodCatalog(methods: response.methods)
  }

  /// The method `name` names: `/badminton.v1.Players/GetMyProfile`,
  /// `badminton.v1.Players/GetMyProfile`, `Players/GetMyProfile` or `Players.GetMyProfile`.
  /// Case is ignored when the exact spelling matches nothing; a bare `GetMyProfile` will do when
  /// one service alone has a method of that name.
  func resolve(_ name: String) throws(CLIFailure) -> MethodInfo {
    var text = Substring(name)
    if text.hasPrefix("/") { text = text.dropFirst() }
    let separator = text.lastIndex(of: "/") ?? text.lastIndex(of: ".")
    let service = separator.map { String(text[..<$0]) }
    let method = String(separator.map { text[text.index(after: $0)...] } ?? text)
    func matches(_ info: MethodInfo, caseSensitive: Bool) -> Bool {
      let fold: (String) -> String = caseSensitive ? { $0 } : { $0.lowercased() }
      guard fold(Self.methodName(info)) == fold(method) else { return false }
      // A bare method name is enough when one service alone has it.
      guard let service else { return true }
      let full = fold(Self.serviceName(info))
      return full == fold(service) || full.hasSuffix("." + fold(service))
    }
    var found = methods.filter { matches($0, caseSensitive: true) }
    if found.isEmpty { found = methods.filter { matches($0, caseSensitive: false) } }
    switch found.count {
    case 1:
      return found[0]
    case 0:
      let close = methods.filter { info in
        Self.methodName(info).lowercased() == method.lowercased()
          || service.map { Self.serviceName(info).lowercased().hasSuffix($0.lowercased()) }
            ?? false
      }
      throw unknown(name, close: close)
    default:
      throw CLIFailure(
        message: "\"\(name)\" is ambiguous; write one of:\n"
          + found.map { "  \($0.path)" }.joined(separator: "\n"),
        status: ExitStatus.usage)
    }
  }

  private func unknown(_ name: String, close: [MethodInfo]) -> CLIFailure {
    var message = "the server has no method \"\(name)\""
    if close.isEmpty {
      message += "; `badminton list` shows them all"
    } else {
      message +=
        "; did you mean:\n" + close.prefix(12).map { "  \($0.path)" }.joined(separator: "\n")
    }
    return CLIFailure(message: message, status: ExitStatus.usage)
  }

  /// `badminton.v1.Players` of `/badminton.v1.Players/GetMyProfile`.
  static func serviceName(_ info: MethodInfo) -> String {
    let parts = info.path.split(separator: "/")
    return parts.count == 2 ? String(parts[0]) : info.path
  }

  /// `GetMyProfile` of `/badminton.v1.Players/GetMyProfile`.
  static func methodName(_ info: MethodInfo) -> String {
    String(info.path.split(separator: "/").last ?? "")
  }

  /// The descriptor of the message type `fullName`, which this build of `badminton` must know.
  static func message(_ fullName: String) throws(CLIFailure) -> CMessageDescriptor {
    guard let descriptor = APIContract.descriptorsByName[fullName] else {
      throw CLIFailure(
        message: "this badminton does not know the message \(fullName); update it to match the "
          + "server", status: ExitStatus.usage)
    }
    return descriptor
  }
}
