public import BadmintonRPC
import Synchronization

/// Tells live subscribers that their inbox has new events. Events themselves are read from the
/// store, which holds them in order, so a subscriber never sees a gap, a duplicate or an event
/// out of order; the hub only wakes it up.
///
/// A subscriber's buffer is the number of events that arrived while it was still sending
/// earlier ones. When that passes `maximumBuffered`, its stream ends with RESOURCE_EXHAUSTED
/// (`SUBSCRIBER_TOO_SLOW`) and the client resubscribes from its cursor; a slow subscriber
/// therefore holds up nobody and its memory stays bounded.
public final class EventHub: Sendable {
  private struct Subscriber {
    let continuation: AsyncThrowingStream<Void, any Error>.Continuation
    let overflowed: Overflow
    var pending = 0
  }

  /// Set once a subscriber fell too far behind; outlives the hub's record of the subscriber.
  fileprivate final class Overflow: Sendable {
    let flag = Atomic<Bool>(false)
  }

  private struct State {
    var subscribers: [Int64: [Int: Subscriber]] = [:]
    var nextID = 0
  }

  private let state = Mutex(State())
  /// Events a subscriber may fall behind by during one delivery before its stream is ended.
  public let maximumBuffered: Int

  /// A hub whose subscribers may fall `maximumBuffered` events behind (default 256).
  public init(maximumBuffered: Int = 256) {
    self.maximumBuffered = maximumBuffered
  }

  /// The subscriber ended for falling behind.
  public static let subscriberTooSlow = RPCError(
    code: .resourceExhausted, reason: "SUBSCRIBER_TOO_SLOW",
    message: LocalizedText(
      en:
        "Events arrived faster than this stream read them; subscribe again from the last sequence received.",
      zhCN: "事件到达速度超过了读取速度，请从最后收到的序号重新订阅。"))

  /// One live subscription: wake-ups until it is cancelled or falls behind.
  public struct Subscription: Sendable {
    fileprivate let playerID: Int64
    fileprivate let id: Int
    fileprivate let overflow: Overflow
    /// A wake-up for each batch of new events; throws `subscriberTooSlow` on overflow.
    public let wakeUps: AsyncThrowingStream<Void, any Error>
  }

  /// Starts waking a subscriber of `playerID`'s events.
  public func subscribe(playerID: Int64) -> Subscription {
    let (stream, continuation) = AsyncThrowingStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let overflow = Overflow()
    let id = state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.subscribers[playerID, default: [:]][id] = Subscriber(
        continuation: continuation, overflowed: overflow)
      return id
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { state in
        state.subscribers[playerID]?[id] = nil
        if state.subscribers[playerID]?.isEmpty == true { state.subscribers[playerID] = nil }
      }
    }
    return Subscription(playerID: playerID, id: id, overflow: overflow, wakeUps: stream)
  }

  /// The subscriber is about to read everything stored so far: its buffer is empty again.
  public func startedDelivery(_ subscription: Subscription) {
    state.withLock { $0.subscribers[subscription.playerID]?[subscription.id]?.pending = 0 }
  }

  /// Throws `subscriberTooSlow` once the subscriber has fallen too far behind; a delivery checks
  /// it before each event, so that a subscriber stuck in a long delivery is ended too.
  public func ensureKeepingUp(_ subscription: Subscription) throws {
    if subscription.overflow.flag.load(ordering: .acquiring) { throw Self.subscriberTooSlow }
  }

  /// Wakes every subscriber of `playerID`: a new event was committed to its inbox.
  public func notify(playerID: Int64) {
    let wake = state.withLock {
      state -> [(AsyncThrowingStream<Void, any Error>.Continuation, Bool)] in
      guard var subscribers = state.subscribers[playerID] else { return [] }
      var result: [(AsyncThrowingStream<Void, any Error>.Continuation, Bool)] = []
      for (id, var subscriber) in subscribers {
        subscriber.pending += 1
        let overflowed = subscriber.pending > maximumBuffered
        if overflowed { subscriber.overflowed.flag.store(true, ordering: .releasing) }
        result.append((subscriber.continuation, overflowed))
        subscribers[id] = subscriber
      }
      state.subscribers[playerID] = subscribers
      return result
    }
    for (continuation, overflowed) in wake {
      if overflowed {
        continuation.finish(throwing: Self.subscriberTooSlow)
      } else {
        continuation.yield(())
      }
    }
  }

  /// How many live subscriptions `playerID` has.
  public func subscriberCount(of playerID: Int64) -> Int {
    state.withLock { $0.subscribers[playerID]?.count ?? 0 }
  }
}
