import GRDB

extension SQLitePlayerStore: MessageStore {
  /// The tables of direct messages.
  static func registerMessageMigration(_ migrator: inout DatabaseMigrator) {
  }
}
