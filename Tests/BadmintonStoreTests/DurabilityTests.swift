import BadmintonDomain
import BadmintonStoreSQL
import Foundation
import GRDB
import Testing

@testable import BadmintonSQLite
@testable import BadmintonStore

@Suite("Player store on disk: durability across reopening")
struct DurabilityTests {
  @Test("the store on disk logs ahead (WAL) and syncs the log at every commit (synchronous FULL)")
  func onDisk_syncsEveryCommit() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = try SQLitePlayerStore.open(directory: directory.path)
    let (journal, synchronous) = try await store.writer.writeWithoutTransaction { db in
      (
        try String.fetchOne(db, sql: "PRAGMA journal_mode"),
        try Int.fetchOne(db, sql: "PRAGMA synchronous")
      )
    }
    #expect(journal == "wal")
    // 2 is FULL; GRDB's WAL set-up alone leaves 1, NORMAL.
    #expect(synchronous == 2)
  }

  @Test("players, sessions and locations survive closing and reopening the database")
  func reopen_keepsEverything() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }

    let session = SessionRecord(
      tokenHash: [0x10, 0x20, 0x30, 0x40], playerID: 0, createdAtUnixMs: 1_700_000_000_000,
      expiresAtUnixMs: 1_702_592_000_000)
    let court = Coordinate(latitude: 22.5431, longitude: 114.0579)
    let created = try await writeOnce(
      in: directory, session: session, location: court)

    // The first store is gone: closing its last connection checkpoints and removes the log.
    #expect(!directory.fileExists("badminton.sqlite-wal"))
    // A new store on the same directory sees everything.
    let reopened = try SQLitePlayerStore.open(directory: directory.path)
    let player = try #require(try await reopened.player(id: created.id))
    #expect(player.phone == created.phone)
    #expect(player.nickname == created.nickname)
    #expect(player.password == created.password)
    #expect(player.location == court)
    #expect(player.locationUpdatedAtUnixMs == 1_700_000_123_000)
    #expect(try await reopened.player(phone: created.phone)?.id == created.id)
    var expectedSession = session
    expectedSession.playerID = created.id
    #expect(try await reopened.session(tokenHash: session.tokenHash) == expectedSession)
    let locations = try await reopened.allLocations()
    #expect(locations.count == 1)
    #expect(locations.first?.playerID == created.id)
    #expect(locations.first?.location == court)

    // The reopened store keeps registering where the first left off.
    let next = try await reopened.createPlayer(StoreFixtures.newPlayer(phone: "+8613900139000"))
    #expect(next.id != created.id)
    let duplicate = await #expect(throws: DomainError.self) {
      _ = try await reopened.createPlayer(StoreFixtures.newPlayer(phone: created.phone))
    }
    #expect(duplicate?.reason == "PHONE_TAKEN")
  }

  /// Opens a store, writes a player, a session and a location, checks the files of a WAL
  /// database, and lets the store go.
  private func writeOnce(
    in directory: TemporaryDirectory, session: SessionRecord, location: Coordinate
  ) async throws -> PlayerRecord {
    let store = try SQLitePlayerStore.open(directory: directory.path)
    let player = try await store.createPlayer(
      StoreFixtures.newPlayer(phone: "+8613800138000", nickname: "深圳球友"))
    var owned = session
    owned.playerID = player.id
    try await store.createSession(owned)
    try await store.updateLocation(id: player.id, to: location, atUnixMs: 1_700_000_123_000)

    #expect(directory.fileExists("badminton.sqlite"))
    // A write-ahead log beside the database while it is open means the journal mode is WAL.
    #expect(directory.fileExists("badminton.sqlite-wal"))
    return player
  }
}
