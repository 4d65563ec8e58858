public import BadmintonDomain
public import BadmintonStore

/// What several areas of the store read and write: players' and matches' rows, and events.
public enum Shared {
  /// The player columns every player statement selects, in `player(from:)`'s order.
  public static let playerColumns = """
    id, phone, nickname, password_hash, password_salt, password_parameters, self_level,
    verified_max_level, locale, joined_at_ms, latitude, longitude, location_updated_at_ms,
    total_games, wins, peer_rating_sum, peer_rating_count, skill_accuracy,
    punctuality_percentage, character_rating, evaluation_count
    """

  enum PlayerRowsByIDs: StoreStatement {
    static let sql = "SELECT \(playerColumns) FROM player WHERE id = ANY($1)"
  }
  enum PlayerRowByID: StoreStatement {
    static let sql = "SELECT \(playerColumns) FROM player WHERE id = $1"
  }
  enum NextEventSequence: StoreStatement {
    static let sql = """
      UPDATE player SET last_event_sequence = last_event_sequence + 1 WHERE id = $1
      RETURNING last_event_sequence
      """
  }
  enum InsertEvent: StoreStatement {
    static let sql = """
      INSERT INTO event (player_id, sequence, created_at_ms, payload) VALUES ($1, $2, $3, $4)
      """
  }

  /// The players with `ids`, by id; ids with no player are left out.
  public static func players(_ db: any StoreSession, ids: [Int64]) throws -> [Int64: PlayerRecord] {
    guard !ids.isEmpty else { return [:] }
    var players: [Int64: PlayerRecord] = [:]
    for row in try db.rows(PlayerRowsByIDs.self, ids) {
      let player = try player(from: row)
      players[player.id] = player
    }
    return players
  }

  /// The player with `id`.
  public static func fetchPlayer(_ db: any StoreSession, id: Int64) throws -> PlayerRecord? {
    try db.row(PlayerRowByID.self, id).map(player(from:))
  }

  /// A row of `playerColumns` as a record.
  public static func player(from row: StoreRow) throws -> PlayerRecord {
    let (id, phone, nickname, hash, salt, parameters, selfLevel) = try row.decode(
      (Int64, String, String, [UInt8], [UInt8], String, Int).self)
    let (verifiedMaxLevel, locale, joined, latitude, longitude, locationUpdated) = try row.decode(
      (Int, String, Int64, Double?, Double?, Int64?).self, from: 7)
    let (
      totalGames, wins, peerRatingSum, peerRatingCount, skillAccuracy, punctuality, character,
      evaluations
    ) = try row.decode((Int, Int, Int, Int, Double, Double, Double, Int).self, from: 13)
    return PlayerRecord(
      id: id, phone: phone, nickname: nickname,
      password: PasswordDigest(hash: hash, salt: salt, parameters: parameters),
      selfLevel: selfLevel, verifiedMaxLevel: verifiedMaxLevel, locale: locale,
      joinedAtUnixMs: joined,
      location: latitude.flatMap { lat in
        longitude.map { Coordinate(latitude: lat, longitude: $0) }
      },
      locationUpdatedAtUnixMs: locationUpdated, totalGames: totalGames, wins: wins,
      peerRatingSum: peerRatingSum, peerRatingCount: peerRatingCount,
      reputation: ReputationScore(
        averageSkillAccuracy: skillAccuracy, punctualityPercentage: punctuality,
        averageCharacterRating: character, evaluationCount: evaluations))
  }

  /// Appends `events` inside the caller's transaction.
  public static func append(_ db: any StoreSession, _ events: OutgoingEvents, atUnixMs: Int64)
    throws
  {
    for event in events {
      _ = try appendEvent(db, playerID: event.playerID, payload: event.payload, atUnixMs: atUnixMs)
    }
  }

  /// Appends an event inside the caller's transaction: the player's counter gives its sequence.
  /// On PostgreSQL the counter's row lock orders one player's events across instances: a second
  /// transaction numbering the same player's event waits for the first, and a serializable one
  /// that read the old number is refused and run again.
  @discardableResult
  public static func appendEvent(
    _ db: any StoreSession, playerID: Int64, payload: [UInt8], atUnixMs: Int64
  ) throws -> UInt64 {
    guard let row = try db.row(NextEventSequence.self, playerID) else {
      throw DomainError.playerNotFound
    }
    let sequence = try row.decode(Int64.self)
    try db.rows(InsertEvent.self, playerID, sequence, atUnixMs, payload)
    return UInt64(sequence)
  }
}
