import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The login session `badminton login` keeps: the token, for which server and player, in a file
/// only its owner may read (mode 0600) under the user's config folder.
struct Session: Equatable {
  /// The server the token is for, as `HOST:PORT`.
  var server: String
  /// The player's id.
  var userID: Int64
  /// The session token, sent as `authorization: Bearer <token>`.
  var token: String

  /// `$XDG_CONFIG_HOME/badminton/session`, else `~/.config/badminton/session`.
  static var path: String {
    let environment = ProcessInfo.processInfo.environment
    let base: String
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
      base = config
    } else {
      base = (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
    }
    return base + "/badminton/session"
  }

  /// The saved session, or nil when there is none or the file is not one.
  static func load() -> Session? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    var fields: [String: String] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
    guard let server = fields["server"], let token = fields["token"], !token.isEmpty,
      let userID = fields["user_id"].flatMap({ Int64($0) })
    else { return nil }
    return Session(server: server, userID: userID, token: token)
  }

  /// Writes the session file, created with mode 0600 (and set so if it existed), in a folder
  /// created with mode 0700.
  func save() throws(CLIFailure) {
    let path = Self.path
    let folder = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw CLIFailure(message: "cannot create \(folder): \(error)", status: ExitStatus.ioError)
    }
    // A folder that already existed is tightened too; the file is never followed as a link.
    _ = chmod(folder, 0o700)
    let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else {
      throw CLIFailure(
        message: "cannot write \(path): \(String(cString: strerror(errno)))",
        status: ExitStatus.ioError)
    }
    defer { close(descriptor) }
    // open's mode only applies to a new file; an old one keeps its mode unless changed here.
    guard fchmod(descriptor, 0o600) == 0 else {
      throw CLIFailure(
        message: "cannot set the mode of \(path): \(String(cString: strerror(errno)))",
        status: ExitStatus.ioError)
    }
    let bytes = Array("server=\(server)\nuser_id=\(userID)\ntoken=\(token)\n".utf8)
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes {
        Glibc.write(descriptor, $0.baseAddress, $0.count)
      }
      guard count > 0 else {
        throw CLIFailure(
          message: "cannot write \(path): \(String(cString: strerror(errno)))",
          status: ExitStatus.ioError)
      }
      written += count
    }
  }

  /// Removes the session file; true when there was one.
  @discardableResult
  static func remove() throws(CLIFailure) -> Bool {
    let path = Self.path
    if unlink(path) == 0 { return true }
    if errno == ENOENT { return false }
    throw CLIFailure(
      message: "cannot remove \(path): \(String(cString: strerror(errno)))",
      status: ExitStatus.ioError)
  }
}
