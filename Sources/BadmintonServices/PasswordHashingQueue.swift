public import BadmintonRPC
import Synchronization

/// Admits password hashing work (registration, login and the equal work for an unknown phone)
/// to a fixed number of slots shared by the whole process, with a small bounded wait line.
/// Work that finds every slot busy and the line full is refused at once with
/// `RESOURCE_EXHAUSTED` / `PASSWORD_HASHING_BUSY`, so a flood of logins costs the server a
/// bounded amount of memory and time, and a real player's login waits for at most the line.
///
/// A slot is held until the work has really finished: a cancelled caller does not free its
/// slot while its hash still runs on a hashing thread.
public final class PasswordHashingQueue: Sendable {
  /// Work allowed to run at once.
  public let slots: Int
  /// Work allowed to wait for a slot; more is refused.
  public let maximumWaiting: Int
  /// How long a refused caller is told to wait before trying again.
  public let retryAfterMs: Int64

  private struct State {
    var running = 0
    var waiting: [CheckedContinuation<Void, any Error>] = []
  }

  private let state = Mutex(State())

  private enum Admission { case now, wait, refuse }

  /// A queue of `slots` slots and a line of `maximumWaiting`.
  public init(slots: Int, maximumWaiting: Int, retryAfterMs: Int64 = 1000) {
    precondition(slots >= 1 && maximumWaiting >= 0)
    self.slots = slots
    self.maximumWaiting = maximumWaiting
    self.retryAfterMs = retryAfterMs
  }

  /// Work running now.
  public var running: Int { state.withLock { $0.running } }
  /// Work waiting for a slot now.
  public var waiting: Int { state.withLock { $0.waiting.count } }

  /// The refusal when every slot is busy and the line is full.
  public var busy: RPCError {
    RPCError(
      code: .resourceExhausted, reason: "PASSWORD_HASHING_BUSY",
      message: LocalizedText(
        en: "The server is busy checking passwords; try again shortly.",
        zhCN: "服务器正忙于校验密码，请稍后再试。"),
      retryAfter: .milliseconds(retryAfterMs))
  }

  /// Runs `work` in a slot: at once when one is free, after waiting in the line when not,
  /// or throws `busy` at once when the line is full too.
  public func run<T: Sendable>(_ work: () async throws -> T) async throws -> T {
    let admission = state.withLock { state -> Admission in
      if state.running < slots {
        state.running += 1
        return .now
      }
      return state.waiting.count < maximumWaiting ? .wait : .refuse
    }
    switch admission {
    case .now: break
    case .refuse: throw busy
    case .wait:
      // The line is short; a waiter that is cancelled keeps its place and gives the slot back
      // as soon as it gets it.
      try await withCheckedThrowingContinuation { continuation in
        // Others may have come and gone between the first look and now: decide again, under
        // the same lock that joins the line, so that the line never grows past its limit.
        let admission = state.withLock { state -> Admission in
          if state.running < slots {
            state.running += 1
            return .now
          }
          guard state.waiting.count < maximumWaiting else { return .refuse }
          state.waiting.append(continuation)
          return .wait
        }
        switch admission {
        case .now: continuation.resume()
        case .refuse: continuation.resume(throwing: busy)
        case .wait: break
        }
      }
    }
    defer { release() }
    try Task.checkCancellation()
    return try await work()
  }

  /// Hands the slot to the first waiter, or frees it.
  private func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      if state.waiting.isEmpty {
        state.running -= 1
        return nil
      }
      return state.waiting.removeFirst()
    }
    next?.resume()
  }
}
