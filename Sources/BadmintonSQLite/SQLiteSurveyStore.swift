public import BadmintonStore
public import BadmintonStoreSQL
import GRDB

/// Surveys run the operations written once in `BadmintonStoreSQL` (Surveys.swift).
extension SQLitePlayerStore: SurveyStore {}

extension SQLitePlayerStore {
  /// Match results, surveys, and the exact sums behind each player's reputation.
  static func registerSurveyMigration(_ migrator: inout DatabaseMigrator) {
    migrator.registerMigration("v9: match results, surveys and reputation") { db in
      try db.execute(
        sql: """
          ALTER TABLE game ADD COLUMN winning_team INTEGER;
          ALTER TABLE game ADD COLUMN completed_at_ms INTEGER;
          ALTER TABLE game ADD COLUMN completed_by INTEGER;
          ALTER TABLE player ADD COLUMN skill_deviation_sum INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE player ADD COLUMN punctual_count INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE player ADD COLUMN character_sum INTEGER NOT NULL DEFAULT 0;
          CREATE TABLE survey (
            game_id INTEGER NOT NULL REFERENCES game(id) ON DELETE CASCADE,
            evaluator_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            state INTEGER NOT NULL,
            due_at_ms INTEGER NOT NULL,
            submitted_at_ms INTEGER,
            PRIMARY KEY (game_id, evaluator_id)
          ) WITHOUT ROWID;
          CREATE INDEX survey_evaluator ON survey(evaluator_id, state, due_at_ms);
          CREATE INDEX survey_due ON survey(state, due_at_ms);
          CREATE TABLE survey_rating (
            game_id INTEGER NOT NULL,
            evaluator_id INTEGER NOT NULL,
            rated_id INTEGER NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            skill_level INTEGER NOT NULL CHECK (skill_level BETWEEN 1 AND 9),
            punctual INTEGER NOT NULL CHECK (punctual IN (0, 1)),
            character INTEGER NOT NULL CHECK (character BETWEEN 1 AND 5),
            PRIMARY KEY (game_id, evaluator_id, rated_id),
            FOREIGN KEY (game_id, evaluator_id) REFERENCES survey(game_id, evaluator_id)
              ON DELETE CASCADE
          ) WITHOUT ROWID;
          """)
    }
  }
}
