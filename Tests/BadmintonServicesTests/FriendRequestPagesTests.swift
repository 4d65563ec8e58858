import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import PropertyBased
import StoreTestSupport
import Testing

/// ListFriendRequests answers in pages that fit the response budget, so strangers sending
/// requests can never make the answer too large, with tokens that cannot be forged.
@Suite("Friend request pages")
struct FriendRequestPagesTests {
  /// The smallest frame body the services run with.
  static let smallBody = ResponseBudget.minimumBodySize

  /// A nickname of the most bytes the rules allow: 30 characters of 8 UTF-8 bytes each.
  static let longestNickname = String(
    repeating: "😀\u{301}\u{301}", count: PlayerRules.maximumNicknameLength)

  /// Every request of one list through pages of `pageSize`, checking that each page fits a
  /// frame body of `limit` and holds only the list asked for.
  private static func listed(
    _ world: PlayerWorld, _ player: PlayerWorld.Player, outgoing: Bool, pageSize: Int32,
    limit: Int
  ) async throws -> [FriendRequest] {
    var all: [FriendRequest] = []
    var token = ""
    repeat {
      let page = try await world.client.friends.listFriendRequests(
        .init(pageSize: pageSize, pageToken: token, outgoing: outgoing), options: player.options)
      #expect(FrameFormat.fits(payload: page.serializedSize, limit: limit))
      let items = outgoing ? page.outgoing : page.incoming
      #expect((outgoing ? page.incoming : page.outgoing).isEmpty)
      #expect(items.count <= Int(pageSize == 0 ? 20 : pageSize))
      #expect(!items.isEmpty || page.nextPageToken.isEmpty)
      all += items
      token = page.nextPageToken
    } while !token.isEmpty
    return all
  }

  @Test(
    "a full page of requests with the longest nicknames and widest numbers fits the smallest budget"
  )
  func largestPage_fitsSmallestBudget() {
    let card = PlayerCard(
      userID: .max, nickname: Self.longestNickname, displayLevel: .max, newPlayer: true,
      reputation: ReputationSummary(
        evaluationCount: .max, averageSkillAccuracy: 5, punctualityPercentage: 100,
        averageCharacterRating: 5))
    let largest = FriendRequest(
      id: .max, sender: card, recipient: card, state: .declined, sentAtUnixMs: .max,
      answeredAtUnixMs: .max)
    let budget = ResponseBudget(maximumBodySize: Self.smallBody)
    let size = ResponseBudget.encodedSize(largest)
    #expect(size == 633)
    #expect(size * PageRules.sizes.upperBound <= budget.itemBytes)
  }

  @Test(
    "250 requests from senders with the longest nicknames all page through the smallest frame limit",
    arguments: StoreKind.allCases
  )
  func longestNicknames_pageUnderSmallestLimit(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
      #expect(Self.longestNickname.utf8.count == PlayerRules.maximumNicknameBytes)
      let player = try await world.player(nickname: Self.longestNickname)
      var sent: [Int64] = []
      // More than a page of the largest size, and more than one answer of the smallest frame
      // could hold.
      for _ in 0..<250 {
        let stranger = try await world.player(nickname: Self.longestNickname)
        sent.append(
          try await world.client.friends.sendFriendRequest(
            .init(userID: player.id), options: stranger.options
          ).id)
      }
      let all = try await Self.listed(
        world, player, outgoing: false, pageSize: 100, limit: Self.smallBody)
      #expect(all.map(\.id) == sent.reversed())
      // The 200 newest alone, as one answer, would not fit the frame.
      #expect(
        !FrameFormat.fits(
          payload: ListFriendRequestsResponse(incoming: Array(all.prefix(200))).serializedSize,
          limit: Self.smallBody))
      #expect(all.allSatisfy { $0.sender.nickname == Self.longestNickname })
    }
  }

  @Test(
    "property: pages together hold every request of each list, newest first",
    arguments: StoreKind.allCases)
  func pages_concatenateToWholeList(kind: StoreKind) async throws {
    // Each step: a stranger's request the player then leaves, declines, accepts or hides by a
    // block; or a request the player sends.
    let step = Gen.int(in: 0...4)
    await propertyCheck(count: 5, input: step.array(of: 0...12), Gen.int(in: 0...4)) {
      steps, size in
      do {
        try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
          let player = try await world.player()
          var incoming: [Int64] = []
          var outgoing: [Int64] = []
          for action in steps {
            let other = try await world.player()
            if action == 4 {
              outgoing.append(
                try await world.client.friends.sendFriendRequest(
                  .init(userID: other.id), options: player.options
                ).id)
              continue
            }
            let request = try await world.client.friends.sendFriendRequest(
              .init(userID: player.id), options: other.options)
            switch action {
            case 1:
              _ = try await world.client.friends.declineFriendRequest(
                .init(requestID: request.id), options: player.options)
            case 2:
              _ = try await world.client.friends.acceptFriendRequest(
                .init(requestID: request.id), options: player.options)
            case 3:
              // Hidden from the player from now on.
              _ = try await world.client.friends.block(
                .init(userID: other.id), options: player.options)
              continue
            default: break
            }
            incoming.append(request.id)
          }
          let pageSize = Int32([0, 1, 2, 3, 100][size])
          let received = try await Self.listed(
            world, player, outgoing: false, pageSize: pageSize, limit: Self.smallBody)
          #expect(received.map(\.id) == incoming.reversed())
          #expect(received.allSatisfy { $0.recipient.userID == player.id })
          let sentByPlayer = try await Self.listed(
            world, player, outgoing: true, pageSize: pageSize, limit: Self.smallBody)
          #expect(sentByPlayer.map(\.id) == outgoing.reversed())
          #expect(sentByPlayer.allSatisfy { $0.sender.userID == player.id })
        }
      } catch {
        Issue.record("\(error)")
      }
    }
  }

  @Test(
    "requests arriving between pages neither repeat nor shift the rest of the list",
    arguments: StoreKind.allCases)
  func inserts_betweenPages_keepOrder(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
      let player = try await world.player()
      var sent: [Int64] = []
      for _ in 0..<5 {
        let stranger = try await world.player()
        sent.append(
          try await world.client.friends.sendFriendRequest(
            .init(userID: player.id), options: stranger.options
          ).id)
      }
      let first = try await world.client.friends.listFriendRequests(
        .init(pageSize: 2), options: player.options)
      #expect(first.incoming.map(\.id) == Array(sent.reversed().prefix(2)))
      var later: [Int64] = []
      for _ in 0..<2 {
        let stranger = try await world.player()
        later.append(
          try await world.client.friends.sendFriendRequest(
            .init(userID: player.id), options: stranger.options
          ).id)
      }
      var rest: [Int64] = []
      var token = first.nextPageToken
      while !token.isEmpty {
        let page = try await world.client.friends.listFriendRequests(
          .init(pageSize: 2, pageToken: token), options: player.options)
        rest += page.incoming.map(\.id)
        token = page.nextPageToken
      }
      #expect(rest == Array(sent.reversed().dropFirst(2)))
      // A new listing starts with the requests that arrived meanwhile.
      let again = try await world.client.friends.listFriendRequests(
        .init(pageSize: 2), options: player.options)
      #expect(again.incoming.map(\.id) == later.reversed())
    }
  }

  @Test(
    "ListFriendRequests refuses page tokens it never gave out and sizes out of range",
    arguments: StoreKind.allCases)
  func refusesForgedTokens(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      for _ in 0..<2 {
        let stranger = try await world.player()
        _ = try await world.client.friends.sendFriendRequest(
          .init(userID: player.id), options: stranger.options)
        let asked = try await world.player()
        _ = try await world.client.friends.sendFriendRequest(
          .init(userID: asked.id), options: player.options)
      }
      let received = try await world.client.friends.listFriendRequests(
        .init(pageSize: 1), options: player.options)
      let sent = try await world.client.friends.listFriendRequests(
        .init(pageSize: 1, outgoing: true), options: player.options)
      #expect(!received.nextPageToken.isEmpty && !sent.nextPageToken.isEmpty)
      let id = String(received.incoming[0].id)
      let forged: [(String, Bool)] =
        [
          "nonsense", "receivedrequests.+\(id)", "receivedrequests.0\(id)",
          "receivedrequests. \(id)", "receivedrequests.-1", "receivedrequests.nan", "\(id)",
          "receivedrequests.\(id).1", "threads.\(id)", "receivedrequests.9223372036854775808",
          sent.nextPageToken,
        ].map { ($0, false) } + [("sentrequests.-0", true), (received.nextPageToken, true)]
      for (token, outgoing) in forged {
        let refused = await rpcError {
          _ = try await world.client.friends.listFriendRequests(
            .init(pageToken: token, outgoing: outgoing), options: player.options)
        }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.reason == "PAGE_TOKEN_INVALID")
        #expect(refused?.violations.map(\.field) == ["page_token"])
      }
      for size: Int32 in [-1, 101, .max, .min] {
        let refused = await rpcError {
          _ = try await world.client.friends.listFriendRequests(
            .init(pageSize: size), options: player.options)
        }
        #expect(refused?.reason == "PAGE_SIZE_OUT_OF_RANGE")
        #expect(refused?.violations.map(\.field) == ["page_size"])
      }
    }
  }
}
