public import BadmintonDomain
public import BadmintonStore

/// Players, their sessions, locations and profiles, and their event inboxes, on either engine.
/// On PostgreSQL every write is serializable: two registrations of one phone, or two changes of
/// one row, on one instance or on two, cannot both commit on what they read.
extension PlayerStore where Self: StoreEngine {
  // MARK: Replays

  public func replayPlayers(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    // One snapshot, read in chunks of the id, so that a million players are never held at once.
    try await readSnapshot { db in
      var after = Int64.min
      while true {
        let rows = try db.rows(PlayersAfter.self, after, Int64(PlayerRows.replayChunk))
        for row in rows {
          let player = try Shared.player(from: row)
          apply(.player(player))
          after = player.id
        }
        guard rows.count == PlayerRows.replayChunk else { return }
      }
    }
  }

  public func replaySessions(nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void)
    async throws
  {
    // As the players, in chunks of the row id: the one the change feed names sessions by.
    try await readSnapshot { db in
      var after = Int64.min
      while true {
        let rows = try db.rows(
          SessionsAfter.self, after, nowUnixMs, Int64(PlayerRows.replayChunk))
        for row in rows {
          let (rowID, session) = try PlayerRows.session(from: row)
          apply(.session(rowID: rowID, session))
          after = rowID
        }
        guard rows.count == PlayerRows.replayChunk else { return }
      }
    }
  }

  // MARK: Players

  public func createPlayer(_ new: NewPlayer) async throws -> PlayerRecord {
    try await writeTransaction { db in
      // Checked first: on PostgreSQL a refused insert would end the transaction. Two
      // registrations of one phone at once: the serializable transaction that read no row
      // before the other inserted one is run again and finds it; the unique index keeps the
      // rest.
      try PlayerRules.checkPhoneFree(registered: db.exists(PlayerPhoneTaken.self, new.phone))
      guard
        let row = try db.row(
          PlayerInsert.self, new.phone, new.nickname, new.password.hash, new.password.salt,
          new.password.parameters, new.selfLevel, new.locale, new.joinedAtUnixMs)
      else { throw PlayerRules.phoneTaken }
      return try Shared.player(from: row)
    }
  }

  public func player(id: Int64) async throws -> PlayerRecord? {
    try await readEach { db in try Shared.fetchPlayer(db, id: id) }
  }

  public func player(phone: String) async throws -> PlayerRecord? {
    try await readEach { db in try db.row(PlayerRowByPhone.self, phone).map(Shared.player(from:)) }
  }

  public func players(ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    guard !ids.isEmpty else { return [:] }
    return try await readEach { db in try Shared.players(db, ids: ids) }
  }

  @discardableResult
  public func replacePassword(id: Int64, current: PasswordDigest, with digest: PasswordDigest)
    async throws -> Bool
  {
    try await writeTransaction { db in
      try db.exists(
        PlayerReplacePassword.self, digest.hash, digest.salt, digest.parameters, id,
        current.hash, current.salt, current.parameters)
    }
  }

  public func passwordParameterCounts() async throws -> [String: Int] {
    try await readEach { db in
      var counts: [String: Int] = [:]
      for row in try db.rows(PlayerPasswordParameterCounts.self) {
        let (parameters, count) = try row.decode((String, Int).self)
        counts[parameters, default: 0] += count
      }
      return counts
    }
  }

  public func updateProfile(id: Int64, _ changes: ProfileChanges) async throws -> PlayerRecord {
    try await writeTransaction { db in
      guard let current = try Shared.fetchPlayer(db, id: id) else {
        throw DomainError.playerNotFound
      }
      if let level = changes.selfLevel {
        try PlayerRules.validateSelfLevel(level, verifiedMaximum: current.verifiedMaxLevel)
      }
      return try Shared.player(
        from: try PlayerRows.returned(
          db.row(
            PlayerUpdateProfile.self, changes.nickname ?? current.nickname,
            changes.selfLevel ?? current.selfLevel, changes.locale ?? current.locale, id),
          PlayerUpdateProfile.self))
    }
  }

  @discardableResult
  public func updateLocation(id: Int64, to location: Coordinate, atUnixMs: Int64) async throws
    -> Int64
  {
    try await writeTransaction { db in
      guard
        let row = try db.row(
          PlayerUpdateLocation.self, location.latitude, location.longitude, atUnixMs, id)
      else { throw DomainError.playerNotFound }
      return try row.decode(Int64.self)
    }
  }

  public func allLocations() async throws -> [(
    playerID: Int64, location: Coordinate, revision: Int64
  )] {
    // In chunks of the id, so that loading a million players never holds a million database
    // rows at once.
    try await readSnapshot { db in
      var locations: [(playerID: Int64, location: Coordinate, revision: Int64)] = []
      var after = Int64.min
      while true {
        let rows = try db.rows(PlayerLocationsAfter.self, after, Int64(PlayerRows.replayChunk))
        for row in rows {
          let (id, latitude, longitude, revision) = try row.decode(
            (Int64, Double, Double, Int64).self)
          locations.append((id, Coordinate(latitude: latitude, longitude: longitude), revision))
          after = id
        }
        guard rows.count == PlayerRows.replayChunk else { return locations }
      }
    }
  }

  // MARK: Sessions

  public func createSession(_ session: SessionRecord) async throws {
    _ = try await writeTransaction { db in
      try db.rows(
        SessionInsert.self, session.tokenHash, session.playerID, session.createdAtUnixMs,
        session.expiresAtUnixMs)
    }
  }

  public func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
    try await readEach { db in
      try db.row(SessionByTokenHash.self, tokenHash).map { try PlayerRows.session(from: $0).1 }
    }
  }

  public func deleteSession(tokenHash: [UInt8]) async throws {
    _ = try await writeTransaction { db in try db.rows(SessionDelete.self, tokenHash) }
  }

  public func deleteSessions(expiredBefore unixMs: Int64) async throws -> Int {
    try await writeTransaction { db in
      try PlayerRows.deleteCounted(db, SessionCountExpired.self, SessionDeleteExpired.self, unixMs)
    }
  }

  // MARK: Events

  // On PostgreSQL, appends for one busy player from many writers on every instance take turns
  // on the player's event queue lock (`queueingEventsOf:`), where serializable transactions
  // meeting at the player's counter would be refused and run again, over and over.

  public func appendEvent(playerID: Int64, payload: [UInt8], atUnixMs: Int64) async throws -> UInt64
  {
    try await writeTransaction(queueingEventsOf: [playerID]) { db in
      try Shared.appendEvent(db, playerID: playerID, payload: payload, atUnixMs: atUnixMs)
    }
  }

  public func appendEvents(_ events: [(playerID: Int64, payload: [UInt8])], atUnixMs: Int64)
    async throws -> [UInt64]
  {
    try await writeTransaction(queueingEventsOf: events.map(\.playerID)) { db in
      try events.map { event in
        try Shared.appendEvent(
          db, playerID: event.playerID, payload: event.payload, atUnixMs: atUnixMs)
      }
    }
  }

  public func events(playerID: Int64, after sequence: UInt64, limit: Int) async throws
    -> [EventRecord]
  {
    try await readEach { db in
      try db.rows(EventsAfter.self, playerID, Int64(clamping: sequence), Int64(limit)).map { row in
        let (sequence, created, payload) = try row.decode((Int64, Int64, [UInt8]).self)
        return EventRecord(
          playerID: playerID, sequence: UInt64(sequence), createdAtUnixMs: created,
          payload: payload)
      }
    }
  }

  public func deleteEvents(createdBefore unixMs: Int64) async throws -> Int {
    try await writeTransaction { db in
      try PlayerRows.deleteCounted(db, EventCountOld.self, EventDeleteOld.self, unixMs)
    }
  }
}

/// What the player statements share.
public enum PlayerRows {
  /// Rows read in one statement of a replay.
  public static let replayChunk = 1000

  /// A row of `token_hash, player_id, created_at_ms, expires_at_ms` after the session's row id
  /// as a session and its row id.
  static func session(from row: StoreRow) throws -> (rowID: Int64, SessionRecord) {
    let (rowID, hash, playerID, created, expires) = try row.decode(
      (Int64, [UInt8], Int64, Int64, Int64).self)
    return (
      rowID,
      SessionRecord(
        tokenHash: hash, playerID: playerID, createdAtUnixMs: created, expiresAtUnixMs: expires)
    )
  }

  /// The row a statement that always returns one (an insert's or update's `RETURNING` of a row
  /// the transaction holds) returned.
  static func returned<Statement: StoreStatement>(_ row: StoreRow?, _ statement: Statement.Type)
    throws -> StoreRow
  {
    guard let row else { throw RowMissing(statement: String(describing: statement)) }
    return row
  }

  /// Deletes the rows `Delete` removes for `value` and returns how many, as `Count` counts them
  /// first in the same transaction (SQLite cannot count a `DELETE`'s rows in one statement). On
  /// PostgreSQL a transaction deleting the same rows at the same time makes one of the two run
  /// again.
  static func deleteCounted<Count: StoreStatement, Delete: StoreStatement>(
    _ db: any StoreSession, _ count: Count.Type, _ delete: Delete.Type, _ value: Int64
  ) throws -> Int {
    let counted = try db.row(count, value)?.decode(Int.self) ?? 0
    if counted > 0 { try db.rows(delete, value) }
    return counted
  }
}

/// A statement that always returns a row (an insert's or update's `RETURNING` of a row the
/// transaction holds) returned none.
struct RowMissing: Error {
  /// The statement's name.
  var statement: String
}

// MARK: Statements

private enum PlayerRowByPhone: StoreStatement {
  static let sql = "SELECT \(Shared.playerColumns) FROM player WHERE phone = $1"
}

private enum PlayerPhoneTaken: StoreStatement {
  static let sql = "SELECT 1 FROM player WHERE phone = $1"
}

private enum PlayerInsert: StoreStatement {
  static let sql = """
    INSERT INTO player (phone, nickname, password_hash, password_salt, password_parameters,
      self_level, locale, joined_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    ON CONFLICT (phone) DO NOTHING
    RETURNING \(Shared.playerColumns)
    """
}

private enum PlayerReplacePassword: StoreStatement {
  static let sql = """
    UPDATE player SET password_hash = $1, password_salt = $2, password_parameters = $3
    WHERE id = $4 AND password_hash = $5 AND password_salt = $6 AND password_parameters = $7
    RETURNING id
    """
}

private enum PlayerPasswordParameterCounts: StoreStatement {
  static let sql = "SELECT password_parameters, count(*) FROM player GROUP BY password_parameters"
}

private enum PlayerUpdateProfile: StoreStatement {
  static let sql = """
    UPDATE player SET nickname = $1, self_level = $2, locale = $3 WHERE id = $4
    RETURNING \(Shared.playerColumns)
    """
}

private enum PlayerUpdateLocation: StoreStatement {
  static let sql = """
    UPDATE player SET latitude = $1, longitude = $2, location_updated_at_ms = $3,
      location_revision = location_revision + 1 WHERE id = $4
    RETURNING location_revision
    """
}

private enum PlayerLocationsAfter: StoreStatement {
  static let sql = """
    SELECT id, latitude, longitude, location_revision FROM player
    WHERE id > $1 AND latitude IS NOT NULL ORDER BY id LIMIT $2
    """
}

private enum PlayersAfter: StoreStatement {
  static let sql = "SELECT \(Shared.playerColumns) FROM player WHERE id > $1 ORDER BY id LIMIT $2"
}

private enum SessionInsert: StoreStatement {
  static let sql = """
    INSERT INTO session (token_hash, player_id, created_at_ms, expires_at_ms)
    VALUES ($1, $2, $3, $4)
    """
}

private enum SessionByTokenHash: StoreStatement {
  static let sql = """
    SELECT row_id, token_hash, player_id, created_at_ms, expires_at_ms FROM session
    WHERE token_hash = $1
    """
  static let sqlite = """
    SELECT rowid, token_hash, player_id, created_at_ms, expires_at_ms FROM session
    WHERE token_hash = ?1
    """
}

private enum SessionDelete: StoreStatement {
  static let sql = "DELETE FROM session WHERE token_hash = $1"
}

private enum SessionCountExpired: StoreStatement {
  static let sql = "SELECT count(*) FROM session WHERE expires_at_ms < $1"
}

private enum SessionDeleteExpired: StoreStatement {
  static let sql = "DELETE FROM session WHERE expires_at_ms < $1"
}

/// The unexpired sessions ($2 is now) after row id $1, in row id order: PostgreSQL's `row_id`
/// column, SQLite's `rowid`.
private enum SessionsAfter: StoreStatement {
  static let sql = """
    SELECT row_id, token_hash, player_id, created_at_ms, expires_at_ms FROM session
    WHERE row_id > $1 AND expires_at_ms > $2 ORDER BY row_id LIMIT $3
    """
  static let sqlite = """
    SELECT rowid, token_hash, player_id, created_at_ms, expires_at_ms FROM session
    WHERE rowid > ?1 AND expires_at_ms > ?2 ORDER BY rowid LIMIT ?3
    """
}

private enum EventsAfter: StoreStatement {
  static let sql = """
    SELECT sequence, created_at_ms, payload FROM event
    WHERE player_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3
    """
}

private enum EventCountOld: StoreStatement {
  static let sql = "SELECT count(*) FROM event WHERE created_at_ms < $1"
}

private enum EventDeleteOld: StoreStatement {
  static let sql = "DELETE FROM event WHERE created_at_ms < $1"
}
