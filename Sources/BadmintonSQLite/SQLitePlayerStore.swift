public import BadmintonDomain
public import BadmintonStore
import Foundation
public import GRDB

/// The embedded store: SQLite through GRDB. On disk it is a `DatabasePool` in WAL mode with
/// `synchronous = FULL`, so a committed write survives the process being killed (and the
/// machine losing power); tests use an in-memory `DatabaseQueue`.
public final class SQLitePlayerStore: PlayerStore {
  let writer: any DatabaseWriter
  /// Every committed write's changes, in commit order: what the in-memory state is built from.
  public let feed = ChangeFeed()
  /// Commits concurrent writes in one transaction; the writes that are many and small go
  /// through it.
  let grouped: GroupCommit

  private let observer: ChangeObserver
  /// Times the commits (see `observeCommitDurations`).
  let commitTimer = CommitTimer()

  /// A store on `writer`, migrated to the current schema; from then on every committed write
  /// reaches `feed`.
  public init(writer: any DatabaseWriter) throws {
    self.writer = writer
    grouped = GroupCommit(writer: writer)
    try Self.migrator.migrate(writer)
    observer = ChangeObserver(feed: feed)
    writer.add(transactionObserver: commitTimer, extent: .observerLifetime)
    writer.add(transactionObserver: observer, extent: .observerLifetime)
  }

  /// Opens (or creates) the database file `badminton.sqlite` in `directory`.
  public static func open(directory: String) throws -> SQLitePlayerStore {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = FULL")
      try db.execute(sql: "PRAGMA foreign_keys = ON")
    }
    configuration.busyMode = .timeout(5)
    let pool = try DatabasePool(path: directory + "/badminton.sqlite", configuration: configuration)
    // GRDB turns WAL mode on after `prepareDatabase` has run, and with it sets `synchronous =
    // NORMAL` on the writer (which syncs the log only at checkpoints): set FULL again, so that
    // every commit is synced before it is acknowledged.
    try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    return try SQLitePlayerStore(writer: pool)
  }

  /// An empty store in memory, for tests.
  public static func inMemory() throws -> SQLitePlayerStore {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
    return try SQLitePlayerStore(writer: DatabaseQueue(configuration: configuration))
  }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1: players, sessions, verifications") { db in
      try db.execute(
        sql: """
          CREATE TABLE player (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            phone TEXT NOT NULL UNIQUE,
            nickname TEXT NOT NULL,
            password_hash BLOB NOT NULL,
            password_salt BLOB NOT NULL,
            password_parameters TEXT NOT NULL,
            self_level INTEGER NOT NULL CHECK (self_level BETWEEN 1 AND 9),
            verified_max_level INTEGER NOT NULL DEFAULT 7 CHECK (verified_max_level BETWEEN 7 AND 9),
            locale TEXT NOT NULL,
            joined_at_ms INTEGER NOT NULL,
            latitude REAL,
            longitude REAL,
            location_updated_at_ms INTEGER,
            location_revision INTEGER NOT NULL DEFAULT 0,
            total_games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            peer_rating_sum INTEGER NOT NULL DEFAULT 0,
            peer_rating_count INTEGER NOT NULL DEFAULT 0,
            skill_accuracy REAL NOT NULL DEFAULT 0,
            punctuality_percentage REAL NOT NULL DEFAULT 100,
            character_rating REAL NOT NULL DEFAULT 3,
            evaluation_count INTEGER NOT NULL DEFAULT 0
          );
          CREATE TABLE session (
            token_hash BLOB PRIMARY KEY,
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            created_at_ms INTEGER NOT NULL,
            expires_at_ms INTEGER NOT NULL
          );
          CREATE INDEX session_expiry ON session(expires_at_ms);
          CREATE TABLE verification (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            kind INTEGER NOT NULL,
            state INTEGER NOT NULL,
            content_type TEXT NOT NULL,
            document BLOB NOT NULL,
            submitted_at_ms INTEGER NOT NULL,
            reviewed_at_ms INTEGER,
            reviewer_id INTEGER,
            review_note TEXT NOT NULL DEFAULT ''
          );
          CREATE INDEX verification_player ON verification(player_id);
          CREATE INDEX verification_state ON verification(state);
          """)
    }
    migrator.registerMigration("v2: event inbox") { db in
      try db.execute(
        sql: """
          ALTER TABLE player ADD COLUMN last_event_sequence INTEGER NOT NULL DEFAULT 0;
          CREATE TABLE event (
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            sequence INTEGER NOT NULL,
            created_at_ms INTEGER NOT NULL,
            payload BLOB NOT NULL,
            PRIMARY KEY (player_id, sequence)
          );
          CREATE INDEX event_created ON event(created_at_ms);
          """)
    }
    migrator.registerMigration("v3: availability and recurring slots") { db in
      try db.execute(
        sql: """
          CREATE TABLE availability (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            mode INTEGER NOT NULL,
            local_date TEXT NOT NULL,
            start_minute INTEGER NOT NULL,
            end_minute INTEGER NOT NULL,
            time_zone TEXT NOT NULL,
            start_ms INTEGER NOT NULL,
            end_ms INTEGER NOT NULL,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            radius_miles REAL NOT NULL,
            skill_tolerance INTEGER NOT NULL,
            posted_at_ms INTEGER NOT NULL,
            source INTEGER NOT NULL,
            recurring_key TEXT,
            state INTEGER NOT NULL
          );
          CREATE INDEX availability_player ON availability(player_id, state, end_ms);
          CREATE INDEX availability_active ON availability(state, end_ms);
          CREATE UNIQUE INDEX availability_recurring ON availability(player_id, recurring_key)
            WHERE recurring_key IS NOT NULL;
          CREATE TABLE recurring_settings (
            player_id INTEGER PRIMARY KEY REFERENCES player(id) ON DELETE CASCADE,
            time_zone TEXT NOT NULL,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            radius_miles REAL NOT NULL,
            skill_tolerance INTEGER NOT NULL
          );
          CREATE TABLE recurring_slot (
            player_id INTEGER NOT NULL REFERENCES recurring_settings(player_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            weekday INTEGER NOT NULL,
            start_minute INTEGER NOT NULL,
            end_minute INTEGER NOT NULL,
            mode INTEGER NOT NULL,
            active INTEGER NOT NULL,
            PRIMARY KEY (player_id, position)
          );
          """)
    }
    migrator.registerMigration("v4: proposals and matches") { db in
      try db.execute(
        sql: """
          CREATE TABLE proposal (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            proposer_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            proposer_availability_id INTEGER NOT NULL,
            mode INTEGER NOT NULL,
            start_ms INTEGER NOT NULL,
            end_ms INTEGER NOT NULL,
            state INTEGER NOT NULL,
            created_at_ms INTEGER NOT NULL,
            expires_at_ms INTEGER NOT NULL,
            match_id INTEGER
          );
          CREATE INDEX proposal_pending ON proposal(state, expires_at_ms);
          CREATE TABLE proposal_invitee (
            proposal_id INTEGER NOT NULL REFERENCES proposal(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            availability_id INTEGER NOT NULL,
            answer INTEGER NOT NULL,
            PRIMARY KEY (proposal_id, player_id)
          );
          CREATE TABLE game (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            mode INTEGER NOT NULL,
            start_ms INTEGER NOT NULL,
            end_ms INTEGER NOT NULL,
            state INTEGER NOT NULL,
            proposal_id INTEGER NOT NULL,
            confirmed_at_ms INTEGER NOT NULL,
            cancelled_by INTEGER,
            cancelled_at_ms INTEGER
          );
          CREATE INDEX game_end ON game(state, end_ms);
          CREATE TABLE game_participant (
            game_id INTEGER NOT NULL REFERENCES game(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            availability_id INTEGER NOT NULL,
            team INTEGER NOT NULL,
            PRIMARY KEY (game_id, player_id)
          );
          CREATE INDEX game_participant_player ON game_participant(player_id);
          """)
    }
    registerSocialMigration(&migrator)
    registerRoomMigration(&migrator)
    registerMessageMigration(&migrator)
    registerScheduleMigration(&migrator)
    registerSurveyMigration(&migrator)
    registerMatchListMigration(&migrator)
    registerDocumentPieceMigration(&migrator)
    registerBlockRowIDMigration(&migrator)
    return migrator
  }

  // MARK: Players

  public func createPlayer(_ new: NewPlayer) async throws -> PlayerRecord {
    try await grouped.write { db in
      if try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT 1 FROM player WHERE phone = ?"), arguments: [new.phone])
        != nil
      {
        throw DomainError(
          .alreadyExists, "PHONE_TAKEN", en: "This phone number is already registered.",
          zhCN: "该手机号已注册。")
      }
      try db.execute(
        sql: """
          INSERT INTO player (phone, nickname, password_hash, password_salt, password_parameters,
            self_level, locale, joined_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          new.phone, new.nickname, Data(new.password.hash), Data(new.password.salt),
          new.password.parameters, new.selfLevel, new.locale, new.joinedAtUnixMs,
        ])
      return try Self.fetchPlayer(db, id: db.lastInsertedRowID)!
    }
  }

  public func player(id: Int64) async throws -> PlayerRecord? {
    try await writer.read { db in try Self.fetchPlayer(db, id: id) }
  }

  public func player(phone: String) async throws -> PlayerRecord? {
    try await writer.read { db in
      try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM player WHERE phone = ?"), arguments: [phone]
      )
      .map(Self.player(from:))
    }
  }

  public func players(ids: [Int64]) async throws -> [Int64: PlayerRecord] {
    guard !ids.isEmpty else { return [:] }
    return try await writer.read { db in
      let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
      let rows = try Row.fetchAll(
        db, sql: "SELECT * FROM player WHERE id IN (\(placeholders))",
        arguments: StatementArguments(ids))
      return Dictionary(
        uniqueKeysWithValues: rows.map { (($0["id"] as Int64), Self.player(from: $0)) })
    }
  }

  @discardableResult
  public func replacePassword(id: Int64, current: PasswordDigest, with digest: PasswordDigest)
    async throws -> Bool
  {
    try await grouped.write { db in
      try db.execute(
        sql: """
          UPDATE player SET password_hash = ?, password_salt = ?, password_parameters = ?
          WHERE id = ? AND password_hash = ? AND password_salt = ? AND password_parameters = ?
          """,
        arguments: [
          Data(digest.hash), Data(digest.salt), digest.parameters, id, Data(current.hash),
          Data(current.salt), current.parameters,
        ])
      return db.changesCount > 0
    }
  }

  public func passwordParameterCounts() async throws -> [String: Int] {
    try await writer.read { db in
      let rows = try Row.fetchAll(
        try db.cachedStatement(
          sql: "SELECT password_parameters, COUNT(*) AS n FROM player GROUP BY password_parameters")
      )
      return Dictionary(
        rows.map { (($0["password_parameters"] as String), ($0["n"] as Int)) },
        uniquingKeysWith: +)
    }
  }

  public func updateProfile(id: Int64, _ changes: ProfileChanges) async throws -> PlayerRecord {
    try await grouped.write { db in
      guard let current = try Self.fetchPlayer(db, id: id) else { throw DomainError.playerNotFound }
      if let level = changes.selfLevel {
        try PlayerRules.validateSelfLevel(level, verifiedMaximum: current.verifiedMaxLevel)
      }
      try db.execute(
        sql: "UPDATE player SET nickname = ?, self_level = ?, locale = ? WHERE id = ?",
        arguments: [
          changes.nickname ?? current.nickname, changes.selfLevel ?? current.selfLevel,
          changes.locale ?? current.locale, id,
        ])
      return try Self.fetchPlayer(db, id: id)!
    }
  }

  @discardableResult
  public func updateLocation(id: Int64, to location: Coordinate, atUnixMs: Int64) async throws
    -> Int64
  {
    try await grouped.write { db in
      try db.execute(
        sql: """
          UPDATE player SET latitude = ?, longitude = ?, location_updated_at_ms = ?,
            location_revision = location_revision + 1 WHERE id = ?
          """,
        arguments: [location.latitude, location.longitude, atUnixMs, id])
      if db.changesCount == 0 { throw DomainError.playerNotFound }
      return try Int64.fetchOne(
        try db.cachedStatement(sql: "SELECT location_revision FROM player WHERE id = ?"),
        arguments: [id])!
    }
  }

  public func allLocations() async throws
    -> [(playerID: Int64, location: Coordinate, revision: Int64)]
  {
    // Row by row through a cursor, so that loading a million players never holds a million
    // database rows at once.
    try await writer.read { db in
      try Array(
        Row.fetchCursor(
          try db.cachedStatement(
            sql:
              "SELECT id, latitude, longitude, location_revision FROM player WHERE latitude IS NOT NULL"
          )
        ).map { row in
          (
            playerID: row["id"] as Int64,
            location: Coordinate(latitude: row["latitude"], longitude: row["longitude"]),
            revision: row["location_revision"] as Int64
          )
        })
    }
  }

  // MARK: Sessions

  public func createSession(_ session: SessionRecord) async throws {
    try await grouped.write { db in
      try db.execute(
        sql:
          "INSERT INTO session (token_hash, player_id, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?)",
        arguments: [
          Data(session.tokenHash), session.playerID, session.createdAtUnixMs,
          session.expiresAtUnixMs,
        ])
    }
  }

  public func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
    try await writer.read { db in
      try Row.fetchOne(
        try db.cachedStatement(sql: "SELECT * FROM session WHERE token_hash = ?"),
        arguments: [Data(tokenHash)]
      )
      .map { row in
        SessionRecord(
          tokenHash: [UInt8](row["token_hash"] as Data), playerID: row["player_id"],
          createdAtUnixMs: row["created_at_ms"], expiresAtUnixMs: row["expires_at_ms"])
      }
    }
  }

  public func deleteSession(tokenHash: [UInt8]) async throws {
    try await grouped.write { db in
      try db.execute(sql: "DELETE FROM session WHERE token_hash = ?", arguments: [Data(tokenHash)])
    }
  }

  public func deleteSessions(expiredBefore unixMs: Int64) async throws -> Int {
    try await grouped.write { db in
      try db.execute(sql: "DELETE FROM session WHERE expires_at_ms < ?", arguments: [unixMs])
      return db.changesCount
    }
  }

  // MARK: Verifications

  public func createVerification(
    playerID: Int64, kind: ChampionshipKind, contentType: String, document: [UInt8], atUnixMs: Int64
  ) async throws -> VerificationRecord {
    try await grouped.write { db in
      try db.execute(
        sql: """
          INSERT INTO document_upload (player_id, content_type, total_size, received, expires_at_ms)
          VALUES (?, ?, ?, ?, NULL)
          """,
        arguments: [playerID, contentType, document.count, document.count])
      let uploadID = db.lastInsertedRowID
      try db.execute(
        sql: "INSERT INTO document_piece (upload_id, start, data) VALUES (?, 0, ?)",
        arguments: [uploadID, Data(document)])
      return try Self.insertVerification(
        db, playerID: playerID, kind: kind, contentType: contentType, uploadID: uploadID,
        size: Int64(document.count), atUnixMs: atUnixMs)
    }
  }

  public func verification(id: Int64) async throws -> VerificationRecord? {
    try await writer.read { db in try Self.fetchVerification(db, id: id) }
  }

  public func verifications(playerID: Int64) async throws -> [VerificationRecord] {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(
          sql:
            "SELECT \(Self.verificationColumns) FROM verification WHERE player_id = ? ORDER BY id DESC"
        ),
        arguments: [playerID]
      ).map(Self.verification(from:))
    }
  }

  public func pendingVerifications() async throws -> [VerificationRecord] {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(
          sql: "SELECT \(Self.verificationColumns) FROM verification WHERE state = ? ORDER BY id"),
        arguments: [ReviewState.pending.rawValue]
      ).map(Self.verification(from:))
    }
  }

  public func verificationDocument(id: Int64) async throws -> [UInt8]? {
    try await writer.read { db in
      guard
        let uploadID = try Int64.fetchOne(
          try db.cachedStatement(sql: "SELECT document_upload_id FROM verification WHERE id = ?"),
          arguments: [id])
      else { return nil }
      return try Data.fetchAll(
        try db.cachedStatement(
          sql: "SELECT data FROM document_piece WHERE upload_id = ? ORDER BY start"),
        arguments: [uploadID]
      ).reduce(into: [UInt8]()) { $0 += $1 }
    }
  }

  public func reviewVerification(
    id: Int64, approve: Bool, note: String, reviewerID: Int64, atUnixMs: Int64,
    notify: @escaping @Sendable (VerificationRecord) -> [UInt8]
  ) async throws -> ReviewOutcome {
    try await grouped.write { db in
      guard let request = try Self.fetchVerification(db, id: id) else {
        throw DomainError(
          .notFound, "VERIFICATION_NOT_FOUND", en: "There is no such verification request.",
          zhCN: "没有该认证申请。")
      }
      guard request.state == .pending else {
        throw DomainError(
          .failedPrecondition, "VERIFICATION_ALREADY_REVIEWED",
          en: "This verification request was already reviewed.", zhCN: "该认证申请已审核。")
      }
      let state = approve ? ReviewState.approved : .rejected
      try db.execute(
        sql:
          "UPDATE verification SET state = ?, reviewed_at_ms = ?, reviewer_id = ?, review_note = ? WHERE id = ?",
        arguments: [state.rawValue, atUnixMs, reviewerID, note, id])
      if approve {
        try db.execute(
          sql: "UPDATE player SET verified_max_level = max(verified_max_level, ?) WHERE id = ?",
          arguments: [request.kind.allowedLevel, request.playerID])
      }
      let reviewed = try Self.fetchVerification(db, id: id)!
      let sequence = try Self.appendEvent(
        db, playerID: request.playerID, payload: notify(reviewed), atUnixMs: atUnixMs)
      return ReviewOutcome(verification: reviewed, eventSequence: sequence)
    }
  }

  // MARK: Events

  public func appendEvent(playerID: Int64, payload: [UInt8], atUnixMs: Int64) async throws
    -> UInt64
  {
    try await grouped.write { db in
      try Self.appendEvent(db, playerID: playerID, payload: payload, atUnixMs: atUnixMs)
    }
  }

  public func appendEvents(_ events: [(playerID: Int64, payload: [UInt8])], atUnixMs: Int64)
    async throws -> [UInt64]
  {
    try await grouped.write { db in
      try events.map { event in
        try Self.appendEvent(
          db, playerID: event.playerID, payload: event.payload, atUnixMs: atUnixMs)
      }
    }
  }

  /// Appends `events` inside the caller's transaction.
  static func append(_ db: Database, _ events: OutgoingEvents, atUnixMs: Int64) throws {
    for event in events {
      _ = try appendEvent(db, playerID: event.playerID, payload: event.payload, atUnixMs: atUnixMs)
    }
  }

  /// Appends an event inside the caller's transaction: the player's counter gives its sequence.
  /// The statements are prepared once per connection: every message and receipt runs them.
  private static func appendEvent(
    _ db: Database, playerID: Int64, payload: [UInt8], atUnixMs: Int64
  ) throws -> UInt64 {
    guard
      let sequence = try Int64.fetchOne(
        db.cachedStatement(
          sql: """
            UPDATE player SET last_event_sequence = last_event_sequence + 1 WHERE id = ?
            RETURNING last_event_sequence
            """),
        arguments: [playerID])
    else { throw DomainError.playerNotFound }
    try db.cachedStatement(
      sql: "INSERT INTO event (player_id, sequence, created_at_ms, payload) VALUES (?, ?, ?, ?)"
    ).execute(arguments: [playerID, sequence, atUnixMs, Data(payload)])
    return UInt64(sequence)
  }

  public func events(playerID: Int64, after sequence: UInt64, limit: Int) async throws
    -> [EventRecord]
  {
    try await writer.read { db in
      try Row.fetchAll(
        try db.cachedStatement(
          sql: """
            SELECT sequence, created_at_ms, payload FROM event
            WHERE player_id = ? AND sequence > ? ORDER BY sequence LIMIT ?
            """),
        arguments: [playerID, Int64(clamping: sequence), limit]
      ).map { row in
        EventRecord(
          playerID: playerID, sequence: UInt64(row["sequence"] as Int64),
          createdAtUnixMs: row["created_at_ms"], payload: [UInt8](row["payload"] as Data))
      }
    }
  }

  public func deleteEvents(createdBefore unixMs: Int64) async throws -> Int {
    try await grouped.write { db in
      try db.execute(sql: "DELETE FROM event WHERE created_at_ms < ?", arguments: [unixMs])
      return db.changesCount
    }
  }

  // MARK: Rows

  private static let verificationColumns =
    "id, player_id, kind, state, content_type, document_size, submitted_at_ms, reviewed_at_ms, reviewer_id, review_note"

  static func fetchPlayer(_ db: Database, id: Int64) throws -> PlayerRecord? {
    try Row.fetchOne(
      try db.cachedStatement(sql: "SELECT * FROM player WHERE id = ?"), arguments: [id]
    ).map(
      player(from:))
  }

  static func fetchVerification(_ db: Database, id: Int64) throws -> VerificationRecord? {
    try Row.fetchOne(
      try db.cachedStatement(sql: "SELECT \(verificationColumns) FROM verification WHERE id = ?"),
      arguments: [id]
    ).map(verification(from:))
  }

  static func player(from row: Row) -> PlayerRecord {
    let latitude: Double? = row["latitude"]
    let longitude: Double? = row["longitude"]
    return PlayerRecord(
      id: row["id"], phone: row["phone"], nickname: row["nickname"],
      password: PasswordDigest(
        hash: [UInt8](row["password_hash"] as Data), salt: [UInt8](row["password_salt"] as Data),
        parameters: row["password_parameters"]),
      selfLevel: row["self_level"], verifiedMaxLevel: row["verified_max_level"],
      locale: row["locale"], joinedAtUnixMs: row["joined_at_ms"],
      location: latitude.flatMap { lat in longitude.map { Coordinate(latitude: lat, longitude: $0) }
      },
      locationUpdatedAtUnixMs: row["location_updated_at_ms"],
      totalGames: row["total_games"], wins: row["wins"],
      peerRatingSum: row["peer_rating_sum"], peerRatingCount: row["peer_rating_count"],
      reputation: ReputationScore(
        averageSkillAccuracy: row["skill_accuracy"],
        punctualityPercentage: row["punctuality_percentage"],
        averageCharacterRating: row["character_rating"], evaluationCount: row["evaluation_count"]))
  }

  private static func verification(from row: Row) -> VerificationRecord {
    VerificationRecord(
      id: row["id"], playerID: row["player_id"],
      kind: ChampionshipKind(rawValue: row["kind"]) ?? .regional,
      state: ReviewState(rawValue: row["state"]) ?? .pending,
      contentType: row["content_type"], documentSize: row["document_size"],
      submittedAtUnixMs: row["submitted_at_ms"], reviewedAtUnixMs: row["reviewed_at_ms"],
      reviewerID: row["reviewer_id"], reviewNote: row["review_note"])
  }
}
