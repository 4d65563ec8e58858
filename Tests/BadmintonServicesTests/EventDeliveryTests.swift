import BadmintonAPI
import BadmintonProjections
import BadmintonRPC
import BadmintonStore
import Logging
import PropertyBased
import StoreTestSupport
import Synchronization
import Testing

@testable import BadmintonServices

@Suite("Event delivery")
struct EventDeliveryTests {
  private static func player(_ store: any PlayerStore, phone: String) async throws -> PlayerRecord {
    try await store.createPlayer(
      NewPlayer(
        phone: phone, nickname: "Reader",
        password: PasswordDigest(hash: [1], salt: [2], parameters: "x"),
        selfLevel: 3, locale: "en", joinedAtUnixMs: 0))
  }

  /// The stream message as it was made before the stored bytes were passed through: the
  /// payload decoded, the two fields set, encoded again.
  private static func decodedAndEncoded(_ record: EventRecord) throws -> [UInt8] {
    var event = try Event(serializedBytes: record.payload)
    event.sequence = record.sequence
    event.createdAtUnixMs = record.createdAtUnixMs
    return event.serializedBytes()
  }

  @Test("for any stored event, the stream's bytes are those of decoding and encoding it again")
  func streamMessage_matchesDecodeAndEncode() async {
    await propertyCheck(
      count: 500, input: Gen.uint64(), Gen.int64(), Gen.int64(), Gen.int(in: 0...3)
    ) { sequence, createdAt, id, kind in
      let body: Event.Body =
        switch kind {
        case 0:
          .messageReceived(
            DirectMessage(
              id: id, threadID: id / 3, senderID: 7, recipientID: 8, clientMessageID: "c\(id)",
              text: String(repeating: "羽", count: Int(UInt64(bitPattern: id) % 200)),
              sentAtUnixMs: createdAt))
        case 1: .verificationReviewed(Verification(id: id))
        case 2:
          .messageReceipt(
            MessageReceipt(threadID: id, kind: .read, messageIDs: [id, 1, 2], atUnixMs: createdAt))
        default: .matchCancelled(MatchChanged())
        }
      let record = EventRecord(
        playerID: 1, sequence: sequence, createdAtUnixMs: createdAt,
        payload: Event(body: body).serializedBytes())
      let bytes = EventsService.streamMessage(record)
      #expect(bytes == (try Self.decodedAndEncoded(record)))
      let event = try Event(serializedBytes: bytes)
      #expect(event.sequence == sequence)
      #expect(event.createdAtUnixMs == createdAt)
      #expect(event.body == body)
    }
  }

  @Test(
    "the events of one transaction reach a subscriber as one batch, in sequence order",
    arguments: StoreKind.allCases)
  func hub_handsOverATransactionAsOneBatch(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let owner = try await Self.player(store, phone: "+8613800009996")
      let other = try await Self.player(store, phone: "+8613800009995")
      let hub = EventHub(feed: store.feed)
      let subscription = hub.subscribe(playerID: owner.id)
      defer { subscription.cancel() }
      let publisher = EventPublisher(store: store, clock: ManualClock())
      let body = Event.Body.verificationReviewed(Verification(id: 1))
      // One transaction: three of the owner's events with another player's between them.
      try await publisher.publish([
        (body, owner.id), (body, other.id), (body, owner.id), (body, owner.id),
      ])
      try await publisher.publish(body, to: [owner.id])
      var batches = subscription.makeAsyncIterator()
      let first = try #require(try await batches.next())
      #expect(first.map(\.sequence) == [1, 2, 3])
      #expect(first.allSatisfy { $0.playerID == owner.id })
      let second = try #require(try await batches.next())
      #expect(second.map(\.sequence) == [4])
    }
  }

  @Test(
    "a subscriber that has taken everything gets a transaction whole, even past the buffer",
    arguments: StoreKind.allCases)
  func hub_oneTransactionOverTheBuffer_reachesACaughtUpSubscriber(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let owner = try await Self.player(store, phone: "+8613800009993")
      let hub = EventHub(feed: store.feed, maximumBuffered: 4)
      let subscription = hub.subscribe(playerID: owner.id)
      defer { subscription.cancel() }
      let publisher = EventPublisher(store: store, clock: ManualClock())
      let body = Event.Body.verificationReviewed(Verification(id: 1))
      // Others' many messages in one group commit must not cut a stream that is keeping up.
      try await publisher.publish(Array(repeating: (body, owner.id), count: 9))
      try subscription.ensureKeepingUp()
      var batches = subscription.makeAsyncIterator()
      let batch = try #require(try await batches.next())
      #expect(batch.map(\.sequence) == Array(1...9))
      #expect(hub.subscriberCount(of: owner.id) == 1)
    }
  }

  @Test(
    "a transaction that passes the buffer while events wait untaken ends the stream, and a resubscription replays them",
    arguments: StoreKind.allCases)
  func hub_oneTransactionOverTheBuffer_endsTheStream(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let owner = try await Self.player(store, phone: "+8613800009994")
      let hub = EventHub(feed: store.feed, maximumBuffered: 4)
      let subscription = hub.subscribe(playerID: owner.id)
      let publisher = EventPublisher(store: store, clock: ManualClock())
      let body = Event.Body.verificationReviewed(Verification(id: 1))
      // One event not taken yet, then a transaction of four: five waiting, one over.
      try await publisher.publish(body, to: [owner.id])
      try subscription.ensureKeepingUp()
      try await publisher.publish(Array(repeating: (body, owner.id), count: 4))
      #expect(throws: EventHub.subscriberTooSlow) { try subscription.ensureKeepingUp() }
      // What was handed over before still arrives (the gap-free prefix), then the end.
      var batches = subscription.makeAsyncIterator()
      #expect(try await batches.next()?.map(\.sequence) == [1])
      await #expect(throws: EventHub.subscriberTooSlow) { _ = try await batches.next() }
      #expect(hub.subscriberCount(of: owner.id) == 0)

      // Subscribing again from the start replays all five from the inbox, in order.
      let service = EventsService(store: store, hub: hub)
      let (sent, sending) = AsyncStream.makeStream(of: UInt64.self)
      let writer = ResponseStreamWriter<Event>(
        sink: RawResponseSink { bytes in sending.yield(try Event(serializedBytes: bytes).sequence) }
      )
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
        if received.count == 5 { break }
      }
      subscriber.cancel()
      _ = await subscriber.result
      #expect(received == [1, 2, 3, 4, 5])
    }
  }

  @Test(
    "a stream sends each batch's events in order, in one hand-over, each once",
    arguments: StoreKind.allCases)
  func subscribe_sendsABatchTogether(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let owner = try await Self.player(store, phone: "+8613800009993")
      let hub = EventHub(feed: store.feed)
      let service = EventsService(store: store, hub: hub)
      let publisher = EventPublisher(store: store, clock: ManualClock())
      let body = Event.Body.verificationReviewed(Verification(id: 1))
      let (handOvers, handingOver) = AsyncStream.makeStream(of: [UInt64].self)
      let writer = ResponseStreamWriter<Event>(
        sink: RawResponseSink(
          send: { bytes in handingOver.yield([try Event(serializedBytes: bytes).sequence]) },
          sendAll: { messages in
            handingOver.yield(try messages.map { try Event(serializedBytes: $0).sequence })
          }))
      let context = ServerContext(
        callID: 1, method: Events.subscribe.path, metadata: [], deadline: nil, peer: "test",
        logger: Logger(label: "test"),
        principal: Principal(userID: owner.id, isAdministrator: false))
      // Stored before: replayed.
      try await publisher.publish(body, to: [owner.id])
      let subscriber = Task {
        try await service.subscribe(SubscribeRequest(), context: context, events: writer)
      }
      var received: [[UInt64]] = []
      for await handOver in handOvers where !handOver.isEmpty {
        received.append(handOver)
        // The replay is sent (the subscription was made before it): three in one transaction.
        if received.count == 1 {
          try await publisher.publish(Array(repeating: (body, owner.id), count: 3))
        }
        if received.flatMap({ $0 }).count == 4 { break }
      }
      subscriber.cancel()
      _ = await subscriber.result
      #expect(received == [[1], [2, 3, 4]])
      #expect(hub.subscriberCount(of: owner.id) == 0)
    }
  }

  @Test("a batch is handed to the connection in parts of at most 256 KiB, in order, each once")
  func stream_handsOverInBoundedParts() async throws {
    let handOvers = Mutex<[[Int]]>([])
    let writer = ResponseStreamWriter<Event>(
      sink: RawResponseSink(
        send: { bytes in handOvers.withLock { $0.append([bytes.count]) } },
        sendAll: { messages in handOvers.withLock { $0.append(messages.map(\.count)) } }))
    // Ten events of 60,000 bytes: four fit in 256 KiB (240,000 bytes), five do not.
    let messages = (0..<10).map { [UInt8](repeating: UInt8($0), count: 60_000) }
    try await EventsService.write(messages, to: writer)
    #expect(
      handOvers.withLock { $0 } == [
        [60_000, 60_000, 60_000, 60_000], [60_000, 60_000, 60_000, 60_000], [60_000, 60_000],
      ])
    // One event larger than a part still goes, alone; small ones share a hand-over.
    handOvers.withLock { $0 = [] }
    try await EventsService.write(
      [[1, 2], [UInt8](repeating: 0, count: 300_000), [3]], to: writer)
    #expect(handOvers.withLock { $0 } == [[2], [300_000], [1]])
  }

}
