import BadmintonAPI
import BadmintonRPC
import BadmintonStore
import Logging
import PropertyBased
import Synchronization
import Testing

@testable import BadmintonServices

@Suite("Event delivery")
struct EventDeliveryTests {
  private static func player(_ store: SQLitePlayerStore, phone: String) async throws -> PlayerRecord
  {
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

  @Test("the events of one transaction reach a subscriber as one batch, in sequence order")
  func hub_handsOverATransactionAsOneBatch() async throws {
    let store = try SQLitePlayerStore.inMemory()
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

  @Test(
    "a transaction that alone passes the buffer ends the stream, and a resubscription replays it")
  func hub_oneTransactionOverTheBuffer_endsTheStream() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let owner = try await Self.player(store, phone: "+8613800009994")
    let hub = EventHub(feed: store.feed, maximumBuffered: 4)
    let subscription = hub.subscribe(playerID: owner.id)
    let publisher = EventPublisher(store: store, clock: ManualClock())
    let body = Event.Body.verificationReviewed(Verification(id: 1))
    try await publisher.publish(Array(repeating: (body, owner.id), count: 5))
    #expect(throws: EventHub.subscriberTooSlow) { try subscription.ensureKeepingUp() }
    var batches = subscription.makeAsyncIterator()
    await #expect(throws: EventHub.subscriberTooSlow) { _ = try await batches.next() }
    #expect(hub.subscriberCount(of: owner.id) == 0)

    // Subscribing again from the start replays all five from the inbox, in order.
    let service = EventsService(store: store, hub: hub)
    let (sent, sending) = AsyncStream.makeStream(of: UInt64.self)
    let writer = ResponseStreamWriter<Event>(
      sink: RawResponseSink { bytes in sending.yield(try Event(serializedBytes: bytes).sequence) })
    let context = ServerContext(
      callID: 1, method: Events.subscribe.path, metadata: [], deadline: nil, peer: "test",
      logger: Logger(label: "test"), principal: Principal(userID: owner.id, isAdministrator: false))
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

  @Test("a stream sends each batch's events in order, in one hand-over, each once")
  func subscribe_sendsABatchTogether() async throws {
    let store = try SQLitePlayerStore.inMemory()
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
      logger: Logger(label: "test"), principal: Principal(userID: owner.id, isAdministrator: false))
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
