import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import PropertyBased
import StoreTestSupport
import Testing

@Suite("Friends and blocking over the wire")
struct FriendsTests {
  /// The caller's friends' ids.
  private func friendIDs(_ world: PlayerWorld, _ player: PlayerWorld.Player) async throws
    -> Set<Int64>
  {
    Set(
      try await world.client.friends.listFriends(.init(), options: player.options).friends.map(
        \.player.userID))
  }

  private func befriend(
    _ world: PlayerWorld, _ a: PlayerWorld.Player, _ b: PlayerWorld.Player
  ) async throws {
    let sent = try await world.client.friends.sendFriendRequest(
      .init(userID: b.id), options: a.options)
    _ = try await world.client.friends.acceptFriendRequest(
      .init(requestID: sent.id), options: b.options)
  }

  enum Step: Sendable, CustomStringConvertible {
    case send(Int, Int)
    case accept(Int, Int)
    case decline(Int, Int)
    case remove(Int, Int)

    var description: String {
      switch self {
      case .send(let a, let b): "send \(a)->\(b)"
      case .accept(let a, let b): "accept \(a)<-\(b)"
      case .decline(let a, let b): "decline \(a)<-\(b)"
      case .remove(let a, let b): "remove \(a)-\(b)"
      }
    }
  }

  @Test(
    "property 6: for any requests, answers and removals, friendship is mutual and as expected",
    arguments: StoreKind.allCases)
  func property6_friendshipIsMutual(kind: StoreKind) async throws {
    let step = zip(Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...3)).map {
      drawn -> Step in
      let (kind, a, b) = drawn
      return switch kind {
      case 0: .send(a, b)
      case 1: .accept(a, b)
      case 2: .decline(a, b)
      default: .remove(a, b)
      }
    }
    try await withPlayerWorld(kind) { world in
      await propertyCheck(count: 25, input: step.array(of: 1...14)) { steps in
        let players = try! await (0..<4).asyncMap { _ in try await world.player() }
        // The oracle: pending requests as (sender, recipient) and friendships as sorted pairs.
        var pending: [Set<Int>: (Int, Int64)] = [:]
        var friends = Set<Set<Int>>()
        for step in steps {
          switch step {
          case .send(let a, let b):
            let before = pending[[a, b]]
            var sent: FriendRequest?
            let result = await rpcError {
              sent = try await world.client.friends.sendFriendRequest(
                .init(userID: players[b].id), options: players[a].options)
            }
            if a == b {
              #expect(result?.reason == "NOT_YOURSELF")
            } else if friends.contains([a, b]) {
              #expect(result?.reason == "ALREADY_FRIENDS")
            } else if let (sender, _) = before, sender == a {
              #expect(result?.reason == "FRIEND_REQUEST_PENDING")
            } else if let (_, id) = before {
              // The other's pending request is accepted instead.
              #expect(sent?.id == id && sent?.state == .accepted)
              pending[[a, b]] = nil
              friends.insert([a, b])
            } else {
              #expect(sent?.state == .pending)
              if let sent { pending[[a, b]] = (a, sent.id) }
            }
          case .accept(let a, let b), .decline(let a, let b):
            let accept = if case .accept = step { true } else { false }
            guard let (sender, id) = pending[[a, b]] else { continue }
            let answerer = a
            let result = await rpcError {
              let request = AnswerFriendRequestRequest(requestID: id)
              _ =
                accept
                ? try await world.client.friends.acceptFriendRequest(
                  request, options: players[answerer].options)
                : try await world.client.friends.declineFriendRequest(
                  request, options: players[answerer].options)
            }
            if sender == answerer || a == b {
              #expect(result?.reason == "FRIEND_REQUEST_NOT_FOUND")
            } else {
              #expect(result == nil)
              pending[[a, b]] = nil
              if accept { friends.insert([a, b]) }
            }
          case .remove(let a, let b):
            let result = await rpcError {
              _ = try await world.client.friends.removeFriend(
                .init(userID: players[b].id), options: players[a].options)
            }
            // Removing is idempotent: not being friends is the outcome asked for.
            #expect(result == nil)
            friends.remove([a, b])
          }
        }
        for (index, player) in players.enumerated() {
          let listed = try! await friendIDs(world, player)
          let expected = Set(
            (0..<4).filter { $0 != index && friends.contains([index, $0]) }.map { players[$0].id })
          #expect(listed == expected, "\(steps)")
          // Mutual: whoever lists this player is listed by them.
          for other in listed {
            let theirs = try! await friendIDs(world, players.first { $0.id == other }!)
            #expect(theirs.contains(player.id))
          }
        }
      }
    }
  }

  @Test(
    "a request reaches the recipient's stream at once, and its acceptance the sender's",
    arguments: StoreKind.allCases)
  func requestAndAcceptance_areEvents(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player(nickname: "Ann")
      let bob = try await world.player(nickname: "Bob")
      var bobEvents = try await world.client.events.subscribe(options: bob.options)
        .makeAsyncIterator()
      var annEvents = try await world.client.events.subscribe(options: ann.options)
        .makeAsyncIterator()
      let sent = try await world.client.friends.sendFriendRequest(
        .init(userID: bob.id), options: ann.options)
      #expect(sent.state == .pending && sent.sender.nickname == "Ann")
      let received = try #require(try await bobEvents.next())
      #expect(received.body == .friendRequestReceived(sent))
      let accepted = try await world.client.friends.acceptFriendRequest(
        .init(requestID: sent.id), options: bob.options)
      #expect(accepted.state == .accepted)
      #expect(accepted.answeredAtUnixMs == world.clock.nowUnixMs())
      let told = try #require(try await annEvents.next())
      #expect(told.body == .friendRequestAccepted(accepted))
      #expect(try await friendIDs(world, ann) == [bob.id])
      #expect(try await friendIDs(world, bob) == [ann.id])
      let listed = try await world.client.friends.listFriends(.init(), options: ann.options)
      #expect(listed.friends.first?.player.nickname == "Bob")
      #expect(listed.friends.first?.player.reputation.punctualityPercentage == 100)
      #expect(listed.friends.first?.sinceUnixMs == world.clock.nowUnixMs())
    }
  }

  @Test(
    "two players who ask each other become friends, and the first asker is told",
    arguments: StoreKind.allCases)
  func crossedRequests_becomeFriends(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      var annEvents = try await world.client.events.subscribe(options: ann.options)
        .makeAsyncIterator()
      let first = try await world.client.friends.sendFriendRequest(
        .init(userID: bob.id), options: ann.options)
      let second = try await world.client.friends.sendFriendRequest(
        .init(userID: ann.id), options: bob.options)
      #expect(second.id == first.id && second.state == .accepted)
      #expect(try #require(try await annEvents.next()).body == .friendRequestAccepted(second))
      #expect(try await friendIDs(world, ann) == [bob.id])
    }
  }

  @Test(
    "only the recipient answers a request, once; requests list with their state",
    arguments: StoreKind.allCases)
  func answers_recipientOnly(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      let eve = try await world.player()
      let sent = try await world.client.friends.sendFriendRequest(
        .init(userID: bob.id), options: ann.options)
      for intruder in [ann, eve] {
        for accept in [true, false] {
          let error = await rpcError {
            _ =
              accept
              ? try await world.client.friends.acceptFriendRequest(
                .init(requestID: sent.id), options: intruder.options)
              : try await world.client.friends.declineFriendRequest(
                .init(requestID: sent.id), options: intruder.options)
          }
          #expect(error?.code == .notFound && error?.reason == "FRIEND_REQUEST_NOT_FOUND")
        }
      }
      let declined = try await world.client.friends.declineFriendRequest(
        .init(requestID: sent.id), options: bob.options)
      #expect(declined.state == .declined)
      let again = await rpcError {
        _ = try await world.client.friends.acceptFriendRequest(
          .init(requestID: sent.id), options: bob.options)
      }
      #expect(again?.reason == "FRIEND_REQUEST_NOT_PENDING")
      let bobs = try await world.client.friends.listFriendRequests(.init(), options: bob.options)
      #expect(bobs.incoming.map(\.state) == [.declined] && bobs.outgoing.isEmpty)
      let bobsSent = try await world.client.friends.listFriendRequests(
        .init(outgoing: true), options: bob.options)
      #expect(bobsSent.outgoing.isEmpty && bobsSent.incoming.isEmpty)
      let anns = try await world.client.friends.listFriendRequests(
        .init(outgoing: true), options: ann.options)
      #expect(anns.outgoing.map(\.id) == [sent.id] && anns.incoming.isEmpty)
      let annsReceived = try await world.client.friends.listFriendRequests(
        .init(), options: ann.options)
      #expect(annsReceived.incoming.isEmpty)
      #expect(try await friendIDs(world, bob).isEmpty)
      // A declined request may be sent again.
      _ = try await world.client.friends.sendFriendRequest(
        .init(userID: bob.id), options: ann.options)
      let unknown = await rpcError {
        _ = try await world.client.friends.sendFriendRequest(
          .init(userID: 987_654), options: ann.options)
      }
      #expect(unknown?.reason == "PLAYER_NOT_FOUND")
    }
  }

  @Test(
    "blocking ends the friendship and pending requests; the blocked player is never told",
    arguments: StoreKind.allCases)
  func block_isSilent(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      try await befriend(world, ann, bob)
      _ = try await world.client.friends.sendFriendRequest(
        .init(userID: ann.id), options: try await world.player().options)
      _ = try await world.client.friends.block(.init(userID: bob.id), options: ann.options)
      _ = try await world.client.friends.block(.init(userID: bob.id), options: ann.options)
      #expect(try await friendIDs(world, ann).isEmpty)
      #expect(try await friendIDs(world, bob).isEmpty)
      let listed = try await world.client.friends.listBlocked(.init(), options: ann.options)
      #expect(listed.players.map(\.player.userID) == [bob.id])
      #expect(
        try await world.client.friends.listBlocked(.init(), options: bob.options).players.isEmpty)

      // Bob's request behaves as any other for him; Ann never hears of it.
      var annEvents = try await world.client.events.subscribe(options: ann.options)
        .makeAsyncIterator()
      let hidden = try await world.client.friends.sendFriendRequest(
        .init(userID: ann.id), options: bob.options)
      #expect(hidden.state == .pending)
      let repeated = await rpcError {
        _ = try await world.client.friends.sendFriendRequest(
          .init(userID: ann.id), options: bob.options)
      }
      #expect(repeated?.reason == "FRIEND_REQUEST_PENDING")
      let annsRequests = try await world.client.friends.listFriendRequests(
        .init(), options: ann.options)
      #expect(!annsRequests.incoming.contains { $0.sender.userID == bob.id })
      let bobsRequests = try await world.client.friends.listFriendRequests(
        .init(outgoing: true), options: bob.options)
      #expect(bobsRequests.outgoing.first?.id == hidden.id)
      #expect(bobsRequests.outgoing.first?.state == .pending)
      let answer = await rpcError {
        _ = try await world.client.friends.acceptFriendRequest(
          .init(requestID: hidden.id), options: ann.options)
      }
      #expect(answer?.reason == "FRIEND_REQUEST_NOT_FOUND")
      // The blocker reaching out is told why it cannot.
      let toBlocked = await rpcError {
        _ = try await world.client.friends.sendFriendRequest(
          .init(userID: bob.id), options: ann.options)
      }
      #expect(toBlocked?.reason == "PLAYER_BLOCKED")
      // Ann's stream carries a later request from someone else, and never Bob's.
      let carl = try await world.player()
      let fromCarl = try await world.client.friends.sendFriendRequest(
        .init(userID: ann.id), options: carl.options)
      while let event = try await annEvents.next() {
        if case .friendRequestReceived(let request) = event.body {
          #expect(request.sender.userID != bob.id)
          if request.id == fromCarl.id { break }
        }
      }

      _ = try await world.client.friends.unblock(.init(userID: bob.id), options: ann.options)
      #expect(
        try await world.client.friends.listBlocked(.init(), options: ann.options).players.isEmpty)
      // What the block kept back stays hidden from Ann and pending for Bob; when Ann asks Bob,
      // the friendship settles Bob's request too.
      #expect(
        try await world.client.friends.listFriendRequests(.init(), options: ann.options)
          .incoming.allSatisfy { $0.sender.userID != bob.id })
      try await befriend(world, ann, bob)
      #expect(try await friendIDs(world, ann) == [bob.id])
      let settled = try await world.client.friends.listFriendRequests(
        .init(outgoing: true), options: bob.options)
      #expect(settled.outgoing.first { $0.id == hidden.id }?.state == .accepted)
    }
  }

  @Test(
    "a block hides the blocked player's pending request from the blocker only",
    arguments: StoreKind.allCases)
  func block_hidesPendingRequests(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      let dan = try await world.player()
      let fromBob = try await world.client.friends.sendFriendRequest(
        .init(userID: ann.id), options: bob.options)
      let toDan = try await world.client.friends.sendFriendRequest(
        .init(userID: dan.id), options: ann.options)
      _ = try await world.client.friends.block(.init(userID: bob.id), options: ann.options)
      _ = try await world.client.friends.block(.init(userID: dan.id), options: ann.options)
      let anns = try await world.client.friends.listFriendRequests(.init(), options: ann.options)
      #expect(!anns.incoming.contains { $0.id == fromBob.id })
      let annsSent = try await world.client.friends.listFriendRequests(
        .init(outgoing: true), options: ann.options)
      #expect(!annsSent.outgoing.contains { $0.id == toDan.id })
      // Bob's request looks to Bob as it did: pending, as a request not answered yet.
      let bobs = try await world.client.friends.listFriendRequests(
        .init(outgoing: true), options: bob.options)
      #expect(bobs.outgoing.map(\.id) == [fromBob.id])
      #expect(bobs.outgoing.first?.state == .pending)
      let accept = await rpcError {
        _ = try await world.client.friends.acceptFriendRequest(
          .init(requestID: fromBob.id), options: ann.options)
      }
      #expect(accept?.reason == "FRIEND_REQUEST_NOT_FOUND")
      // Ann's own request to Dan is withdrawn: Dan cannot accept it.
      let dans = try await world.client.friends.listFriendRequests(.init(), options: dan.options)
      #expect(dans.incoming.isEmpty)
      let danAccepts = await rpcError {
        _ = try await world.client.friends.acceptFriendRequest(
          .init(requestID: toDan.id), options: dan.options)
      }
      #expect(danAccepts?.reason == "FRIEND_REQUEST_NOT_FOUND")
    }
  }

  @Test(
    "answering again the same way returns the request unchanged, so a retry succeeds",
    arguments: StoreKind.allCases)
  func answers_areIdempotent(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      let eve = try await world.player()
      let sent = try await world.client.friends.sendFriendRequest(
        .init(userID: bob.id), options: ann.options)
      let first = try await world.client.friends.acceptFriendRequest(
        .init(requestID: sent.id), options: bob.options)
      world.clock.advance(by: 5_000)
      let again = try await world.client.friends.acceptFriendRequest(
        .init(requestID: sent.id), options: bob.options)
      #expect(again == first)
      let decline = await rpcError {
        _ = try await world.client.friends.declineFriendRequest(
          .init(requestID: sent.id), options: bob.options)
      }
      #expect(decline?.reason == "FRIEND_REQUEST_NOT_PENDING")
      let toEve = try await world.client.friends.sendFriendRequest(
        .init(userID: eve.id), options: ann.options)
      let declined = try await world.client.friends.declineFriendRequest(
        .init(requestID: toEve.id), options: eve.options)
      #expect(
        try await world.client.friends.declineFriendRequest(
          .init(requestID: toEve.id), options: eve.options) == declined)
      // Ann's inbox has one acceptance, not two.
      let inbox = try await world.store.events(playerID: ann.id, after: 0, limit: 10)
      #expect(inbox.count == 1)
    }
  }

  @Test(
    "nobody befriends or blocks themselves, and removing a non-friend changes nothing",
    arguments: StoreKind.allCases)
  func selfAndStrangers(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      for call in [
        {
          _ = try await world.client.friends.sendFriendRequest(
            .init(userID: ann.id), options: ann.options)
        },
        { _ = try await world.client.friends.block(.init(userID: ann.id), options: ann.options) },
      ] as [() async throws -> Void] {
        let error = await rpcError(call)
        #expect(error?.code == .invalidArgument && error?.reason == "NOT_YOURSELF")
        #expect(error?.violations.first?.field == "user_id")
      }
      let stranger = try await world.player()
      let removal = await rpcError {
        _ = try await world.client.friends.removeFriend(
          .init(userID: stranger.id), options: ann.options)
      }
      #expect(removal == nil)
      #expect(try await friendIDs(world, ann).isEmpty)
      #expect(try await friendIDs(world, stranger).isEmpty)
      let blockUnknown = await rpcError {
        _ = try await world.client.friends.block(.init(userID: 555_555), options: ann.options)
      }
      #expect(blockUnknown?.reason == "PLAYER_NOT_FOUND")
    }
  }

  @Test(
    "players blocked either way never see each other nearby or as match candidates",
    arguments: StoreKind.allCases)
  func blocked_hiddenFromNearbyAndMatches(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bob = try await world.player()
      let carl = try await world.player()
      for (player, miles) in [(ann, 0.0), (bob, 1.0), (carl, 2.0)] {
        let point = MatchingTests.north(miles)
        _ = try await world.client.players.updateLocation(
          .init(latitude: point.latitude, longitude: point.longitude), options: player.options)
      }
      var posted: [Int64: Availability] = [:]
      for player in [ann, bob, carl] {
        posted[player.id] = try await world.client.matching.postAvailability(
          MatchingTests.request(), options: player.options)
      }
      func nearby(_ player: PlayerWorld.Player) async throws -> Set<Int64> {
        Set(
          try await world.client.players.nearbyPlayers(
            .init(radiusMiles: 10), options: player.options
          ).players.map(\.userID))
      }
      func candidates(_ player: PlayerWorld.Player) async throws -> Set<Int64> {
        Set(
          try await world.client.matching.findMatches(
            .init(availabilityID: posted[player.id]!.id), options: player.options
          ).candidates.map(\.userID))
      }
      #expect(try await nearby(ann) == [bob.id, carl.id])
      #expect(try await candidates(bob) == [ann.id, carl.id])
      _ = try await world.client.friends.block(.init(userID: bob.id), options: ann.options)
      #expect(try await nearby(ann) == [carl.id])
      #expect(try await nearby(bob) == [carl.id])
      #expect(try await candidates(ann) == [carl.id])
      #expect(try await candidates(bob) == [carl.id])
      _ = try await world.client.friends.unblock(.init(userID: bob.id), options: ann.options)
      #expect(try await nearby(bob) == [ann.id, carl.id])
      #expect(try await candidates(ann) == [bob.id, carl.id])
    }
  }
}

extension Sequence where Element: Sendable {
  /// The results of `transform` on each element, in order.
  func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var result: [T] = []
    for element in self { result.append(try await transform(element)) }
    return result
  }
}
