import ArgumentParser
import BadmintonAPI
import BadmintonRPC
import Foundation

/// `badminton login PHONE`: logs in and keeps the session for later commands.
struct LoginCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "login",
    abstract: "Log in and keep the session token for later calls.",
    discussion: """
      The password is asked for without echo on a terminal; otherwise the first line of \
      standard input is the password (for scripts: `echo "$PASSWORD" | badminton login PHONE`). \
      The token, the server and the player's id are kept in $XDG_CONFIG_HOME/badminton/session \
      (else ~/.config/badminton/session), readable by you alone (mode 0600).

      \(ExitStatus.helpText)
      """)

  @OptionGroup var global: GlobalOptions

  @Argument(help: "The phone number registered with, such as +8613800000000.")
  var phone: String

  func run() async throws {
    try await Output.reporting(locale: global.rpcLocale) {
      guard let password = Terminal.readPassword(prompt: "Password for \(phone): ") else {
        throw CLIFailure(message: "no password given", status: ExitStatus.usage)
      }
      let answer = try await global.withClient { client in
        try await client.accounts.login(
          LoginRequest(phone: phone, password: password), options: global.callOptions())
      }
      try Session(server: global.serverAddress, userID: answer.userID, token: answer.token).save()
      let until = Date(timeIntervalSince1970: Double(answer.expiresAtUnixMs) / 1000)
      Output.line(
        "logged in as player \(answer.userID) until \(until.formatted(.iso8601)); "
          + "session kept in \(Session.path)")
    }
  }
}

/// `badminton logout`: ends the session on the server and forgets it.
struct LogoutCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "logout",
    abstract: "End the saved session on the server and remove the session file.",
    discussion: ExitStatus.helpText)

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await Output.reporting(locale: global.rpcLocale) {
      guard let session = Session.load() else {
        try Session.remove()
        Output.line("not logged in")
        return
      }
      // The token goes only to the server that issued it, whatever --server says.
      var issuer = global
      issuer.server = session.server
      do {
        try await issuer.withClient { client in
          _ = try await client.accounts.logout(options: issuer.callOptions(token: session.token))
        }
      } catch let error as RPCError where error.code == .unauthenticated {
        // The session had ended already: forgetting it is all that is left to do.
      }
      try Session.remove()
      Output.line("logged out")
    }
  }
}
