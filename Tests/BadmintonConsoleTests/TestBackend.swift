import BadmintonConsole
import BadmintonDomain
import Synchronization

/// An in-memory `ConsoleBackend` for testing the console's HTTP layer: it holds a few players,
/// administrators and verification requests, records every call, answers the live figures a test
/// sets, refuses an administrator's action on themself as the server does, and its clock moves
/// only when a test moves it. The real
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
    case pendingVerifications(limit: Int)
    case verification(id: Int64)
    case verificationDocument(id: Int64)
    case review(id: Int64, approve: Bool, note: String, administratorID: Int64)
  }

  struct State {
    var now: Int64 = 1_740_000_000_000  // 2025-02-19 21:20 UTC
    var administrators: [String: (password: String, administrator: ConsoleAdministrator)] = [
      "+8613800000001": ("right password", ConsoleAdministrator(id: 1, nickname: "Ada"))
    ]
    var players: [Int64: ConsolePlayerDetail] = [:]
    var audit: [ConsoleAuditEntry] = []
    var calls: [Call] = []
    /// Administrators whose accounts are suspended: they sign in to nothing and may not
    /// administer, as the server's backend answers.
    var suspendedAdministrators: Set<Int64> = []
    var signInError: DomainError?
    var actionError: DomainError?
    var endedSessions = 3
    var verifications: [Int64: ConsoleVerification] = [:]
    var documents: [Int64: ConsoleDocument] = [:]
    var reviewError: DomainError?
    var live = ConsoleLiveFigures(
      intervalSeconds: 5, endUnixMs: 1_740_000_000_000, methods: [], openConnections: 0,
      openStreams: 0, matchBoardRequests: 0, nearbyIndexPlayers: 0, commitLatency: nil)
  }

  let state = Mutex(State())

  init() {
    state.withLock { state in
      state.players[7] = Self.detail(id: 7, nickname: "Shuttle Sam", phone: "+8613800000007")
      state.players[8] = Self.detail(
        id: 8, nickname: "<script>alert(1)</script>", phone: "+8613800000008")
    }
  }

  /// A PNG's first bytes, and a PDF's.
  static let pngBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
  static let pdfBytes: [UInt8] = Array("%PDF-1.4\n%%EOF\n".utf8)

  /// A pending request of player 7 submitted `ageMs` before the test clock's start.
  static func verification(
    id: Int64, playerID: Int64 = 7, nickname: String = "Shuttle Sam", levelAsked: Int = 8,
    ageMs: Int64, contentType: String = "image/png", documentSize: Int = 12
  ) -> ConsoleVerification {
    ConsoleVerification(
      id: id, playerID: playerID, nickname: nickname, levelAsked: levelAsked,
      kind: levelAsked == 9 ? "national championship" : "regional championship",
      state: "pending", submittedAtUnixMs: State().now - ageMs, contentType: contentType,
      documentSize: documentSize, reviewNote: "", reviewerID: nil, reviewedAtUnixMs: nil)
  }

  /// Adds `verification` with a document of its type.
  func add(_ verification: ConsoleVerification, bytes: [UInt8]? = nil) {
    state.withLock { state in
      state.verifications[verification.id] = verification
      state.documents[verification.id] = ConsoleDocument(
        contentType: verification.contentType,
        bytes: bytes
          ?? (verification.contentType == "application/pdf" ? Self.pdfBytes : Self.pngBytes))
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
      guard let entry = state.administrators[phone], entry.password == password,
        !state.suspendedAdministrators.contains(entry.administrator.id)
      else {
        return nil
      }
      return entry.administrator
    }
  }

  /// Not recorded in `calls`: the console asks at every request of a session.
  func mayAdminister(_ administratorID: Int64) async -> Bool {
    state.withLock { !$0.suspendedAdministrators.contains(administratorID) }
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
      guard playerID != administrator.id else { throw SuspensionRules.administratorActsOnSelf }
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
      guard playerID != administrator.id else { throw SuspensionRules.administratorActsOnSelf }
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
      guard playerID != administrator.id else { throw SuspensionRules.administratorActsOnSelf }
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

  func pendingVerifications(limit: Int) async throws -> [ConsoleVerification] {
    state.withLock { state in
      state.calls.append(.pendingVerifications(limit: limit))
      return Array(
        state.verifications.values.filter { $0.state == "pending" }
          .sorted { ($0.submittedAtUnixMs, $0.id) < ($1.submittedAtUnixMs, $1.id) }
          .prefix(limit))
    }
  }

  func verification(id: Int64) async throws -> ConsoleVerification? {
    state.withLock { state in
      state.calls.append(.verification(id: id))
      return state.verifications[id]
    }
  }

  func verificationDocument(id: Int64) async throws -> ConsoleDocument? {
    state.withLock { state in
      state.calls.append(.verificationDocument(id: id))
      return state.documents[id]
    }
  }

  func reviewVerification(
    id: Int64, approve: Bool, note: String, by administrator: ConsoleAdministrator
  ) async throws {
    try state.withLock { state in
      state.calls.append(
        .review(id: id, approve: approve, note: note, administratorID: administrator.id))
      if let error = state.reviewError { throw error }
      guard var verification = state.verifications[id] else {
        throw VerificationRules.notFound
      }
      guard verification.state == "pending" else { throw VerificationRules.alreadyReviewed }
      verification.state = approve ? "approved" : "rejected"
      verification.reviewNote = note
      verification.reviewerID = administrator.id
      verification.reviewedAtUnixMs = state.now
      state.verifications[id] = verification
    }
  }

  func liveFigures() async -> ConsoleLiveFigures {
    state.withLock { $0.live }
  }

  func nowUnixMs() -> Int64 { state.withLock { $0.now } }
}
