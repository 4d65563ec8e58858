#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value many threads read at once and one at a time changes: a reader-writer lock that
/// prefers writers, so a steady stream of readers cannot keep a writer waiting. Once a writer
/// waits, readers that arrive after it wait behind it; it waits only for the readers already
/// inside. A reader must not take the lock again while it holds it (a writer waiting in between
/// would make that wait for ever).
///
/// On glibc the lock is a `pthread_rwlock_t` of kind `PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP`
/// (the default kind prefers readers and can starve writers); Darwin's read-write locks already
/// prefer writers.
final class ReadWriteLocked<Value: Sendable>: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_rwlock_t>
  /// Read only under the read lock, changed only under the write lock.
  private var value: Value

  /// `value`, guarded.
  init(_ value: Value) {
    self.value = value
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_rwlock_t())
    var attributes = pthread_rwlockattr_t()
    pthread_rwlockattr_init(&attributes)
    defer { pthread_rwlockattr_destroy(&attributes) }
    #if canImport(Glibc)
      pthread_rwlockattr_setkind_np(
        &attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
    #endif
    let status = pthread_rwlock_init(lock, &attributes)
    precondition(status == 0, "pthread_rwlock_init failed: \(status)")
  }

  deinit {
    pthread_rwlock_destroy(lock)
    lock.deallocate()
  }

  /// Runs `body` with the value, alongside other readers.
  func read<T>(_ body: (Value) throws -> T) rethrows -> T {
    pthread_rwlock_rdlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body(value)
  }

  /// Runs `body` with the value, alongside other readers, when that needs no wait; nil when a
  /// writer holds the lock or is waiting for it.
  func tryRead<T>(_ body: (Value) throws -> T) rethrows -> T? {
    guard pthread_rwlock_tryrdlock(lock) == 0 else { return nil }
    defer { pthread_rwlock_unlock(lock) }
    return try body(value)
  }

  /// Runs `body` with the value alone: no reader or other writer runs meanwhile.
  func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    pthread_rwlock_wrlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body(&value)
  }
}
