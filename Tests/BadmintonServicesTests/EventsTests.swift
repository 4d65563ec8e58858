import BadmintonAPI
import BadmintonProjections
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Logging
import StoreTestSupport
import Synchronization
import Testing

@Suite("Live events")
struct EventsTests {
  private func review(
    _ world: PlayerWorld, owner: PlayerWorld.Player, admin: PlayerWorld.Player, approve: Bool
  )
    async throws -> Verification
  {
    let request = try await world.client.players.submitVerification(
      .init(kind: .regionalChampionship, document: pngDocument), options: owner.options)
    return try await world.client.players.reviewVerification(
      .init(verificationID: request.id, approve: approve, note: approve ? "ok" : "no"),
      options: admin.options)
  }

  @Test(
    "a review reaches the owner's live stream, and every connection of the owner gets it",
    arguments: StoreKind.allCases)
  func liveEvent_reachesEveryConnection(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let admin = try await world.administrator()
      let second = RPCClient(host: "127.0.0.1", port: world.port)
      var first = try await world.client.events.subscribe(options: owner.options)
        .makeAsyncIterator()
      var other = try await second.events.subscribe(options: owner.options).makeAsyncIterator()
      let reviewed = try await review(world, owner: owner, admin: admin, approve: true)
      for stream in [try await first.next(), try await other.next()] {
        let event = try #require(stream)
        #expect(event.sequence == 1)
        #expect(event.body == .verificationReviewed(reviewed))
        #expect(event.createdAtUnixMs == world.clock.nowUnixMs())
      }
      await second.close()
    }
  }

  @Test(
    "a player who reconnects gets what they missed, in order, from their cursor",
    arguments: StoreKind.allCases)
  func replay_afterReconnect(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let admin = try await world.administrator()
      var reviews: [Verification] = []
      for round in 0..<5 {
        reviews.append(try await review(world, owner: owner, admin: admin, approve: round % 2 == 0))
      }
      // Offline the whole time: everything is replayed from the start.
      var all: [Event] = []
      for try await event in try await world.client.events.subscribe(options: owner.options) {
        all.append(event)
        if all.count == 5 { break }
      }
      #expect(all.map(\.sequence) == [1, 2, 3, 4, 5])
      #expect(all.map(\.body) == reviews.map { .verificationReviewed($0) })
      // From cursor 3: only 4 and 5, then the live ones.
      var resumed = try await world.client.events.subscribe(
        .init(afterSequence: 3), options: owner.options
      )
      .makeAsyncIterator()
      #expect(try await resumed.next()?.sequence == 4)
      #expect(try await resumed.next()?.sequence == 5)
      let live = try await review(world, owner: owner, admin: admin, approve: true)
      let next = try #require(try await resumed.next())
      #expect(next.sequence == 6)
      #expect(next.body == .verificationReviewed(live))
    }
  }

  @Test(
    "events go only to their player, and subscribing needs a session", arguments: StoreKind.allCases
  )
  func events_arePrivate(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let owner = try await world.player()
      let other = try await world.player()
      let admin = try await world.administrator()
      _ = try await review(world, owner: owner, admin: admin, approve: true)
      let stranger = try await world.client.events.subscribe(
        options: CallOptions(timeout: .milliseconds(300), bearerToken: other.token))
      let error = await rpcError { for try await _ in stranger { Issue.record("an event leaked") } }
      #expect(error?.code == .deadlineExceeded)
      let anonymous = await rpcError {
        for try await _ in try await world.client.events.subscribe() {}
      }
      #expect(anonymous?.reason == "AUTHENTICATION_REQUIRED")
    }
  }

  @Test(
    "a subscriber that falls behind is ended with SUBSCRIBER_TOO_SLOW after a gap-free prefix",
    .timeLimit(.minutes(5)), arguments: StoreKind.allCases)
  func slowSubscriber_isEnded(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let owner = try await store.createPlayer(
        NewPlayer(
          phone: "+8613800009999", nickname: "Slow",
          password: PasswordDigest(hash: [1], salt: [2], parameters: "x"),
          selfLevel: 3, locale: "en", joinedAtUnixMs: 0))
      let hub = EventHub(feed: store.feed, maximumBuffered: 5)
      let publisher = EventPublisher(store: store, clock: clock)
      let service = EventsService(store: store, hub: hub)

      // A writer that takes the first event, tells the test, then blocks until released.
      let received = Mutex<[UInt64]>([])
      let (gate, release) = AsyncStream.makeStream(of: Void.self)
      let (first, firstArrived) = AsyncStream.makeStream(of: Void.self)
      let writer = ResponseStreamWriter<Event>(
        sink: RawResponseSink { bytes in
          let event = try Event(serializedBytes: bytes)
          let count = received.withLock { list in
            list.append(event.sequence)
            return list.count
          }
          if count == 1 {
            firstArrived.yield(())
            firstArrived.finish()
            for await _ in gate { break }
          }
        })
      let context = ServerContext(
        callID: 1, method: Events.subscribe.path, metadata: [], deadline: nil, peer: "test",
        logger: Logger(label: "test"),
        principal: Principal(userID: owner.id, isAdministrator: false))

      let body = Event.Body.verificationReviewed(Verification(id: 1))
      try await publisher.publish(body, to: [owner.id])
      let subscriber = Task {
        try await service.subscribe(SubscribeRequest(), context: context, events: writer)
      }
      // Waits for the first event. The test's time limit ends a failure to arrive: the wait ends
      // on the cancellation, and so does the subscriber.
      for await _ in first { break }
      guard received.withLock({ $0 == [1] }) else {
        Issue.record("the first event never arrived alone: \(received.withLock { $0 })")
        subscriber.cancel()
        release.finish()
        return
      }
      // Twenty events arrive while the subscriber is stuck on the first.
      for _ in 0..<20 { try await publisher.publish(body, to: [owner.id]) }
      release.yield(())
      release.finish()
      let outcome = await subscriber.result
      #expect(throws: EventHub.subscriberTooSlow) { try outcome.get() }
      let sequences = received.withLock { $0 }
      #expect(sequences == Array(1...UInt64(sequences.count)))
      #expect(sequences.count < 21)
      #expect(hub.subscriberCount(of: owner.id) == 0)

      // Resubscribing from the last sequence received gets the rest, told as each arrives.
      let rest = Mutex<[UInt64]>([])
      let (arrivals, arrived) = AsyncStream.makeStream(of: Int.self)
      let catchUp = ResponseStreamWriter<Event>(
        sink: RawResponseSink { bytes in
          let sequence = try Event(serializedBytes: bytes).sequence
          arrived.yield(
            rest.withLock { list in
              list.append(sequence)
              return list.count
            })
        })
      let resumed = Task {
        try await service.subscribe(
          SubscribeRequest(afterSequence: sequences.last!), context: context, events: catchUp)
      }
      for await count in arrivals where sequences.count + count >= 21 { break }
      resumed.cancel()
      _ = await resumed.result
      #expect(sequences + rest.withLock { $0 } == Array(1...21))
    }
  }

  @Test(
    "events committed while the inbox is replayed are each sent once, in sequence order",
    arguments: StoreKind.allCases)
  func replay_handsOverToTheFeedWithoutGapsOrDuplicates(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let owner = try await store.createPlayer(
        NewPlayer(
          phone: "+8613800009998", nickname: "Replay",
          password: PasswordDigest(hash: [1], salt: [2], parameters: "x"),
          selfLevel: 3, locale: "en", joinedAtUnixMs: 0))
      let hub = EventHub(feed: store.feed, maximumBuffered: 16)
      let publisher = EventPublisher(store: store, clock: clock)
      let service = EventsService(store: store, hub: hub)
      let body = Event.Body.verificationReviewed(Verification(id: 1))
      // A full page of the replay (100 events), so that it reads a second page.
      try await publisher.publish(Array(repeating: (body, owner.id), count: 100))

      let (sent, sending) = AsyncStream.makeStream(of: UInt64.self)
      let writer = ResponseStreamWriter<Event>(
        sink: RawResponseSink { bytes in
          let sequence = try Event(serializedBytes: bytes).sequence
          if sequence == 1 {
            // Committed after the subscription, before the second page is read: both the inbox
            // and the feed have it.
            try await publisher.publish(body, to: [owner.id])
          }
          sending.yield(sequence)
        })
      let context = ServerContext(
        callID: 1, method: Events.subscribe.path, metadata: [], deadline: nil, peer: "test",
        logger: Logger(label: "test"),
        principal: Principal(userID: owner.id, isAdministrator: false))
      let subscriber = Task {
        try await service.subscribe(SubscribeRequest(), context: context, events: writer)
      }
      var received: [UInt64] = []
      for await sequence in sent {
        received.append(sequence)
        // One more, while the replay ends or after it: from the inbox or the feed.
        if sequence == 100 { try await publisher.publish(body, to: [owner.id]) }
        if received.count == 102 { break }
      }
      subscriber.cancel()
      _ = await subscriber.result
      #expect(received == Array(1...102))
      #expect(hub.subscriberCount(of: owner.id) == 0)
    }
  }

  @Test(
    "a stream whose write fails during the replay is forgotten by the hub",
    arguments: StoreKind.allCases)
  func failedStream_isForgotten(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let owner = try await store.createPlayer(
        NewPlayer(
          phone: "+8613800009997", nickname: "Gone",
          password: PasswordDigest(hash: [1], salt: [2], parameters: "x"),
          selfLevel: 3, locale: "en", joinedAtUnixMs: 0))
      let hub = EventHub(feed: store.feed)
      let service = EventsService(store: store, hub: hub)
      try await EventPublisher(store: store, clock: ManualClock()).publish(
        .verificationReviewed(Verification(id: 1)), to: [owner.id])
      struct ConnectionClosed: Error {}
      let writer = ResponseStreamWriter<Event>(
        sink: RawResponseSink { _ in throw ConnectionClosed() })
      let context = ServerContext(
        callID: 1, method: Events.subscribe.path, metadata: [], deadline: nil, peer: "test",
        logger: Logger(label: "test"),
        principal: Principal(userID: owner.id, isAdministrator: false))
      await #expect(throws: ConnectionClosed.self) {
        try await service.subscribe(SubscribeRequest(), context: context, events: writer)
      }
      #expect(hub.subscriberCount(of: owner.id) == 0)
    }
  }
}
