import GRDB

extension SQLitePlayerStore: RoomStore {
  /// The tables of game rooms.
  static func registerRoomMigration(_ migrator: inout DatabaseMigrator) {
  }
}
