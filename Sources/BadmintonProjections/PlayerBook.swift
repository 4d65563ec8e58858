public import BadmintonDomain
public import BadmintonStore
import Synchronization

/// A player as the hot reads show them: everything stored but the password.
public struct PlayerEntry: Hashable, Sendable {
  /// The player's id.
  public var id: Int64
  /// The phone number, shown to the player alone.
  public var phone: String
  /// The name others see.
  public var nickname: String
  /// The level the player gave themselves.
  public var selfLevel: Int
  /// The highest level an approved verification allows: 7 (none), 8 or 9.
  public var verifiedMaxLevel: Int
  /// The player's language, shown to the player alone.
  public var locale: String
  /// When the player registered, in milliseconds since 1970-01-01 UTC.
  public var joinedAtUnixMs: Int64
  /// The player's last stored own location.
  public var location: Coordinate?
  /// When `location` was sent.
  public var locationUpdatedAtUnixMs: Int64?
  /// Matches played.
  public var totalGames: Int
  /// Matches won.
  public var wins: Int
  /// Sum of peers' skill ratings, for the calculated level.
  public var peerRatingSum: Int
  /// Count of peers' skill ratings.
  public var peerRatingCount: Int
  /// What the surveys made of the player.
  public var reputation: ReputationScore

  /// The entry of a stored player.
  public init(_ record: PlayerRecord) {
    id = record.id
    phone = record.phone
    nickname = record.nickname
    selfLevel = record.selfLevel
    verifiedMaxLevel = record.verifiedMaxLevel
    locale = record.locale
    joinedAtUnixMs = record.joinedAtUnixMs
    location = record.location
    locationUpdatedAtUnixMs = record.locationUpdatedAtUnixMs
    totalGames = record.totalGames
    wins = record.wins
    peerRatingSum = record.peerRatingSum
    peerRatingCount = record.peerRatingCount
    reputation = record.reputation
  }

  /// The level shown for this player and whether they are a new player.
  public var displayLevel: (level: Int, isNewPlayer: Bool) {
    SkillRating.displayLevel(
      selfLevel: selfLevel, peerRatingSum: peerRatingSum, peerRatingCount: peerRatingCount)
  }
}

/// Every player, in memory: a projection of the store's change feed, so that profiles, the
/// caller's own state and nearby pages are read without asking the store. Writes still go to
/// the store, which decides the rules in its transactions; the book changes only by `apply`.
///
/// The entries are kept in a table by player id (`IDTable`): the store numbers players from 1
/// up, so an entry takes its own 184 bytes and no key or free room. A dictionary's slot is the
/// entry and its key, about 320 bytes a player at its load; at 10 million players the server
/// went from 445 to 307 bytes a player with the table.
public final class PlayerBook: Sendable {
  private let entries = Mutex(IDTable<PlayerEntry>())

  /// An empty book.
  public init() {}

  /// Applies one committed change; anything but a player is ignored. Applying a change again
  /// changes nothing.
  public func apply(_ change: StoreChange) {
    guard case .player(let record) = change else { return }
    let entry = PlayerEntry(record)
    entries.withLock { $0[entry.id] = entry }
  }

  /// The player with `id`, as last committed.
  public func player(_ id: Int64) -> PlayerEntry? {
    entries.withLock { $0[id] }
  }

  /// The players with these ids that exist.
  public func players(ids: [Int64]) -> [Int64: PlayerEntry] {
    entries.withLock { entries in
      var found: [Int64: PlayerEntry] = [:]
      found.reserveCapacity(ids.count)
      for id in ids { found[id] = entries[id] }
      return found
    }
  }

  /// How many players the book holds.
  public var count: Int { entries.withLock { $0.count } }

  /// Every entry, to compare with a book built afresh.
  var snapshot: [Int64: PlayerEntry] { entries.withLock { $0.all } }
}
