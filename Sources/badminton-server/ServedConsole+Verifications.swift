import BadmintonConsole
import BadmintonDomain

/// The console's Verifications and Live pages, which this server does not serve yet: the
/// verification requests answer CONSOLE_PAGE_UNAVAILABLE and the live figures are empty.
extension ServedConsole {
  /// The refusal of every verification request.
  static let pageUnavailable = DomainError(
    .unavailable, "CONSOLE_PAGE_UNAVAILABLE",
    en: "This server does not serve this console page yet.",
    zhCN: "此服务器尚未提供该控制台页面。")

  func pendingVerifications(limit: Int) async throws -> [ConsoleVerification] {
    throw Self.pageUnavailable
  }

  func verification(id: Int64) async throws -> ConsoleVerification? {
    throw Self.pageUnavailable
  }

  func verificationDocument(id: Int64) async throws -> ConsoleDocument? {
    throw Self.pageUnavailable
  }

  func reviewVerification(
    id: Int64, approve: Bool, note: String, by administrator: ConsoleAdministrator
  ) async throws {
    throw Self.pageUnavailable
  }

  func liveFigures() async -> ConsoleLiveFigures {
    ConsoleLiveFigures(
      intervalSeconds: 5, endUnixMs: nowUnixMs(), methods: [],
      openConnections: 0, openStreams: 0, matchBoardRequests: 0, nearbyIndexPlayers: 0,
      commitLatency: nil)
  }
}
