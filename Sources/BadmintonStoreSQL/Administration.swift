public import BadmintonDomain
public import BadmintonStore

/// Suspensions, sessions ended by an administrator and the audit log, on either engine: each
/// action and its audit entry commit in one transaction, so the log holds exactly what was
/// done.
extension AdministrationStore where Self: StoreEngine {
  public func replaySuspensions(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    // Few rows (one per suspended player, ever): read at once.
    try await readSnapshot { db in
      for row in try db.rows(AllSuspensions.self) {
        let suspension = try AdministrationRows.suspension(from: row)
        apply(.suspension(playerID: suspension.playerID, suspension))
      }
    }
  }

  public func suspension(playerID: Int64) async throws -> SuspensionRecord? {
    try await readEach { db in try AdministrationRows.suspensions(db, ids: [playerID])[playerID] }
  }

  public func suspend(_ suspension: SuspensionRecord) async throws {
    try await writeTransaction { db in
      guard try db.exists(PlayerExists.self, suspension.playerID) else {
        throw DomainError.playerNotFound
      }
      try db.rows(
        SuspensionUpsert.self, suspension.playerID, suspension.untilUnixMs, suspension.reason,
        suspension.administratorID, suspension.atUnixMs)
      let until = SuspensionRules.utcText(suspension.untilUnixMs)
      try AdministrationRows.audit(
        db, .suspend, playerID: suspension.playerID,
        note: "until \(until) UTC: \(suspension.reason)",
        administratorID: suspension.administratorID, atUnixMs: suspension.atUnixMs)
    }
  }

  public func liftSuspension(
    playerID: Int64, note: String, administratorID: Int64, atUnixMs: Int64
  ) async throws {
    try await writeTransaction { db in
      guard let current = try AdministrationRows.suspensions(db, ids: [playerID])[playerID],
        SuspensionRules.holds(untilUnixMs: current.untilUnixMs, nowUnixMs: atUnixMs)
      else { throw SuspensionRules.notSuspended }
      try db.rows(SuspensionDelete.self, playerID)
      try AdministrationRows.audit(
        db, .liftSuspension, playerID: playerID, note: note, administratorID: administratorID,
        atUnixMs: atUnixMs)
    }
  }

  public func endSessions(playerID: Int64, administratorID: Int64, atUnixMs: Int64) async throws
    -> Int
  {
    try await writeTransaction { db in
      guard try db.exists(PlayerExists.self, playerID) else { throw DomainError.playerNotFound }
      let ended = try PlayerRows.deleteCounted(
        db, SessionCountOfPlayer.self, SessionDeleteOfPlayer.self, playerID)
      try AdministrationRows.audit(
        db, .endSessions, playerID: playerID, note: "\(ended) sessions ended",
        administratorID: administratorID, atUnixMs: atUnixMs)
      return ended
    }
  }

  public func deleteSuspensions(endedBy unixMs: Int64) async throws -> Int {
    try await writeTransaction { db in
      try PlayerRows.deleteCounted(
        db, SuspensionCountEnded.self, SuspensionDeleteEnded.self, unixMs)
    }
  }

  public func auditLog(beforeID: Int64?, limit: Int) async throws -> [AuditRecord] {
    try await readEach { db in
      try db.rows(AuditPage.self, beforeID ?? Int64.max, Int64(max(limit, 0))).map { row in
        let (id, at, administrator, action, playerID, note) = try row.decode(
          (Int64, Int64, Int64, String, Int64?, String).self)
        return AuditRecord(
          id: id, atUnixMs: at, administratorID: administrator,
          action: AuditAction(rawValue: action), playerID: playerID, note: note)
      }
    }
  }

  public func findPlayers(matching query: String, limit: Int) async throws -> [PlayerRecord] {
    // A prefix of the nickname, its LIKE wildcards taken literally; ASCII letters in either case
    // (what the statement folds on both engines).
    let folded = String(
      query.unicodeScalars.map { scalar in
        scalar.isASCII ? Character(String(scalar).lowercased()) : Character(scalar)
      })
    var escaped = ""
    for character in folded {
      if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
      escaped.append(character)
    }
    let pattern = escaped + "%"
    let id = Int64(query) ?? 0
    return try await readEach { db in
      try db.rows(FindPlayers.self, id, query, pattern, Int64(max(limit, 0)))
        .map(Shared.player(from:))
    }
  }

  public func activityCounts(playerID: Int64, nowUnixMs: Int64) async throws
    -> PlayerActivityCounts
  {
    try await readEach { db in
      guard let row = try db.row(ActivityCounts.self, playerID, nowUnixMs) else {
        return PlayerActivityCounts(blocking: 0, blockedBy: 0, openSessions: 0)
      }
      let (blocking, blockedBy, sessions) = try row.decode((Int, Int, Int).self)
      return PlayerActivityCounts(blocking: blocking, blockedBy: blockedBy, openSessions: sessions)
    }
  }
}

/// The rows of suspensions and the audit log, for the operations above and the change feeds.
public enum AdministrationRows {
  /// The suspensions of `ids`, by player id.
  public static func suspensions(_ db: any StoreSession, ids: [Int64]) throws
    -> [Int64: SuspensionRecord]
  {
    guard !ids.isEmpty else { return [:] }
    var suspensions: [Int64: SuspensionRecord] = [:]
    for row in try db.rows(SuspensionsOf.self, ids) {
      let suspension = try suspension(from: row)
      suspensions[suspension.playerID] = suspension
    }
    return suspensions
  }

  static func suspension(from row: StoreRow) throws -> SuspensionRecord {
    let (playerID, until, reason, administrator, at) = try row.decode(
      (Int64, Int64, String, Int64, Int64).self)
    return SuspensionRecord(
      playerID: playerID, untilUnixMs: until, reason: reason, administratorID: administrator,
      atUnixMs: at)
  }

  static func audit(
    _ db: any StoreSession, _ action: AuditAction, playerID: Int64?, note: String,
    administratorID: Int64, atUnixMs: Int64
  ) throws {
    try db.rows(AuditInsert.self, atUnixMs, administratorID, action.rawValue, playerID, note)
  }
}

private enum PlayerExists: StoreStatement {
  static let sql = "SELECT 1 FROM player WHERE id = $1"
}

private let suspensionColumns = "player_id, until_ms, reason, administrator_id, at_ms"

private enum AllSuspensions: StoreStatement {
  static let sql = "SELECT \(suspensionColumns) FROM suspension ORDER BY player_id"
}

private enum SuspensionsOf: StoreStatement {
  static let sql = "SELECT \(suspensionColumns) FROM suspension WHERE player_id = ANY($1)"
}

private enum SuspensionUpsert: StoreStatement {
  static let sql = """
    INSERT INTO suspension (\(suspensionColumns)) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (player_id) DO UPDATE SET until_ms = excluded.until_ms,
      reason = excluded.reason, administrator_id = excluded.administrator_id,
      at_ms = excluded.at_ms
    """
}

private enum SuspensionDelete: StoreStatement {
  static let sql = "DELETE FROM suspension WHERE player_id = $1"
}

private enum SuspensionCountEnded: StoreStatement {
  static let sql = "SELECT count(*) FROM suspension WHERE until_ms <= $1"
}

private enum SuspensionDeleteEnded: StoreStatement {
  static let sql = "DELETE FROM suspension WHERE until_ms <= $1"
}

private enum SessionCountOfPlayer: StoreStatement {
  static let sql = "SELECT count(*) FROM session WHERE player_id = $1"
}

private enum SessionDeleteOfPlayer: StoreStatement {
  static let sql = "DELETE FROM session WHERE player_id = $1"
}

private enum AuditInsert: StoreStatement {
  static let sql = """
    INSERT INTO audit_log (at_ms, administrator_id, action, player_id, note)
    VALUES ($1, $2, $3, $4, $5)
    """
}

private enum AuditPage: StoreStatement {
  static let sql = """
    SELECT id, at_ms, administrator_id, action, player_id, note FROM audit_log
    WHERE id < $1 ORDER BY id DESC LIMIT $2
    """
}

private enum FindPlayers: StoreStatement {
  // ASCII letters folded only, on both engines: SQLite's lower() folds nothing else, and
  // PostgreSQL's would fold more by its locale.
  static let sql = """
    SELECT \(Shared.playerColumns) FROM player
    WHERE id = $1 OR phone = $2
      OR translate(nickname, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
        LIKE $3 ESCAPE '\\'
    ORDER BY id LIMIT $4
    """
  static let sqlite = """
    SELECT \(Shared.playerColumns) FROM player
    WHERE id = ?1 OR phone = ?2 OR lower(nickname) LIKE ?3 ESCAPE '\\'
    ORDER BY id LIMIT ?4
    """
}

private enum ActivityCounts: StoreStatement {
  static let sql = """
    SELECT (SELECT count(*) FROM block WHERE blocker_id = $1),
      (SELECT count(*) FROM block WHERE blocked_id = $1),
      (SELECT count(*) FROM session WHERE player_id = $1 AND expires_at_ms > $2)
    """
}
