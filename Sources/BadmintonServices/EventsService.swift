public import BadmintonAPI
import BadmintonDomain
public import BadmintonProjections
public import BadmintonRPC
public import BadmintonStore

/// `badminton.v1.Events`: a player's stored events after a cursor, read from the inbox, then the
/// new ones as the change feed hands them over.
///
/// A player's streams end with `ACCOUNT_SUSPENDED` when they are suspended (`PlayerServices`
/// ends them as the feed hands the suspension over).
public struct EventsService: Events.ServiceProtocol {
  private let store: any PlayerStore
  private let hub: EventHub
  private let suspensions: SuspensionBook?
  private let clock: any WallClock
  /// Events read from the store at a time.
  static let pageSize = 100

  /// The service over `store`, with new events from `hub`; the players `suspensions` holds
  /// suspended get no stream.
  public init(
    store: any PlayerStore, hub: EventHub, suspensions: SuspensionBook? = nil,
    clock: any WallClock = SystemWallClock()
  ) {
    self.store = store
    self.hub = hub
    self.suspensions = suspensions
    self.clock = clock
  }

  public func subscribe(
    _ request: SubscribeRequest, context: ServerContext, events: ResponseStreamWriter<Event>
  ) async throws {
    let caller = try context.requirePrincipal()
    // Subscribe before reading the inbox. An event committed before the subscription is in the
    // inbox when it is read; one committed after reaches the subscription; one committed in
    // between is in both, and the cursor drops the second copy.
    let subscription = hub.subscribe(playerID: caller.userID)
    // However the call ends (a failed write, a slow reader, cancellation), the hub lets go.
    defer { subscription.cancel() }
    // A suspension that reached the hub after the call was authenticated and before this
    // subscription was made ended none of its streams: looked at again now.
    if let until = suspensions?.suspendedUntil(caller.userID, nowUnixMs: clock.nowUnixMs()) {
      throw SuspensionRules.accountSuspended(untilUnixMs: until)
    }
    var cursor = try await replay(
      caller.userID, after: request.afterSequence, to: events, subscription)
    // The events of one transaction go to the writer together (one hand-over to the connection
    // where it can take several), in hand-overs of at most `handOverBytes`, each waited for.
    for try await batch in subscription {
      var pending: [[UInt8]] = []
      var pendingCursor = cursor
      for record in batch {
        guard record.sequence > pendingCursor else { continue }
        if record.sequence > pendingCursor + 1 {
          if !pending.isEmpty {
            try subscription.ensureKeepingUp()
            try await Self.write(pending, to: events)
            pending = []
          }
          cursor = pendingCursor
          // Not expected, since the feed hands over every event in commit order; should one be
          // missing, the inbox has it.
          cursor = try await replay(caller.userID, after: cursor, to: events, subscription)
          pendingCursor = cursor
          guard record.sequence > cursor else { continue }
        }
        pending.append(Self.streamMessage(record))
        pendingCursor = record.sequence
      }
      guard !pending.isEmpty else { continue }
      try subscription.ensureKeepingUp()
      try await Self.write(pending, to: events)
      cursor = pendingCursor
    }
    // The subscription ends without an error only when the call is cancelled.
    throw CancellationError()
  }

  /// The most bytes of events handed to the connection at once: a stream that is not read
  /// holds at most this much in the connection's outgoing buffer beyond one event.
  static let handOverBytes = 256 * 1024

  /// Sends `messages` in order, in hand-overs of at most `handOverBytes` (or one message), each
  /// written before the next is handed over.
  static func write(_ messages: [[UInt8]], to events: ResponseStreamWriter<Event>) async throws {
    var start = 0
    while start < messages.count {
      var end = start + 1
      var bytes = messages[start].count
      while end < messages.count, bytes + messages[end].count <= handOverBytes {
        bytes += messages[end].count
        end += 1
      }
      if start == 0, end == messages.count {
        try await events.write(serializedContentsOf: messages)
      } else {
        try await events.write(serializedContentsOf: Array(messages[start..<end]))
      }
      start = end
    }
  }

  /// Sends every stored event after `cursor`; returns the last sequence sent.
  private func replay(
    _ playerID: Int64, after cursor: UInt64, to writer: ResponseStreamWriter<Event>,
    _ subscription: EventHub.Subscription
  ) async throws -> UInt64 {
    var cursor = cursor
    while true {
      let page = try await store.events(playerID: playerID, after: cursor, limit: Self.pageSize)
      for record in page {
        try subscription.ensureKeepingUp()
        try await writer.write(serialized: Self.streamMessage(record))
        cursor = record.sequence
      }
      if page.count < Self.pageSize { return cursor }
    }
  }

  /// A stored event as the stream sends it, encoded: its `sequence` and `created_at_unix_ms`
  /// (fields 1 and 2), then the stored payload, which is the event's body encoded as an `Event`
  /// with neither set. These are the bytes of the decoded payload with both fields set, encoded
  /// again (fields in number order), made without decoding or encoding the body.
  static func streamMessage(_ record: EventRecord) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(record.payload.count + 22)
    if record.sequence != 0 {
      bytes.append(1 << 3)  // field 1, varint
      appendVarint(record.sequence, to: &bytes)
    }
    if record.createdAtUnixMs != 0 {
      bytes.append(2 << 3)  // field 2, varint
      appendVarint(UInt64(bitPattern: record.createdAtUnixMs), to: &bytes)
    }
    bytes.append(contentsOf: record.payload)
    return bytes
  }

  /// Appends `value` as a protobuf varint: seven bits a byte, lowest first.
  private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }
}

/// Puts events in players' inboxes. Services that notify a player publish through it; when the
/// event belongs with another write, they write it in that write's transaction instead. Either
/// way the change feed hands each committed event to its player's live subscribers.
public struct EventPublisher: Sendable {
  private let store: any PlayerStore
  private let clock: any WallClock

  /// A publisher over `store`.
  public init(store: any PlayerStore, clock: any WallClock) {
    self.store = store
    self.clock = clock
  }

  /// Stores `body` in each player's inbox; returns the sequences.
  @discardableResult
  public func publish(_ body: Event.Body, to playerIDs: [Int64]) async throws -> [UInt64] {
    try await publish(playerIDs.map { (body, $0) })
  }

  /// Stores each event in its player's inbox, all in one transaction; returns the sequences.
  @discardableResult
  public func publish(_ events: [(body: Event.Body, playerID: Int64)]) async throws -> [UInt64] {
    guard !events.isEmpty else { return [] }
    return try await store.appendEvents(
      events.map { (playerID: $0.playerID, payload: Event(body: $0.body).serializedBytes()) },
      atUnixMs: clock.nowUnixMs())
  }
}
