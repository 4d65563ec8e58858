import ArgumentParser

/// `badminton`: calls a BadmintonBuddy server from the command line, for scripts, scenarios and
/// watching events; see docs/cli.md.
@main
struct BadmintonCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "badminton",
    abstract: "Calls a BadmintonBuddy server: list and describe its methods, call them with JSON, "
      + "watch events, log in, or run the demo (see docs/cli.md).",
    discussion: ExitStatus.helpText,
    subcommands: [
      ListCommand.self, DescribeCommand.self, CallCommand.self, SubscribeCommand.self,
      LoginCommand.self, LogoutCommand.self, DemoCommand.self,
    ])
}
