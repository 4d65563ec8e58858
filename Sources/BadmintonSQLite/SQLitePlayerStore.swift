public import BadmintonStore
import BadmintonStoreSQL
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
    registerAdministrationMigration(&migrator)
    registerWriteKeyMigration(&migrator)
    return migrator
  }
}
