import BadmintonConsole
import BadmintonDomain
import Synchronization

/// An in-memory `ConsoleBackend` for testing the console's HTTP layer: it holds a few players and
/// administrators, records every call, and its clock moves only when a test moves it. The real
/// backend (over the services) is the server's, and is tested there.
final class TestBackend: ConsoleBackend {
  /// One call the console made.
  enum Call: Equatable {
    case signIn(phone: String, password: String, address: String)
    case findPlayers(query: String, limit: Int)
    case player(id: Int64)
    case endSessions(playerID: Int64, administratorID: Int64)
    case suspend(playerID: Int64, untilUnixMs: Int64, reason: String, administratorID: Int64)
    case lift(playerID: Int64, note: String, administratorID: Int64)
    case auditLog(beforeID: Int64?, limit: Int)
  }

  struct State {
    var now: Int64 = 1_740_000_000_000  // 2025-02-19 21:20 UTC
    var administrators: [String: (password: String, administrator: ConsoleAdministrator)] = [
      "+8613800000001": ("right password", ConsoleAdministrator(id: 1, nickname: "Ada"))
    ]
    var players: [Int64: ConsolePlayerDetail] = [:]
    var audit: [ConsoleAuditEntry] = []
    var calls: [Call] = []
    var signInError: DomainError?
    var actionError: DomainError?
    var endedSessions = 3
  }

  let state = Mutex(State())

  init() {
    state.withLock { state in
      state.players[7] = Self.detail(id: 7, nickname: "Shuttle Sam", phone: "+8613800000007")
      state.players[8] = Self.detail(
        id: 8, nickname: "<script>alert(1)</script>", phone: "+8613800000008")
    }
  }

  /// Every call so far.
  var calls: [Call] { state.withLock { $0.calls } }

  /// Moves the clock on.
  func advance(byMs ms: Int64) { state.withLock { $0.now += ms } }

  static func detail(id: Int64, nickname: String, phone: String) -> ConsolePlayerDetail {
    ConsolePlayerDetail(
      player: ConsolePlayer(
        id: id, nickname: nickname, phone: phone, selfLevel: 5, suspendedUntilUnixMs: nil),
      joinedAtUnixMs: 1_700_000_000_000, locale: "zh-CN", selfLevel: 5, calculatedLevel: 4.25,
      verifiedMaxLevel: 6, gamesPlayed: 12, wins: 7, punctualityPercentage: 91.5,
      characterRating: 4.8, skillAccuracy: 0.9, evaluationCount: 10,
      recentMatches: [
        ConsoleMatchSummary(
          id: 301, startUnixMs: 1_739_000_000_000, mode: "doubles", state: "finished")
      ],
      blocking: 1, blockedBy: 2, openSessions: 2, suspension: nil)
  }

  func signIn(phone: String, password: String, address: String) async throws
    -> ConsoleAdministrator?
  {
    try state.withLock { state in
      state.calls.append(.signIn(phone: phone, password: password, address: address))
      if let error = state.signInError { throw error }
      guard let entry = state.administrators[phone], entry.password == password else {
        return nil
      }
      return entry.administrator
    }
  }

  func findPlayers(matching query: String, limit: Int) async throws -> [ConsolePlayer] {
    state.withLock { state in
      state.calls.append(.findPlayers(query: query, limit: limit))
      return state.players.values.map(\.player)
        .filter {
          String($0.id) == query || $0.phone == query
            || $0.nickname.lowercased().hasPrefix(query.lowercased())
        }
        .sorted { $0.id < $1.id }
        .prefix(limit).map { $0 }
    }
  }

  func player(id: Int64) async throws -> ConsolePlayerDetail? {
    state.withLock { state in
      state.calls.append(.player(id: id))
      return state.players[id]
    }
  }

  func endSessions(of playerID: Int64, by administrator: ConsoleAdministrator) async throws -> Int {
    try state.withLock { state in
      state.calls.append(.endSessions(playerID: playerID, administratorID: administrator.id))
      if let error = state.actionError { throw error }
      return state.endedSessions
    }
  }

  func suspend(
    _ playerID: Int64, untilUnixMs: Int64, reason: String, by administrator: ConsoleAdministrator
  ) async throws {
    try state.withLock { state in
      state.calls.append(
        .suspend(
          playerID: playerID, untilUnixMs: untilUnixMs, reason: reason,
          administratorID: administrator.id))
      if let error = state.actionError { throw error }
      state.players[playerID]?.suspension = ConsoleSuspension(
        untilUnixMs: untilUnixMs, reason: reason, administratorID: administrator.id,
        atUnixMs: state.now)
    }
  }

  func liftSuspension(of playerID: Int64, note: String, by administrator: ConsoleAdministrator)
    async throws
  {
    try state.withLock { state in
      state.calls.append(.lift(playerID: playerID, note: note, administratorID: administrator.id))
      if let error = state.actionError { throw error }
      state.players[playerID]?.suspension = nil
    }
  }

  func auditLog(beforeID: Int64?, limit: Int) async throws -> [ConsoleAuditEntry] {
    state.withLock { state in
      state.calls.append(.auditLog(beforeID: beforeID, limit: limit))
      return Array(
        state.audit.sorted { $0.id > $1.id }
          .filter { beforeID == nil || $0.id < beforeID! }
          .prefix(limit))
    }
  }

  func nowUnixMs() -> Int64 { state.withLock { $0.now } }
}
