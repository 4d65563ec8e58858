import BadmintonConsole
import BadmintonDomain
import BadmintonMetrics
import BadmintonProjections
import BadmintonRPC
import BadmintonServices
import BadmintonStore

/// The operator console's backend: the services' `Administration`, in the console's types.
struct ServedConsole: ConsoleBackend {
  let administration: Administration
  /// The last minutes of the server's metrics, for the live page.
  let recent: RecentMetrics
  /// The sizes the live page shows.
  let board: MatchBoard
  let index: NearbyIndex

  func signIn(phone: String, password: String, address: String) async throws
    -> ConsoleAdministrator?
  {
    do {
      return try await administration.signIn(phone: phone, password: password, address: address)
        .map { ConsoleAdministrator(id: $0.id, nickname: $0.nickname) }
    } catch let error as RPCError {
      // The login throttle and the password queue answer as the RPC API does.
      throw DomainError(
        .unavailable, error.reason, en: error.message.en, zhCN: error.message.zhCN,
        retryAfterMs: error.retryAfter.map { _ in Int64(error.retryAfterMs) })
    }
  }

  func mayAdminister(_ administratorID: Int64) async -> Bool {
    administration.mayAdminister(administratorID)
  }

  func findPlayers(matching query: String, limit: Int) async throws -> [ConsolePlayer] {
    let now = administration.nowUnixMs()
    return try await administration.findPlayers(query).prefix(max(0, limit)).map {
      ConsolePlayer(
        id: $0.id, nickname: $0.nickname, phone: $0.phone, selfLevel: $0.selfLevel,
        suspendedUntilUnixMs: administration.suspendedUntil($0.id, nowUnixMs: now))
    }
  }

  func player(id: Int64) async throws -> ConsolePlayerDetail? {
    guard let overview = try await administration.overview(of: id) else { return nil }
    let player = overview.player
    let calculated = SkillRating.calculatedLevel(
      selfLevel: player.selfLevel, peerRatingSum: player.peerRatingSum,
      peerRatingCount: player.peerRatingCount)
    return ConsolePlayerDetail(
      player: ConsolePlayer(
        id: player.id, nickname: player.nickname, phone: player.phone,
        selfLevel: player.selfLevel, suspendedUntilUnixMs: overview.suspension?.untilUnixMs),
      joinedAtUnixMs: player.joinedAtUnixMs, locale: player.locale, selfLevel: player.selfLevel,
      calculatedLevel: calculated.map(Double.init), verifiedMaxLevel: player.verifiedMaxLevel,
      gamesPlayed: player.totalGames, wins: player.wins,
      punctualityPercentage: player.reputation.punctualityPercentage,
      characterRating: player.reputation.averageCharacterRating,
      skillAccuracy: player.reputation.averageSkillAccuracy,
      evaluationCount: player.reputation.evaluationCount,
      recentMatches: overview.recentMatches.map {
        ConsoleMatchSummary(
          id: $0.id, startUnixMs: $0.slot.startUnixMs,
          mode: $0.mode == .singles ? "singles" : "doubles", state: "\($0.state)")
      },
      blocking: overview.counts.blocking, blockedBy: overview.counts.blockedBy,
      openSessions: overview.counts.openSessions,
      suspension: overview.suspension.map {
        ConsoleSuspension(
          untilUnixMs: $0.untilUnixMs, reason: $0.reason, administratorID: $0.administratorID,
          atUnixMs: $0.atUnixMs)
      })
  }

  func endSessions(of playerID: Int64, by administrator: ConsoleAdministrator) async throws -> Int {
    try await administration.endSessions(of: playerID, by: administrator.id)
  }

  func suspend(
    _ playerID: Int64, untilUnixMs: Int64, reason: String, by administrator: ConsoleAdministrator
  ) async throws {
    try await administration.suspend(
      playerID, untilUnixMs: untilUnixMs, reason: reason, by: administrator.id)
  }

  func liftSuspension(of playerID: Int64, note: String, by administrator: ConsoleAdministrator)
    async throws
  {
    try await administration.liftSuspension(of: playerID, note: note, by: administrator.id)
  }

  func auditLog(beforeID: Int64?, limit: Int) async throws -> [ConsoleAuditEntry] {
    try await administration.auditLog(beforeID: beforeID, limit: limit).map {
      ConsoleAuditEntry(
        id: $0.id, atUnixMs: $0.atUnixMs, administratorID: $0.administratorID,
        action: $0.action.rawValue, playerID: $0.playerID, note: $0.note)
    }
  }

  func nowUnixMs() -> Int64 { administration.nowUnixMs() }
}
