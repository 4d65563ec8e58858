import BadmintonDomain
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import Foundation
import GRDB

/// The real `badminton-server` process: how long it takes to listen and how much it holds,
/// idle on an empty data folder and after it has loaded a data folder of many players and
/// active availability.
public enum ServerMemory {
  /// What a start measured.
  public struct Start: Sendable {
    /// From the launch to the port accepting a connection.
    public var time: Duration
    /// Resident memory as soon as the port accepted a connection.
    public var residentAtListening: Int
    /// Resident memory after the server has listened for a while (`settle`).
    public var residentSettled: Int
  }

  /// Disk a seeded store takes per player with one availability, with room to spare (the
  /// rows, their indexes and the write-ahead log while seeding).
  public static let diskBytesPerPlayer = 700

  /// Memory a server that loaded a seeded store holds per player with one availability, with
  /// room to spare, and what it holds besides: what the benchmark checks is available first.
  public static func memoryNeeded(players: Int) -> Int { 512 << 20 + players * 700 }

  /// Fills a new data folder with `count` synthetic players, each with one active availability
  /// from tomorrow on (players without a stored location, as `Benchmarks/load/seed.py` stores
  /// them). The schema comes from the store's own migrations; the rows are then written with
  /// the columns and encodings the store's own inserts use, 100,000 to a transaction, without
  /// syncing to disk (which only seeding may skip), and without holding the players in memory.
  /// Returns how long it took.
  @discardableResult
  public static func seed(directory: String, players count: Int) async throws -> Duration {
    let clock = ContinuousClock()
    let started = clock.now
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = OFF")
      try db.execute(sql: "PRAGMA foreign_keys = ON")
      try db.execute(sql: "PRAGMA cache_size = -262144")
    }
    let pool = try DatabasePool(path: directory + "/badminton.sqlite", configuration: configuration)
    // The schema: the store migrates it. The store is let go before the rows go in, so that its
    // change observer does not collect them.
    do { _ = try SQLitePlayerStore(writer: pool) }
    try await pool.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA synchronous = OFF")
    }
    let dayMs: Int64 = 86_400_000
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    let digest = try await PasswordHasher(cost: .testing).digest("seeded-password")
    let hash = Data(digest.hash)
    let salt = Data(digest.salt)
    let parameters = digest.parameters

    // The players and their availability, a batch of them generated and written at a time.
    typealias Pair = (player: SyntheticPlayer, request: MatchRequest)
    let batchSize = 100_000
    var batch: [Pair] = []
    batch.reserveCapacity(batchSize)
    func write(_ pairs: [Pair]) throws {
      try pool.write { db in
        let players = try db.cachedStatement(
          sql: """
            INSERT INTO player (id, phone, nickname, password_hash, password_salt,
              password_parameters, self_level, locale, joined_at_ms)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let availability = try db.cachedStatement(
          sql: """
            INSERT INTO availability (id, player_id, mode, local_date, start_minute, end_minute,
              time_zone, start_ms, end_ms, latitude, longitude, radius_miles, skill_tolerance,
              posted_at_ms, source, recurring_key, state)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
            """)
        for (player, request) in pairs {
          try players.execute(arguments: [
            player.id, "+1\(String(format: "%010d", player.id))", "Player \(player.id)", hash,
            salt, parameters, min(player.level, 7), "en", now,
          ])
          let new = MatchingWorkloads.record(request).details
          try availability.execute(arguments: [
            request.id, player.id, new.mode.rawValue, new.date.description, new.startMinute,
            new.endMinute, new.timeZone, new.slot.startUnixMs, new.slot.endUnixMs,
            new.location.latitude, new.location.longitude, new.radiusMiles, new.skillTolerance,
            now, AvailabilitySource.posted.rawValue, AvailabilityState.active.rawValue,
          ])
        }
      }
    }
    try SyntheticWorld.eachPlayerWithAvailability(
      count, startUnixMs: (now / dayMs + 1) * dayMs
    ) { player, request in
      batch.append((player, request))
      if batch.count == batchSize {
        try write(batch)
        batch.removeAll(keepingCapacity: true)
      }
    }
    if !batch.isEmpty { try write(batch) }
    try await pool.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }
    try pool.close()
    return clock.now - started
  }

  /// Starts `server` on `directory` (with `arguments` besides), measures how long it took to
  /// listen and its resident memory then and after `settle`, and stops it. Throws when it does
  /// not listen within `limit`.
  public static func start(
    server: String, directory: String, arguments: [String] = [], settle: Duration = .seconds(2),
    within limit: Duration
  ) throws -> Start {
    let launched = try LaunchedServer(
      executable: server,
      arguments: ["--data-dir", directory, "--log-level", "error", "--shutdown-grace-seconds", "0"]
        + arguments,
      within: limit)
    defer { launched.stop() }
    Thread.sleep(forTimeInterval: settle.seconds)
    guard launched.process.isRunning else {
      throw BenchmarkShortfall("badminton-server on \(directory) exited after it listened")
    }
    return Start(
      time: launched.startTime, residentAtListening: launched.residentAtListening,
      residentSettled: ResidentMemory.of(pid: launched.pid) ?? 0)
  }
}
