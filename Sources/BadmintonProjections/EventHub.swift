public import BadmintonRPC
public import BadmintonStore
import Synchronization

/// Hands every event committed to a player's inbox to that player's live subscribers, as the
/// change feed publishes it: no write has to announce its events, and no subscriber reads the
/// store for a new one. The feed publishes in commit order, and a player's sequences rise in
/// commit order, so each subscriber receives its player's new events in sequence order.
///
/// A subscriber receives the events of one committed transaction together: one hand-over, and
/// one wake-up of the subscriber, per transaction rather than per event (a group commit of 64
/// messages to one player is one batch of 64 events).
///
/// A subscriber's buffer is the events handed to it that it has not taken yet. When that passes
/// `maximumBuffered`, its stream ends with RESOURCE_EXHAUSTED (`SUBSCRIBER_TOO_SLOW`) and the
/// client resubscribes from its cursor; a slow subscriber therefore holds up nobody and its
/// memory stays bounded.
public final class EventHub: Sendable {
  /// One subscriber's buffer, shared by the hub, which fills it, and the subscription, which
  /// takes from it.
  fileprivate final class Mailbox: Sendable {
    let continuation: AsyncThrowingStream<[EventRecord], any Error>.Continuation
    /// Events handed over and not taken yet.
    let buffered = Atomic<Int>(0)
    /// Set once the subscriber fell too far behind.
    let overflowed = Atomic<Bool>(false)

    init(_ continuation: AsyncThrowingStream<[EventRecord], any Error>.Continuation) {
      self.continuation = continuation
    }
  }

  private struct State {
    var subscribers: [Int64: [Int: Mailbox]] = [:]
    var nextID = 0
  }

  private let state = Mutex(State())
  /// Events a subscriber may hold untaken before its stream is ended.
  public let maximumBuffered: Int

  /// A hub fed by `feed`, whose subscribers may hold `maximumBuffered` events untaken (default
  /// 256).
  public init(feed: ChangeFeed, maximumBuffered: Int = 256) {
    self.maximumBuffered = maximumBuffered
    feed.subscribe { [weak self] committed in self?.deliver(committed) }
  }

  /// The subscriber ended for falling behind.
  public static let subscriberTooSlow = RPCError(
    code: .resourceExhausted, reason: "SUBSCRIBER_TOO_SLOW",
    message: LocalizedText(
      en:
        "Events arrived faster than this stream read them; subscribe again from the last sequence received.",
      zhCN: "事件到达速度超过了读取速度，请从最后收到的序号重新订阅。"))

  /// One live subscription: the player's events committed from the moment it was made, in
  /// sequence order, until it is cancelled or falls behind (then it throws
  /// `subscriberTooSlow`). Each element is the player's events of one committed transaction, in
  /// sequence order, never empty.
  public struct Subscription: AsyncSequence, Sendable {
    /// The player's new events of one transaction.
    public typealias Element = [EventRecord]
    /// Ends with `subscriberTooSlow`, or with the task's cancellation.
    public typealias Failure = any Error

    fileprivate let mailbox: Mailbox
    fileprivate let stream: AsyncThrowingStream<[EventRecord], any Error>

    /// Takes the events one transaction at a time, each batch leaving the subscriber's buffer.
    public struct AsyncIterator: AsyncIteratorProtocol {
      fileprivate var base: AsyncThrowingStream<[EventRecord], any Error>.AsyncIterator
      fileprivate let mailbox: Mailbox

      /// The next transaction's events, or nil once the subscription was cancelled.
      public mutating func next() async throws -> [EventRecord]? {
        guard let records = try await base.next() else { return nil }
        mailbox.buffered.subtract(records.count, ordering: .relaxed)
        return records
      }
    }

    /// An iterator over the events.
    public func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(base: stream.makeAsyncIterator(), mailbox: mailbox)
    }

    /// Stops collecting events: the hub forgets the subscriber.
    public func cancel() {
      mailbox.continuation.finish()
    }

    /// Throws `subscriberTooSlow` once the subscriber has fallen too far behind: a delivery
    /// checks it before each event, so that a subscriber stuck sending is ended too, even while
    /// it sends events it took earlier or read from the store.
    public func ensureKeepingUp() throws {
      if mailbox.overflowed.load(ordering: .acquiring) { throw EventHub.subscriberTooSlow }
    }
  }

  /// Starts collecting `playerID`'s events: every event the feed publishes from now on.
  public func subscribe(playerID: Int64) -> Subscription {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [EventRecord].self)
    let mailbox = Mailbox(continuation)
    let id = state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.subscribers[playerID, default: [:]][id] = mailbox
      return id
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { state in
        state.subscribers[playerID]?[id] = nil
        if state.subscribers[playerID]?.isEmpty == true { state.subscribers[playerID] = nil }
      }
    }
    return Subscription(mailbox: mailbox, stream: stream)
  }

  /// Hands the events of one committed transaction to their players' subscribers, each
  /// subscriber its player's events in one batch. Called on the store's writer: it only appends
  /// to buffers.
  private func deliver(_ committed: CommittedChanges) {
    let deliveries = state.withLock { state -> [(Mailbox, [EventRecord])] in
      guard !state.subscribers.isEmpty else { return [] }
      // The players with subscribers, in the order of their first event, each with its events
      // in commit order (and so in sequence order).
      var players: [(playerID: Int64, events: [EventRecord])] = []
      var positions: [Int64: Int] = [:]
      for change in committed.changes {
        guard case .event(let record) = change, state.subscribers[record.playerID] != nil
        else { continue }
        if let position = positions[record.playerID] {
          players[position].events.append(record)
        } else {
          positions[record.playerID] = players.count
          players.append((record.playerID, [record]))
        }
      }
      var deliveries: [(Mailbox, [EventRecord])] = []
      for (playerID, events) in players {
        for mailbox in state.subscribers[playerID]!.values { deliveries.append((mailbox, events)) }
      }
      return deliveries
    }
    for (mailbox, records) in deliveries {
      guard !mailbox.overflowed.load(ordering: .relaxed) else { continue }
      let (before, buffered) = mailbox.buffered.add(records.count, ordering: .relaxed)
      // A subscriber that has taken everything gets a commit's events whole, however many:
      // falling behind means events it has not taken yet when more arrive.
      if before > 0, buffered > maximumBuffered {
        mailbox.overflowed.store(true, ordering: .releasing)
        mailbox.continuation.finish(throwing: Self.subscriberTooSlow)
      } else {
        mailbox.continuation.yield(records)
      }
    }
  }

  /// Ends every live subscription of `playerID` with `error` (a suspended player's streams).
  public func end(playerID: Int64, throwing error: any Error) {
    let mailboxes = state.withLock { state in
      state.subscribers[playerID].map { Array($0.values) } ?? []
    }
    for mailbox in mailboxes { mailbox.continuation.finish(throwing: error) }
  }

  /// How many live subscriptions `playerID` has.
  public func subscriberCount(of playerID: Int64) -> Int {
    state.withLock { $0.subscribers[playerID]?.count ?? 0 }
  }
}
