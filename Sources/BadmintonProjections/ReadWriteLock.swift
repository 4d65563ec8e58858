#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A reader-writer lock that prefers writers, so a steady stream of readers cannot keep a
/// writer waiting. Once a writer waits, readers that arrive after it wait behind it; it waits
/// only for the readers already inside. A reader must not take the lock again while it holds it
/// (a writer waiting in between would make that wait for ever).
///
/// On glibc the lock is a `pthread_rwlock_t` of kind `PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP`
/// (the default kind prefers readers and can starve writers); Darwin's read-write locks already
/// prefer writers. Several locks taken together must be taken in one agreed order.
final class ReadWriteLock: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_rwlock_t>

  /// An unlocked lock.
  init() {
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

  /// Waits for the lock as a reader, alongside other readers.
  func lockForReading() { pthread_rwlock_rdlock(lock) }

  /// Takes the lock as a reader when that needs no wait; false when a writer holds the lock or
  /// is waiting for it.
  func tryLockForReading() -> Bool { pthread_rwlock_tryrdlock(lock) == 0 }

  /// Waits for the lock alone: no reader or other writer holds it meanwhile.
  func lockForWriting() { pthread_rwlock_wrlock(lock) }

  /// Gives the lock back, as a reader or as the writer.
  func unlock() { pthread_rwlock_unlock(lock) }
}

/// A value many threads read at once and one at a time changes, under a `ReadWriteLock`.
final class ReadWriteLocked<Value: Sendable>: @unchecked Sendable {
  private let lock = ReadWriteLock()
  /// Read only under the read lock, changed only under the write lock.
  private var value: Value

  /// `value`, guarded.
  init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with the value, alongside other readers.
  func read<T>(_ body: (Value) throws -> T) rethrows -> T {
    lock.lockForReading()
    defer { lock.unlock() }
    return try body(value)
  }

  /// Runs `body` with the value, alongside other readers, when that needs no wait; nil when a
  /// writer holds the lock or is waiting for it.
  func tryRead<T>(_ body: (Value) throws -> T) rethrows -> T? {
    guard lock.tryLockForReading() else { return nil }
    defer { lock.unlock() }
    return try body(value)
  }

  /// Runs `body` with the value alone: no reader or other writer runs meanwhile.
  func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    lock.lockForWriting()
    defer { lock.unlock() }
    return try body(&value)
  }
}
