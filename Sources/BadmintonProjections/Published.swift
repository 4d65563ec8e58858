import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The version of a value that readers take and one writer replaces: a reader copies the
/// current version (for a value of a few references, a few reference counts) and a writer swaps
/// in the next one, each holding a spin lock only for that long, so that neither ever sleeps
/// waiting for the other or pays a wake-up. The version replaced is let go outside the lock.
///
/// The value must be cheap to copy: it is copied under the lock by every reader.
final class Published<Value: Sendable>: @unchecked Sendable {
  private let locked = Atomic<Bool>(false)
  /// Read and written only while `locked` is held.
  private var value: Value

  /// `value`, as the first version.
  init(_ value: Value) {
    self.value = value
  }

  /// The current version.
  func read() -> Value {
    lock()
    defer { unlock() }
    return value
  }

  /// Makes `next` the current version; `next` is left holding the version replaced.
  func replace(_ next: inout Value) {
    lock()
    swap(&value, &next)
    unlock()
  }

  private func lock() {
    var spins = 0
    while !locked.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
      // Wait for the holder without writing the lock's line; a holder that lost its core is
      // given one back after a while.
      while locked.load(ordering: .relaxed) {
        spins += 1
        if spins % 128 == 0 { sched_yield() }
      }
    }
  }

  private func unlock() {
    locked.store(false, ordering: .releasing)
  }
}
