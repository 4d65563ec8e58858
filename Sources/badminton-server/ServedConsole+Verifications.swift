import BadmintonConsole
import BadmintonDomain
import BadmintonMetrics
import BadmintonProjections
import BadmintonServices
import BadmintonStore

/// The console's Verifications and Live pages over the services: the review is
/// ReviewVerification's own path, and the live figures are the recent metrics window with the
/// match board's and nearby index's sizes.
extension ServedConsole {
  // MARK: Verifications

  func pendingVerifications(limit: Int) async throws -> [ConsoleVerification] {
    try await console(administration.pendingVerifications(limit: limit))
  }

  func verification(id: Int64) async throws -> ConsoleVerification? {
    guard let record = try await administration.verification(id: id) else { return nil }
    return try await console([record]).first
  }

  func verificationDocument(id: Int64) async throws -> ConsoleDocument? {
    guard let record = try await administration.verification(id: id),
      let bytes = try await administration.verificationDocument(id: id)
    else { return nil }
    return ConsoleDocument(contentType: record.contentType, bytes: bytes)
  }

  func reviewVerification(
    id: Int64, approve: Bool, note: String, by administrator: ConsoleAdministrator
  ) async throws {
    try await administration.reviewVerification(
      id: id, approve: approve, note: note, by: administrator.id)
  }

  /// The requests with their players' nicknames.
  private func console(_ records: [VerificationRecord]) async throws -> [ConsoleVerification] {
    let players = try await administration.players(ids: Array(Set(records.map(\.playerID))))
    return records.map { record in
      ConsoleVerification(
        id: record.id, playerID: record.playerID,
        nickname: players[record.playerID]?.nickname ?? "",
        levelAsked: record.kind.allowedLevel,
        kind: record.kind == .regional ? "regional championship" : "national championship",
        state: "\(record.state)", submittedAtUnixMs: record.submittedAtUnixMs,
        contentType: record.contentType, documentSize: record.documentSize,
        reviewNote: record.reviewNote, reviewerID: record.reviewerID,
        reviewedAtUnixMs: record.reviewedAtUnixMs)
    }
  }

  // MARK: Live figures

  func liveFigures() async -> ConsoleLiveFigures {
    let figures = recent.figures()
    return ConsoleLiveFigures(
      intervalSeconds: Int(figures.intervalMs / 1000), endUnixMs: figures.endUnixMs,
      methods: figures.methods.map { series in
        ConsoleMethodSeries(
          method: series.method, calls: series.calls,
          points: series.points.map {
            ConsoleMethodPoint(
              callsPerSecond: $0.callsPerSecond, p50Micros: $0.p50Micros, p99Micros: $0.p99Micros)
          })
      },
      openConnections: figures.openConnections, openStreams: figures.openStreams,
      matchBoardRequests: board.count, nearbyIndexPlayers: index.count,
      commitLatency: figures.commits.map {
        ConsoleLatency(count: $0.count, p50Micros: $0.p50Micros, p99Micros: $0.p99Micros)
      })
  }
}
