import Synchronization

/// Wakes the tests waiting on something whenever it changes, so that they wait for a condition
/// without polling: each change is signalled, and a waiter checks its condition again only then.
final class ChangeSignal: Sendable {
  private struct State {
    var version: UInt64 = 0
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var nextID: UInt64 = 0
  }
  private let state = Mutex(State())

  /// Counts changes; a waiter reads it before checking its condition.
  var version: UInt64 { state.withLock { $0.version } }

  /// Something changed: every waiter checks its condition again.
  func signal() {
    let waiters = state.withLock { state in
      state.version += 1
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once a change after `seen` has been signalled, or at `end`, whichever comes first.
  /// `end` only bounds a failure: a change ends the wait.
  func changed(after seen: UInt64, before end: ContinuousClock.Instant) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.changed(after: seen) }
      group.addTask { try? await Task.sleep(until: end) }
      await group.next()
      group.cancelAll()
    }
  }

  /// Returns once a change after `seen` has been signalled, or the task is cancelled.
  private func changed(after seen: UInt64) async {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state in
          if state.version > seen || Task.isCancelled { return true }
          state.waiters[id] = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }

  /// Waits until `condition` holds, checking it after every change. `limit` only bounds a
  /// failure: the condition decides the pass.
  func wait(for limit: Duration = hangBound, until condition: () -> Bool) async -> Bool {
    let end = ContinuousClock.now + limit
    while true {
      let seen = version
      if condition() { return true }
      guard ContinuousClock.now < end, !Task.isCancelled else { return false }
      await changed(after: seen, before: end)
    }
  }
}
