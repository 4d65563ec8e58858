import BadmintonDomain
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import BadmintonStoreSQL
import Foundation
import GRDB

/// The resident memory of the real `badminton-server` process: idle on an empty data folder,
/// and after it has loaded a data folder holding many active availability.
public enum ServerMemory {
  /// Fills a new data folder with `requests` active availability of synthetic players, starting
  /// tomorrow, through the store's own migrations and write methods (without syncing each
  /// write to disk, which only seeding may skip).
  public static func seed(directory: String, requests: Int) async throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = OFF")
      try db.execute(sql: "PRAGMA foreign_keys = ON")
    }
    let pool = try DatabasePool(path: directory + "/badminton.sqlite", configuration: configuration)
    let store = try SQLitePlayerStore(writer: pool)
    let dayMs: Int64 = 86_400_000
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    let world = SyntheticWorld.generate(requests: requests, startUnixMs: (now / dayMs + 1) * dayMs)
    let digest = try await PasswordHasher(cost: .testing).digest("seeded-password")
    // Players go in ten thousand to a transaction, with the statement the store's
    // `createPlayer` runs (one transaction each would take minutes for a million availability).
    var storeIDs: [Int64: Int64] = [:]
    for start in stride(from: 0, to: world.players.count, by: 10_000) {
      let batch = world.players[start..<min(start + 10_000, world.players.count)]
      let created = try await pool.write { db in
        try batch.map { player -> (Int64, Int64) in
          try db.execute(
            sql: """
              INSERT INTO player (phone, nickname, password_hash, password_salt,
                password_parameters, self_level, locale, joined_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
              """,
            arguments: [
              "+1\(String(format: "%010d", player.id))", "Player \(player.id)", Data(digest.hash),
              Data(digest.salt), digest.parameters, min(player.level, 7), "en", now,
            ])
          return (player.id, db.lastInsertedRowID)
        }
      }
      for (id, storeID) in created { storeIDs[id] = storeID }
    }
    for start in stride(from: 0, to: world.requests.count, by: 10_000) {
      let batch = world.requests[start..<min(start + 10_000, world.requests.count)].map {
        var record = MatchingWorkloads.record($0).details
        record.playerID = storeIDs[$0.playerID]!
        record.postedAtUnixMs = now
        return record
      }
      _ = try await store.addRecurringOccurrences(batch) { _ in [] }
    }
    try await pool.close()
  }

  /// Starts `server` on `directory`, waits until it listens and has settled, and returns its
  /// resident memory; the server is then stopped.
  public static func residentMemory(server: String, directory: String) throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: server)
    process.arguments = ["--port", "0", "--data-dir", directory, "--log-level", "error"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer {
      process.terminate()
      process.waitUntilExit()
    }
    // The server prints its address once it listens, after loading everything.
    var line: [UInt8] = []
    while true {
      guard let byte = output.fileHandleForReading.readData(ofLength: 1).first else {
        throw CocoaError(.fileReadUnknown)
      }
      if byte == UInt8(ascii: "\n") { break }
      line.append(byte)
    }
    Thread.sleep(forTimeInterval: 2)
    return ResidentMemory.of(pid: process.processIdentifier) ?? 0
  }
}
