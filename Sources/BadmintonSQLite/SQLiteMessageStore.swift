public import BadmintonStore
import BadmintonStoreSQL
import GRDB

/// Direct messages run the operations written once in `BadmintonStoreSQL` (Messages.swift).
extension SQLitePlayerStore: MessageStore {}

extension SQLitePlayerStore {
  /// The tables of direct messages.
  ///
  /// `message_thread` holds one row per pair of players (lower id first). `message_thread_member`
  /// holds one row per player who can see the thread, with the message id they cleared it
  /// through; a recipient gets theirs with the first message they can see, so a thread of hidden
  /// messages only does not exist for them. `direct_message` is indexed by thread and id (a page
  /// of a thread reads only its own rows), by sender and by recipient with id (SyncMessages), by
  /// sender and client message id (unique: the idempotency of SendMessage), and by the unread
  /// messages of each recipient.
  static func registerMessageMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v7: direct messages") { db in
      try db.execute(
        sql: """
          CREATE TABLE message_thread (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            low_player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            high_player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            created_at_ms INTEGER NOT NULL,
            CHECK (low_player_id < high_player_id),
            UNIQUE (low_player_id, high_player_id)
          );
          CREATE INDEX message_thread_high ON message_thread(high_player_id);
          CREATE TABLE message_thread_member (
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            thread_id INTEGER NOT NULL REFERENCES message_thread(id) ON DELETE CASCADE,
            other_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            cleared_through_id INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (player_id, thread_id)
          ) WITHOUT ROWID;
          CREATE INDEX message_thread_member_thread ON message_thread_member(thread_id);
          CREATE TABLE direct_message (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            thread_id INTEGER NOT NULL REFERENCES message_thread(id) ON DELETE CASCADE,
            sender_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            recipient_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            client_message_id TEXT NOT NULL,
            text TEXT NOT NULL,
            sent_at_ms INTEGER NOT NULL,
            delivered_at_ms INTEGER,
            read_at_ms INTEGER,
            hidden INTEGER NOT NULL DEFAULT 0,
            CHECK (sender_id <> recipient_id)
          );
          CREATE UNIQUE INDEX direct_message_client_id
            ON direct_message(sender_id, client_message_id);
          CREATE INDEX direct_message_thread ON direct_message(thread_id, id);
          CREATE INDEX direct_message_sender ON direct_message(sender_id, id);
          CREATE INDEX direct_message_recipient ON direct_message(recipient_id, id);
          CREATE INDEX direct_message_unread ON direct_message(recipient_id, thread_id)
            WHERE read_at_ms IS NULL AND hidden = 0;
          """)
    }
  }
}
