public import BadmintonStore
public import BadmintonStoreSQL
import GRDB

/// Game rooms run the operations written once in `BadmintonStoreSQL` (Rooms.swift).
extension SQLitePlayerStore: RoomStore {}

extension SQLitePlayerStore {
  /// The tables of game rooms. A room's code is unique among open rooms, and a player is in at
  /// most one open room: `room_participant.open` mirrors its room's state so that a partial
  /// unique index can hold that.
  static func registerRoomMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v6: game rooms") { db in
      try db.execute(
        sql: """
          CREATE TABLE room (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            code TEXT NOT NULL CHECK (length(code) = 6),
            mode INTEGER NOT NULL CHECK (mode IN (1, 2)),
            state INTEGER NOT NULL CHECK (state IN (1, 2, 3, 4)),
            owner_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            created_at_ms INTEGER NOT NULL,
            last_activity_at_ms INTEGER NOT NULL,
            match_id INTEGER REFERENCES game(id),
            CHECK ((state = 2) = (match_id IS NOT NULL))
          );
          CREATE UNIQUE INDEX room_open_code ON room(code) WHERE state = 1;
          CREATE INDEX room_code ON room(code, id);
          CREATE INDEX room_activity ON room(state, last_activity_at_ms);
          CREATE TABLE room_participant (
            room_id INTEGER NOT NULL REFERENCES room(id) ON DELETE CASCADE,
            player_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            joined_at_ms INTEGER NOT NULL,
            open INTEGER NOT NULL CHECK (open IN (0, 1)),
            UNIQUE (room_id, player_id)
          );
          CREATE UNIQUE INDEX room_participant_open ON room_participant(player_id) WHERE open = 1;
          CREATE INDEX room_participant_player ON room_participant(player_id, room_id);
          """)
    }
  }
}
