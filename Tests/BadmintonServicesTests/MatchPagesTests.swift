import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import PropertyBased
import StoreTestSupport
import Testing

/// ListMyMatches answers in pages that fit the response budget: a player's history of matches
/// only grows, and each match shows every participant's nickname.
@Suite("Match list pages")
struct MatchPagesTests {
  typealias Player = PlayerWorld.Player

  static let hour: Int64 = 3_600_000
  /// The smallest frame body the services run with.
  static let smallBody = ResponseBudget.minimumBodySize
  /// A nickname of the most bytes the rules allow: 30 characters of 8 UTF-8 bytes each.
  static let longestNickname = String(
    repeating: "😀\u{301}\u{301}", count: PlayerRules.maximumNicknameLength)

  /// A confirmed match of `players` from a room the first one owns, started with `start` (by
  /// default from now for an hour).
  private static func match(
    _ world: PlayerWorld, _ players: [Player], start: StartMatchRequest = .init()
  ) async throws -> Match {
    let room = try await world.client.rooms.createRoom(
      .init(mode: players.count == 4 ? .doubles : .singles), options: players[0].options)
    for player in players.dropFirst() {
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: player.options)
    }
    return try await world.client.rooms.startMatch(start, options: players[0].options).match
  }

  /// Every match of one list of `player` through pages of `pageSize`, checking that each page
  /// fits a frame body of `limit`.
  private static func listed(
    _ world: PlayerWorld, _ player: Player, past: Bool, pageSize: Int32, limit: Int
  ) async throws -> [Match] {
    var all: [Match] = []
    var token = ""
    repeat {
      let page = try await world.client.matching.listMyMatches(
        .init(past: past, pageSize: pageSize, pageToken: token), options: player.options)
      #expect(FrameFormat.fits(payload: page.serializedSize, limit: limit))
      #expect(page.matches.count <= Int(pageSize == 0 ? 20 : pageSize))
      #expect(!page.matches.isEmpty || page.nextPageToken.isEmpty)
      all += page.matches
      token = page.nextPageToken
    } while !token.isEmpty
    return all
  }

  @Test(
    "70 doubles matches with the longest nicknames page through the smallest frame limit",
    arguments: StoreKind.allCases)
  func longHistory_pagesUnderSmallestLimit(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
      var players: [Player] = []
      for _ in 0..<4 { players.append(try await world.player(nickname: Self.longestNickname)) }
      var played: [Int64] = []
      for _ in 0..<70 {
        played.append(try await Self.match(world, players).id)
        world.clock.advance(by: Self.hour)
      }
      let first = try await world.client.matching.listMyMatches(
        .init(past: true, pageSize: 100), options: players[0].options)
      // The budget, not the page size, ends the page.
      #expect(first.matches.count < 70 && !first.nextPageToken.isEmpty)
      let all = try await Self.listed(
        world, players[0], past: true, pageSize: 100, limit: Self.smallBody)
      #expect(all.map(\.id) == played.reversed())
      // As one answer they would not fit the frame.
      #expect(
        !FrameFormat.fits(
          payload: ListMyMatchesResponse(matches: all).serializedSize, limit: Self.smallBody))
    }
  }

  @Test(
    "property: pages together hold every upcoming and every past match, in order",
    arguments: StoreKind.allCases)
  func pages_concatenateToWholeList(kind: StoreKind) async throws {
    // Past matches played one after another; upcoming ones in distinct future hours, some then
    // cancelled (which makes them past).
    let upcoming = Generator { rng in
      (Int.random(in: 1...20, using: &rng), Bool.random(using: &rng))
    }
    await propertyCheck(
      count: 5, input: Gen.int(in: 0...5), upcoming.array(of: 0...6), Gen.int(in: 0...4)
    ) { pastCount, future, size in
      do {
        try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
          let player = try await world.player(nickname: Self.longestNickname)
          let other = try await world.player()
          var past: [Match] = []
          for _ in 0..<pastCount {
            past.append(try await Self.match(world, [player, other]))
            world.clock.advance(by: Self.hour)
          }
          var coming: [Match] = []
          var used: Set<Int> = []
          for (hours, cancel) in future where used.insert(hours).inserted {
            let start = world.clock.nowUnixMs() + Int64(hours) * 2 * Self.hour
            let match = try await Self.match(
              world, [player, other],
              start: .init(slot: .init(startUnixMs: start, endUnixMs: start + Self.hour)))
            if cancel {
              past.append(
                try await world.client.matching.cancelMatch(
                  .init(matchID: match.id), options: other.options))
            } else {
              coming.append(match)
            }
          }
          let order = { (a: Match, b: Match) in
            (a.slot.startUnixMs, a.id) < (b.slot.startUnixMs, b.id)
          }
          let pageSize = Int32([0, 1, 2, 3, 100][size])
          let listedComing = try await Self.listed(
            world, player, past: false, pageSize: pageSize, limit: Self.smallBody)
          #expect(listedComing.map(\.id) == coming.sorted(by: order).map(\.id))
          let listedPast = try await Self.listed(
            world, player, past: true, pageSize: pageSize, limit: Self.smallBody)
          #expect(listedPast.map(\.id) == past.sorted(by: order).reversed().map(\.id))
        }
      } catch {
        Issue.record("\(error)")
      }
    }
  }

  @Test(
    "matches played between pages come on a new first page, never twice",
    arguments: StoreKind.allCases)
  func inserts_betweenPages_keepOrder(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
      let player = try await world.player()
      let other = try await world.player()
      var played: [Int64] = []
      for _ in 0..<4 {
        played.append(try await Self.match(world, [player, other]).id)
        world.clock.advance(by: Self.hour)
      }
      let first = try await world.client.matching.listMyMatches(
        .init(past: true, pageSize: 2), options: player.options)
      #expect(first.matches.map(\.id) == Array(played.reversed().prefix(2)))
      let later = try await Self.match(world, [player, other]).id
      world.clock.advance(by: Self.hour)
      var rest: [Int64] = []
      var token = first.nextPageToken
      while !token.isEmpty {
        let page = try await world.client.matching.listMyMatches(
          .init(past: true, pageSize: 2, pageToken: token), options: player.options)
        rest += page.matches.map(\.id)
        token = page.nextPageToken
      }
      #expect(rest == Array(played.reversed().dropFirst(2)))
      let again = try await world.client.matching.listMyMatches(
        .init(past: true, pageSize: 1), options: player.options)
      #expect(again.matches.map(\.id) == [later])
    }
  }

  @Test(
    "ListMyMatches refuses page tokens it never gave out and sizes out of range",
    arguments: StoreKind.allCases)
  func refusesForgedTokens(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let other = try await world.player()
      for _ in 0..<2 {
        _ = try await Self.match(world, [player, other])
        world.clock.advance(by: Self.hour)
      }
      let first = try await world.client.matching.listMyMatches(
        .init(past: true, pageSize: 1), options: player.options)
      #expect(!first.nextPageToken.isEmpty)
      let parts = first.nextPageToken.split(separator: ".").map(String.init)
      #expect(parts.count == 3 && parts[0] == "pastmatches")
      let (start, match) = (parts[1], parts[2])
      let forged: [(String, Bool)] =
        [
          "nonsense", "pastmatches.\(start)", "pastmatches.\(start).\(match).1",
          "pastmatches.+\(start).\(match)", "pastmatches.0\(start).\(match)",
          "pastmatches.\(start).-\(match)", "surveys.\(start).\(match)", "\(start).\(match)",
        ].map { ($0, true) } + [(first.nextPageToken, false)]
      for (token, past) in forged {
        let refused = await rpcError {
          _ = try await world.client.matching.listMyMatches(
            .init(past: past, pageToken: token), options: player.options)
        }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.reason == "PAGE_TOKEN_INVALID")
        #expect(refused?.violations.map(\.field) == ["page_token"])
      }
      for size: Int32 in [-1, 101, .max, .min] {
        let refused = await rpcError {
          _ = try await world.client.matching.listMyMatches(
            .init(pageSize: size), options: player.options)
        }
        #expect(refused?.reason == "PAGE_SIZE_OUT_OF_RANGE")
        #expect(refused?.violations.map(\.field) == ["page_size"])
      }
    }
  }
}
