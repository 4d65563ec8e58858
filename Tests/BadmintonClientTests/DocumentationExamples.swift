import BadmintonAPI
import BadmintonClient
import BadmintonRPC

/// The examples of docs/client.md, compiled with the tests so that they keep compiling against
/// the library; they are not run. Keep the two in step.
enum DocumentationExamples {
  /// What the examples call on the app's side.
  struct Screen {
    func show(_ state: ConnectionState, waiting: Int) {}
    func add(_ message: DirectMessage) {}
    func add(_ proposal: ProposalReceived) {}
    func confirm(_ message: DirectMessage, key: String) {}
    func showFailure(_ error: RPCError, key: String) {}
  }

  static func opening(applicationSupportFolder: String) throws -> BadmintonSession {
    let folder = applicationSupportFolder + "/badminton"  // the app's own, private folder
    let session = try BadmintonSession(
      configuration: SessionConfiguration(host: "api.example.com", port: 7420, directory: folder))
    return session
  }

  static func signingIn(_ session: BadmintonSession, password: String) async throws {
    if session.status.connection == .signedOut {
      try await session.login(phone: "+8613800138000", password: password)
    }
  }

  static func status(_ session: BadmintonSession, banner: Screen) {
    Task {
      for await status in session.statusUpdates() {
        banner.show(status.connection, waiting: status.pendingWrites)
      }
    }
    let now: SessionStatus = session.status
    _ = now
  }

  static func writes(_ session: BadmintonSession, conversation: Screen) async throws {
    let availability = try await session.write(
      Matching.postAvailability,
      PostAvailabilityRequest(
        mode: .singles, date: LocalDate(year: 2026, month: 12, day: 1), startMinute: 18 * 60,
        endMinute: 20 * 60, timeZone: "Asia/Shanghai"))
    _ = availability

    Task {
      for await outcome in session.outcomes {
        if let message = try? outcome.response(of: Messages.sendMessage) {
          conversation.confirm(message, key: outcome.key)
        } else if case .failure(let error) = outcome.result {
          conversation.showFailure(error, key: outcome.key)
        }
      }
    }
  }

  static func reads(_ session: BadmintonSession, threadID: Int64) async throws {
    let profile = try await session.call(Players.getMyProfile, GetMyProfileRequest())
    let page = try await session.call(
      Messages.loadMessages, LoadMessagesRequest(threadID: threadID))
    _ = (profile, page)
  }

  static func events(_ session: BadmintonSession, inbox: Screen, invitations: Screen) {
    Task {
      for await event in session.events {
        switch event.body {
        case .messageReceived(let message)?: inbox.add(message)
        case .proposalReceived(let proposal)?: invitations.add(proposal)
        default: break  // kinds this app ignores, and kinds it does not know yet
        }
      }
    }
  }

  static func testing(port: Int, temporaryFolder: String) throws -> BadmintonSession {
    var configuration = SessionConfiguration(
      host: "127.0.0.1", port: port, tokenStore: InMemoryTokenStore(),
      queuePath: temporaryFolder + "/writes.queue")
    configuration.environment = SessionEnvironment(
      sleep: { _ in try await Task.sleep(for: .milliseconds(1)) }, random: { 1 })
    configuration.heartbeatInterval = nil
    return try BadmintonSession(configuration: configuration)
  }
}
