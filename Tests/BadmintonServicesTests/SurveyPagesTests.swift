import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import PropertyBased
import StoreTestSupport
import Testing

/// ListPendingSurveys answers in pages that fit the response budget: the other players of a
/// match choose when to complete it, so how many surveys wait at once is not the caller's to
/// bound.
@Suite("Pending survey pages")
struct SurveyPagesTests {
  typealias Player = PlayerWorld.Player

  static let hour: Int64 = 3_600_000
  /// The smallest frame body the services run with.
  static let smallBody = ResponseBudget.minimumBodySize
  /// A nickname of the most bytes the rules allow: 30 characters of 8 UTF-8 bytes each.
  static let longestNickname = String(
    repeating: "😀\u{301}\u{301}", count: PlayerRules.maximumNicknameLength)

  /// A match of `players` from now for an hour, started from a room the first one owns and
  /// completed by the last one; the clock then moves past its slot.
  private static func completedMatch(_ world: PlayerWorld, _ players: [Player]) async throws
    -> Match
  {
    let room = try await world.client.rooms.createRoom(
      .init(mode: players.count == 4 ? .doubles : .singles), options: players[0].options)
    for player in players.dropFirst() {
      _ = try await world.client.rooms.joinRoom(.init(code: room.code), options: player.options)
    }
    let match = try await world.client.rooms.startMatch(.init(), options: players[0].options)
      .match
    let completed = try await world.client.surveys.completeMatch(
      .init(matchID: match.id, winningTeam: 1), options: players.last!.options)
    world.clock.advance(by: Self.hour)
    return completed
  }

  /// Every pending survey of `player` through pages of `pageSize`, checking that each page fits
  /// a frame body of `limit`.
  private static func listed(
    _ world: PlayerWorld, _ player: Player, pageSize: Int32, limit: Int
  ) async throws -> [Survey] {
    var all: [Survey] = []
    var token = ""
    repeat {
      let page = try await world.client.surveys.listPendingSurveys(
        .init(pageSize: pageSize, pageToken: token), options: player.options)
      #expect(FrameFormat.fits(payload: page.serializedSize, limit: limit))
      #expect(page.surveys.count <= Int(pageSize == 0 ? 20 : pageSize))
      #expect(!page.surveys.isEmpty || page.nextPageToken.isEmpty)
      all += page.surveys
      token = page.nextPageToken
    } while !token.isEmpty
    return all
  }

  @Test(
    "40 doubles surveys with the longest nicknames page through the smallest frame limit",
    arguments: StoreKind.allCases)
  func largeSurveys_pageUnderSmallestLimit(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
      var players: [Player] = []
      for _ in 0..<4 { players.append(try await world.player(nickname: Self.longestNickname)) }
      var matches: [Int64] = []
      for _ in 0..<40 { matches.append(try await Self.completedMatch(world, players).id) }
      let first = try await world.client.surveys.listPendingSurveys(
        .init(pageSize: 100), options: players[0].options)
      // The budget, not the page size, ends the page.
      #expect(first.surveys.count < 40 && !first.nextPageToken.isEmpty)
      let all = try await Self.listed(world, players[0], pageSize: 100, limit: Self.smallBody)
      #expect(all.map(\.match.id) == matches)
      // As one answer they would not fit the frame.
      #expect(
        !FrameFormat.fits(
          payload: ListPendingSurveysResponse(surveys: all).serializedSize, limit: Self.smallBody))
      #expect(all.allSatisfy { $0.playersToRate.count == 3 && $0.state == .pending })
    }
  }

  @Test(
    "property: pages together hold every pending survey, earliest deadline first",
    arguments: StoreKind.allCases)
  func pages_concatenateToWholeList(kind: StoreKind) async throws {
    // Each match: singles or doubles, and whether the player then submits its survey.
    let match = Generator { rng in (Bool.random(using: &rng), Bool.random(using: &rng)) }
    await propertyCheck(count: 5, input: match.array(of: 0...7), Gen.int(in: 0...4)) {
      matches, size in
      do {
        try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
          let player = try await world.player(nickname: Self.longestNickname)
          var others: [Player] = []
          for _ in 0..<3 { others.append(try await world.player()) }
          var pending: [Int64] = []
          for (doubles, submitted) in matches {
            let played = try await Self.completedMatch(
              world, [player] + others.prefix(doubles ? 3 : 1))
            if submitted {
              _ = try await world.client.surveys.submitSurvey(
                .init(
                  matchID: played.id,
                  ratings: played.participants.filter { $0.userID != player.id }.map {
                    PlayerRating(
                      userID: $0.userID, skillLevel: 5, punctuality: .onTime, character: 4)
                  }),
                options: player.options)
            } else {
              pending.append(played.id)
            }
          }
          let pageSize = Int32([0, 1, 2, 3, 100][size])
          let surveys = try await Self.listed(
            world, player, pageSize: pageSize, limit: Self.smallBody)
          #expect(surveys.map(\.match.id) == pending)
          #expect(surveys.map(\.dueAtUnixMs) == surveys.map(\.dueAtUnixMs).sorted())
        }
      } catch {
        Issue.record("\(error)")
      }
    }
  }

  @Test(
    "surveys opened between pages come after the rest, never twice", arguments: StoreKind.allCases)
  func inserts_betweenPages_keepOrder(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
      let player = try await world.player()
      let other = try await world.player()
      var matches: [Int64] = []
      for _ in 0..<3 { matches.append(try await Self.completedMatch(world, [player, other]).id) }
      let first = try await world.client.surveys.listPendingSurveys(
        .init(pageSize: 2), options: player.options)
      #expect(first.surveys.map(\.match.id) == Array(matches.prefix(2)))
      let later = try await Self.completedMatch(world, [player, other]).id
      var rest: [Int64] = []
      var token = first.nextPageToken
      while !token.isEmpty {
        let page = try await world.client.surveys.listPendingSurveys(
          .init(pageSize: 2, pageToken: token), options: player.options)
        rest += page.surveys.map(\.match.id)
        token = page.nextPageToken
      }
      // The new survey is due last: it follows the ones not yet seen.
      #expect(rest == [matches[2], later])
    }
  }

  @Test(
    "ListPendingSurveys refuses page tokens it never gave out and sizes out of range",
    arguments: StoreKind.allCases)
  func refusesForgedTokens(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let other = try await world.player()
      for _ in 0..<2 { _ = try await Self.completedMatch(world, [player, other]) }
      let first = try await world.client.surveys.listPendingSurveys(
        .init(pageSize: 1), options: player.options)
      #expect(!first.nextPageToken.isEmpty)
      let parts = first.nextPageToken.split(separator: ".").map(String.init)
      #expect(parts.count == 3 && parts[0] == "surveys")
      let (due, match) = (parts[1], parts[2])
      for token in [
        "nonsense", "surveys.\(due)", "surveys.\(due).\(match).1", "surveys.+\(due).\(match)",
        "surveys.0\(due).\(match)", "surveys.\(due).-\(match)", "surveys.\(due). \(match)",
        "threads.\(due)", "receivedrequests.\(match)", "surveys.\(due).9223372036854775808",
        "\(due).\(match)",
      ] {
        let refused = await rpcError {
          _ = try await world.client.surveys.listPendingSurveys(
            .init(pageToken: token), options: player.options)
        }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.reason == "PAGE_TOKEN_INVALID")
        #expect(refused?.violations.map(\.field) == ["page_token"])
      }
      for size: Int32 in [-1, 101, .max, .min] {
        let refused = await rpcError {
          _ = try await world.client.surveys.listPendingSurveys(
            .init(pageSize: size), options: player.options)
        }
        #expect(refused?.reason == "PAGE_SIZE_OUT_OF_RANGE")
        #expect(refused?.violations.map(\.field) == ["page_size"])
      }
    }
  }
}
