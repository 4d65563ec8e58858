import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The version of a value that readers take and one writer replaces: a reader takes the
/// current version (one reference count) and a writer swaps in the next one, each holding a spin
/// lock only for that long, so that neither ever sleeps waiting for the other or pays a wake-up.
///
/// The writer, not a reader, frees what a version replaced held. A version replaced is kept on
/// the writer's list of retired versions until no reader holds it any more, and let go by the
/// writer's next `replace`. A reader that let go of the last reference would free the replaced
/// pieces of the value itself, in memory the writer's thread allocated; the allocator then
/// serialises the two threads on its lock, and the writer pays a wake-up for every reader it
/// held up.
///
/// `replace` is called by one thread at a time (the owner's writer lock); `read` by any.
final class Published<Value: Sendable>: @unchecked Sendable {
  /// One version, and how many readers are reading it.
  ///
  /// The count is taken under the lock and given back after the reader's last use of the
  /// value, with atomics the compiler does not move: a reference count alone could be taken
  /// after the lock is let go, when the writer may already have found the version unread.
  private final class Held: Sendable {
    let value: Value
    let readers = Atomic<Int>(0)
    init(_ value: Value) { self.value = value }
  }

  private let locked = Atomic<Bool>(false)
  /// Read and written only while `locked` is held.
  private var current: Held
  /// The versions replaced that a reader may still hold: the writer's alone.
  private var retired: [Held] = []

  /// `value`, as the first version.
  init(_ value: Value) {
    current = Held(value)
  }

  /// Calls `body` with the current version. Whatever `body` copies out of the version must not
  /// outlive the call, so that the version's pieces are freed by the writer.
  func read<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
    lock()
    let held = current
    held.readers.add(1, ordering: .relaxed)
    unlock()
    defer { held.readers.subtract(1, ordering: .releasing) }
    return try withExtendedLifetime(held) { try body(held.value) }
  }

  /// The current version, for the writer to make the next one from. (The copy outlives the
  /// read; only the writer, which frees what versions replaced, may keep one.)
  var value: Value { read { $0 } }

  /// Makes `next` the current version, and frees the versions replaced that no reader holds
  /// any more.
  func replace(_ next: consuming Value) {
    var replaced = Held(next)
    lock()
    swap(&current, &replaced)
    unlock()
    retired.append(replaced)
    reclaim()
  }

  /// Lets go of the retired versions no reader is reading or still holds: no reader can take
  /// one again, so one whose count reached zero stays there. (A reader gives its count back just
  /// before its reference: a version is freed here only once the list holds the last one.)
  private func reclaim() {
    var index = 0
    while index < retired.count {
      // Acquiring: what the readers did with the version happens before the writer frees it.
      if retired[index].readers.load(ordering: .acquiring) == 0,
        isKnownUniquelyReferenced(&retired[index])
      {
        retired.swapAt(index, retired.count - 1)
        retired.removeLast()
      } else {
        index += 1
      }
    }
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
