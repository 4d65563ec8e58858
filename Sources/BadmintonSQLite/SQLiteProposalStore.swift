import BadmintonDomain
import BadmintonStore
import BadmintonStoreSQL
import GRDB

extension SQLitePlayerStore {
  static func registerMatchListMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v10: matches by player and start") { db in
      try db.execute(
        sql: """
          ALTER TABLE game_participant ADD COLUMN start_ms INTEGER NOT NULL DEFAULT 0;
          UPDATE game_participant
            SET start_ms = (SELECT start_ms FROM game WHERE game.id = game_participant.game_id);
          CREATE INDEX game_participant_player_start
            ON game_participant(player_id, start_ms, game_id);
          """)
    }
  }

}
