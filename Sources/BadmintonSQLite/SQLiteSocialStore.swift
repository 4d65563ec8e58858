public import BadmintonStore
public import BadmintonStoreSQL
import GRDB

/// Friends, friend requests and blocks run the operations written once in `BadmintonStoreSQL`
/// (Social.swift).
extension SQLitePlayerStore: SocialStore {}

extension SQLitePlayerStore {
  /// The tables of friends, friend requests and blocks.
  /// Blocks get row ids, so that the change feed sees them made and lifted (SQLite tells
  /// nothing of the rows of a table without them).
  static func registerBlockRowIDMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v12: blocks with row ids") { db in
      try db.execute(
        sql: """
          CREATE TABLE block_new (
            blocker_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            blocked_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            blocked_at_ms INTEGER NOT NULL,
            PRIMARY KEY (blocker_id, blocked_id)
          );
          INSERT INTO block_new (blocker_id, blocked_id, blocked_at_ms)
            SELECT blocker_id, blocked_id, blocked_at_ms FROM block;
          DROP TABLE block;
          ALTER TABLE block_new RENAME TO block;
          CREATE INDEX block_blocked ON block(blocked_id);
          """)
    }
  }

  static func registerSocialMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v5: friends, friend requests and blocks") { db in
      try db.execute(
        sql: """
          CREATE TABLE friend_request (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            sender_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            recipient_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            state INTEGER NOT NULL,
            hidden INTEGER NOT NULL DEFAULT 0,
            sent_at_ms INTEGER NOT NULL,
            answered_at_ms INTEGER,
            CHECK (sender_id <> recipient_id)
          );
          CREATE UNIQUE INDEX friend_request_pending ON friend_request(sender_id, recipient_id)
            WHERE state = 1;
          CREATE INDEX friend_request_recipient ON friend_request(recipient_id, id);
          CREATE INDEX friend_request_sender ON friend_request(sender_id, id);
          CREATE TABLE friendship (
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            friend_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            since_ms INTEGER NOT NULL,
            PRIMARY KEY (player_id, friend_id)
          ) WITHOUT ROWID;
          CREATE TABLE block (
            blocker_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            blocked_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            blocked_at_ms INTEGER NOT NULL,
            PRIMARY KEY (blocker_id, blocked_id)
          ) WITHOUT ROWID;
          CREATE INDEX block_blocked ON block(blocked_id);
          """)
    }
  }
}
