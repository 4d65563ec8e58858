import BadmintonDomain
import BadmintonStore
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

@Suite("Player store: players, profiles and locations")
struct PlayerStoreTests {
  // MARK: Registration

  @Test(
    "createPlayer stores every field with a new id and the defaults of a new player",
    arguments: StoreKind.allCases)
  func createPlayer_storesFieldsAndDefaults(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let new = StoreFixtures.newPlayer(
        phone: "+8613800138000", nickname: "羽毛球小王", selfLevel: 6, locale: "zh-CN",
        joinedAtUnixMs: 1_712_345_678_901)
      let created = try await store.createPlayer(new)

      #expect(created.id > 0)
      #expect(created.phone == "+8613800138000")
      #expect(created.nickname == "羽毛球小王")
      #expect(created.password == StoreFixtures.digest)
      #expect(created.selfLevel == 6)
      #expect(created.locale == "zh-CN")
      #expect(created.joinedAtUnixMs == 1_712_345_678_901)
      #expect(created.verifiedMaxLevel == 7)
      #expect(created.totalGames == 0)
      #expect(created.wins == 0)
      #expect(created.peerRatingSum == 0)
      #expect(created.peerRatingCount == 0)
      #expect(created.reputation == ReputationScore.empty)
      #expect(created.location == nil)
      #expect(created.locationUpdatedAtUnixMs == nil)

      let byID = try #require(try await store.player(id: created.id))
      #expect(byID == created)
      let byPhone = try #require(try await store.player(phone: "+8613800138000"))
      #expect(byPhone == created)
      #expect(try await store.player(id: created.id + 1) == nil)
      #expect(try await store.player(phone: "+8613900139000") == nil)

      let second = try await store.createPlayer(
        StoreFixtures.newPlayer(phone: "+447700900123", nickname: "Shuttle Ace", locale: "en"))
      #expect(second.id != created.id)
      #expect(try await store.player(id: second.id)?.nickname == "Shuttle Ace")
      #expect(try await store.player(phone: "+447700900123")?.id == second.id)
    }
  }

  @Test(
    "a second registration with the same phone is PHONE_TAKEN and leaves the first player",
    arguments: StoreKind.allCases)
  func createPlayer_duplicatePhoneIsRejected(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let first = try await store.createPlayer(
        StoreFixtures.newPlayer(phone: "+8613800138000", nickname: "First", selfLevel: 3))

      let error = await #expect(throws: DomainError.self) {
        _ = try await store.createPlayer(
          StoreFixtures.newPlayer(
            phone: "+8613800138000", nickname: "Second", selfLevel: 7, locale: "en"))
      }
      #expect(error?.kind == .alreadyExists)
      #expect(error?.reason == "PHONE_TAKEN")

      #expect(try await store.player(phone: "+8613800138000") == first)
      #expect(try await store.player(id: first.id) == first)
      // No second row slipped in under another id.
      #expect(try await store.players(ids: Array(1...20)).count == 1)
    }
  }

  /// One registration attempt.
  struct Attempt: Sendable, CustomStringConvertible {
    var phone: String
    var nickname: String
    var description: String { "\(phone) as \(nickname)" }
  }

  static let phonePool = ["+8613800138000", "+8613900139000", "+447700900123", "+14155550100"]

  /// Sequences of up to 16 attempts with phones from a pool of four; each nickname is unique, so
  /// it tells which attempt a stored player came from.
  static let attempts = Generator { rng in
    let names = ["小王", "Lin", "Ace", "Smash", "Drop"]
    return (0..<Int.random(in: 0...16, using: &rng)).map { index in
      Attempt(
        phone: phonePool.randomElement(using: &rng)!,
        nickname: "\(names.randomElement(using: &rng)!) \(index)")
    }
  }

  @Test(
    "after random registrations the stored phones are the distinct phones tried, each first-come",
    arguments: StoreKind.allCases)
  func createPlayer_randomAttemptsMatchOracle(kind: StoreKind) async throws {
    // Each case is a new store: a PostgreSQL database each, so fewer of them.
    await propertyCheck(count: kind == .sqlite ? 100 : 20, input: Self.attempts) { attempts in
      try await withStore(kind) { store in
        // Oracle: the first nickname used for each phone.
        var firstNickname: [String: String] = [:]
        for attempt in attempts {
          let isNew = firstNickname[attempt.phone] == nil
          do {
            let created = try await store.createPlayer(
              StoreFixtures.newPlayer(phone: attempt.phone, nickname: attempt.nickname))
            #expect(isNew, "a taken phone was registered again: \(attempt)")
            #expect(created.nickname == attempt.nickname)
          } catch let error as DomainError {
            #expect(!isNew, "a free phone was refused: \(attempt)")
            #expect(error.kind == .alreadyExists)
            #expect(error.reason == "PHONE_TAKEN")
          }
          if isNew { firstNickname[attempt.phone] = attempt.nickname }
        }

        var storedPhones = Set<String>()
        for phone in Self.phonePool {
          if let player = try await store.player(phone: phone) {
            storedPhones.insert(phone)
            #expect(player.nickname == firstNickname[phone])
          }
        }
        #expect(storedPhones == Set(attempts.map(\.phone)))
        let allRows = try await store.players(ids: Array(1...Int64(attempts.count + 5)))
        #expect(Set(allRows.values.map(\.phone)) == storedPhones)
        #expect(allRows.count == storedPhones.count)
      }
    }
  }

  // MARK: Profiles

  @Test(
    "updateProfile changes only the given fields and nil keeps the stored value",
    arguments: StoreKind.allCases)
  func updateProfile_appliesOnlyGivenChanges(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let original = try await store.createPlayer(
        StoreFixtures.newPlayer(nickname: "Lin", selfLevel: 4, locale: "en"))

      let renamed = try await store.updateProfile(
        id: original.id, ProfileChanges(nickname: "Lin Dan"))
      var expected = original
      expected.nickname = "Lin Dan"
      #expect(renamed == expected)
      #expect(try await store.player(id: original.id) == expected)

      let relevelled = try await store.updateProfile(id: original.id, ProfileChanges(selfLevel: 7))
      expected.selfLevel = 7
      #expect(relevelled == expected)

      let relocalised = try await store.updateProfile(
        id: original.id, ProfileChanges(locale: "zh-CN"))
      expected.locale = "zh-CN"
      #expect(relocalised == expected)

      let unchanged = try await store.updateProfile(id: original.id, ProfileChanges())
      #expect(unchanged == expected)

      let all = try await store.updateProfile(
        id: original.id, ProfileChanges(nickname: "小林", selfLevel: 2, locale: "en"))
      expected.nickname = "小林"
      expected.selfLevel = 2
      expected.locale = "en"
      #expect(all == expected)
      #expect(try await store.player(id: original.id) == expected)
      #expect(try await store.player(phone: original.phone) == expected)
    }
  }

  @Test(
    "a self level of 8 without verification is refused and nothing of the update is kept",
    arguments: StoreKind.allCases)
  func updateProfile_unverifiedLevelChangesNothing(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let original = try await store.createPlayer(
        StoreFixtures.newPlayer(nickname: "Smash", selfLevel: 7, locale: "en"))
      #expect(original.verifiedMaxLevel == 7)

      let error = await #expect(throws: DomainError.self) {
        _ = try await store.updateProfile(
          id: original.id, ProfileChanges(nickname: "Smash King", selfLevel: 8, locale: "zh-CN"))
      }
      #expect(error?.reason == "SKILL_LEVEL_REQUIRES_VERIFICATION")
      #expect(try await store.player(id: original.id) == original)

      let outOfRange = await #expect(throws: DomainError.self) {
        _ = try await store.updateProfile(
          id: original.id, ProfileChanges(nickname: "Zero", selfLevel: 0))
      }
      #expect(outOfRange?.reason == "SKILL_LEVEL_OUT_OF_RANGE")
      #expect(try await store.player(id: original.id) == original)
    }
  }

  @Test(
    "updating the profile of an unknown player is PLAYER_NOT_FOUND", arguments: StoreKind.allCases)
  func updateProfile_unknownPlayer(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let existing = try await store.createPlayer(StoreFixtures.newPlayer())
      let error = await #expect(throws: DomainError.self) {
        _ = try await store.updateProfile(id: existing.id + 41, ProfileChanges(nickname: "Ghost"))
      }
      #expect(error?.kind == .notFound)
      #expect(error?.reason == "PLAYER_NOT_FOUND")
      #expect(try await store.player(id: existing.id) == existing)
    }
  }

  // MARK: Locations

  @Test(
    "updateLocation stores the place and time, and allLocations lists exactly located players",
    arguments: StoreKind.allCases)
  func updateLocation_storesAndLists(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let shanghai = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800138001"))
      let london = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+447700900123"))
      let nowhere = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+14155550100"))
      #expect(try await store.allLocations().isEmpty)

      let bund = Coordinate(latitude: 31.2400419, longitude: 121.4900277)
      try await store.updateLocation(id: shanghai.id, to: bund, atUnixMs: 1_700_000_000_123)
      let wembley = Coordinate(latitude: 51.5560241, longitude: -0.2795190)
      try await store.updateLocation(id: london.id, to: wembley, atUnixMs: 1_700_000_000_456)

      let stored = try #require(try await store.player(id: shanghai.id))
      #expect(stored.location == bund)
      #expect(stored.locationUpdatedAtUnixMs == 1_700_000_000_123)
      var expected = shanghai
      expected.location = bund
      expected.locationUpdatedAtUnixMs = 1_700_000_000_123
      #expect(stored == expected)
      #expect(try await store.player(id: nowhere.id)?.location == nil)

      var listed = try await store.allLocations()
      #expect(listed.count == 2)
      var byPlayer = Dictionary(uniqueKeysWithValues: listed.map { ($0.playerID, $0.location) })
      #expect(byPlayer == [shanghai.id: bund, london.id: wembley])

      // A newer location replaces the old one.
      let pudong = Coordinate(latitude: 31.1443, longitude: 121.8083)
      try await store.updateLocation(id: shanghai.id, to: pudong, atUnixMs: 1_700_000_999_000)
      let moved = try #require(try await store.player(id: shanghai.id))
      #expect(moved.location == pudong)
      #expect(moved.locationUpdatedAtUnixMs == 1_700_000_999_000)
      listed = try await store.allLocations()
      #expect(listed.count == 2)
      byPlayer = Dictionary(uniqueKeysWithValues: listed.map { ($0.playerID, $0.location) })
      #expect(byPlayer == [shanghai.id: pudong, london.id: wembley])
    }
  }

  @Test(
    "updating the location of an unknown player is PLAYER_NOT_FOUND", arguments: StoreKind.allCases)
  func updateLocation_unknownPlayer(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let error = await #expect(throws: DomainError.self) {
        try await store.updateLocation(
          id: 99, to: Coordinate(latitude: 1, longitude: 2), atUnixMs: 1)
      }
      #expect(error?.reason == "PLAYER_NOT_FOUND")
      let located = try await store.allLocations()
      #expect(located.isEmpty)
    }
  }

  @Test(
    "players(ids:) returns the requested players only; unknown ids are absent",
    arguments: StoreKind.allCases)
  func players_byIDs(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let a = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000001"))
      let b = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000002"))
      let c = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000003"))

      #expect(try await store.players(ids: []).isEmpty)
      #expect(try await store.players(ids: [a.id, c.id]) == [a.id: a, c.id: c])
      #expect(try await store.players(ids: [c.id, 404, a.id, -1]) == [a.id: a, c.id: c])
      #expect(try await store.players(ids: [b.id, b.id]) == [b.id: b])
      #expect(try await store.players(ids: [404]).isEmpty)
    }
  }

  // MARK: Passwords

  @Test(
    "replacePassword swaps the digest only while the stored one is still the current one",
    arguments: StoreKind.allCases)
  func replacePassword_onlyOverCurrent(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await store.createPlayer(StoreFixtures.newPlayer())
      let other = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+447700900123"))
      let stronger = PasswordDigest(hash: [9, 8, 7, 0], salt: [6, 5], parameters: "scrypt:32:8:1")
      let newer = PasswordDigest(hash: [1], salt: [2], parameters: "scrypt:32:8:1")
      #expect(try await store.passwordParameterCounts() == ["scrypt:16:1:1": 2])

      let replaced = try await store.replacePassword(
        id: player.id, current: StoreFixtures.digest, with: stronger)
      #expect(replaced)
      #expect(try await store.player(id: player.id)?.password == stronger)
      // A digest made from the old one no longer replaces what is stored now.
      let stale = try await store.replacePassword(
        id: player.id, current: StoreFixtures.digest, with: newer)
      #expect(!stale)
      #expect(try await store.player(id: player.id)?.password == stronger)
      let unknown = try await store.replacePassword(
        id: player.id + other.id, current: StoreFixtures.digest, with: newer)
      #expect(!unknown)
      #expect(try await store.player(id: other.id) == other)
      #expect(
        try await store.passwordParameterCounts() == ["scrypt:16:1:1": 1, "scrypt:32:8:1": 1])
    }
  }

  @Test(
    "each location change of a player raises its revision by one, and allLocations gives it",
    arguments: StoreKind.allCases)
  func updateLocation_revisions(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let a = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000001"))
      let b = try await store.createPlayer(StoreFixtures.newPlayer(phone: "+8613800000002"))
      let here = Coordinate(latitude: 31.2, longitude: 121.5)
      var revisions: [Int64] = []
      for step in 0..<3 {
        revisions.append(
          try await store.updateLocation(id: a.id, to: here, atUnixMs: Int64(step)))
      }
      let first = try await store.updateLocation(id: b.id, to: here, atUnixMs: 9)
      #expect(revisions == [1, 2, 3])
      #expect(first == 1)
      let listed = try await store.allLocations()
      #expect(listed.map(\.playerID) == [a.id, b.id])
      #expect(listed.map(\.revision) == [3, 1])
    }
  }

  @Test(
    "replayPlayers gives every player in id order, as the feed gave it last",
    arguments: StoreKind.allCases)
  func replayPlayers_matchesFeed(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let recorder = StoreFixtures.FeedRecorder(store.feed)
      store.startFeed()
      var ids: [Int64] = []
      for index in 0..<12 {
        ids.append(
          try await store.createPlayer(
            StoreFixtures.newPlayer(phone: "+86139\(10_000_000 + index)")
          ).id)
      }
      _ = try await store.updateProfile(id: ids[3], ProfileChanges(nickname: "Renamed"))
      try await store.updateLocation(
        id: ids[7], to: Coordinate(latitude: 1, longitude: 2), atUnixMs: 5)
      var latest: [Int64: PlayerRecord] = [:]
      for case .player(let player) in recorder.recorded { latest[player.id] = player }

      let replayed = Mutex<[StoreChange]>([])
      try await store.replayPlayers { change in replayed.withLock { $0.append(change) } }
      #expect(replayed.withLock { $0 } == ids.map { .player(latest[$0]!) })
    }
  }
}
