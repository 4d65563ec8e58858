import ArgumentParser
import BadmintonAPI
import BadmintonRPC

/// `badminton subscribe`: the logged-in player's events as JSON lines, until interrupted.
struct SubscribeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "subscribe",
    abstract: "Print the logged-in player's events as JSON lines until interrupted (Ctrl-C).",
    discussion: """
      Stored events after CURSOR come first, then new ones as they happen. Each line is one \
      badminton.v1.Event; its "sequence" is the cursor to resume from with --after.

      \(ExitStatus.helpText)
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("Resume after this event sequence number.", valueName: "cursor"))
  var after: UInt64 = 0

  func run() async throws {
    try await Output.reporting(locale: global.rpcLocale) {
      try await global.withClient { client in
        let events = try await client.serverStreaming(
          path: Events.subscribe.path,
          payload: SubscribeRequest(afterSequence: after).serializedBytes(),
          idempotent: Events.subscribe.idempotent,
          options: global.callOptions(token: CallCommand.token(for: global)))
        for try await event in events {
          Output.write(try Output.json(event, as: Event.cDescriptor, compact: true))
        }
      }
    }
  }
}
