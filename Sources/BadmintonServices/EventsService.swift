public import BadmintonAPI
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Events`: a player's stored events after a cursor, then new ones as they
/// happen, each read from the inbox in sequence order.
public struct EventsService: Events.ServiceProtocol {
  private let store: any PlayerStore
  private let hub: EventHub
  /// Events read from the store at a time.
  static let pageSize = 100

  /// The service over `store`, woken by `hub`.
  public init(store: any PlayerStore, hub: EventHub) {
    self.store = store
    self.hub = hub
  }

  public func subscribe(
    _ request: SubscribeRequest, context: ServerContext, events: ResponseStreamWriter<Event>
  ) async throws {
    let caller = try context.requirePrincipal()
    // Subscribe before reading the inbox: an event committed in between is then both read and
    // announced, never missed; the cursor keeps it from being sent twice.
    let subscription = hub.subscribe(playerID: caller.userID)
    var cursor = request.afterSequence
    cursor = try await deliver(caller.userID, after: cursor, to: events, subscription)
    for try await _ in subscription.wakeUps {
      cursor = try await deliver(caller.userID, after: cursor, to: events, subscription)
    }
    // The wake-ups end only when the call is cancelled.
    throw CancellationError()
  }

  /// Sends every stored event after `cursor`; returns the last sequence sent.
  private func deliver(
    _ playerID: Int64, after cursor: UInt64, to writer: ResponseStreamWriter<Event>,
    _ subscription: EventHub.Subscription
  ) async throws -> UInt64 {
    hub.startedDelivery(subscription)
    var cursor = cursor
    while true {
      let page = try await store.events(playerID: playerID, after: cursor, limit: Self.pageSize)
      for record in page {
        try hub.ensureKeepingUp(subscription)
        var event = (try? Event(serializedBytes: record.payload)) ?? Event()
        event.sequence = record.sequence
        event.createdAtUnixMs = record.createdAtUnixMs
        try await writer.write(event)
        cursor = record.sequence
      }
      if page.count < Self.pageSize { return cursor }
    }
  }
}

/// Puts events in players' inboxes and wakes their subscribers. Services that notify a player
/// publish through it; when the event belongs with another write, they write it in that
/// write's transaction instead and call `announce`.
public struct EventPublisher: Sendable {
  private let store: any PlayerStore
  private let hub: EventHub
  private let clock: any WallClock

  /// A publisher over `store` and `hub`.
  public init(store: any PlayerStore, hub: EventHub, clock: any WallClock) {
    self.store = store
    self.hub = hub
    self.clock = clock
  }

  /// Stores `body` in each player's inbox, then wakes their subscribers; returns the sequences.
  @discardableResult
  public func publish(_ body: Event.Body, to playerIDs: [Int64]) async throws -> [UInt64] {
    try await publish(playerIDs.map { (body, $0) })
  }

  /// Stores each event in its player's inbox, all in one transaction, then wakes their
  /// subscribers; returns the sequences.
  @discardableResult
  public func publish(_ events: [(body: Event.Body, playerID: Int64)]) async throws -> [UInt64] {
    guard !events.isEmpty else { return [] }
    let sequences = try await store.appendEvents(
      events.map { (playerID: $0.playerID, payload: Event(body: $0.body).serializedBytes()) },
      atUnixMs: clock.nowUnixMs())
    for playerID in Set(events.map(\.playerID)) { hub.notify(playerID: playerID) }
    return sequences
  }

  /// Wakes the subscribers of `playerID` after an event was committed with another write.
  public func announce(to playerID: Int64) {
    hub.notify(playerID: playerID)
  }
}
