import Synchronization

/// Weak references to the objects a server makes per connection, so that a test can count how
/// many are still alive after their connections closed.
final class ObjectCensus: Sendable {
  private struct WeakReference: @unchecked Sendable {
    // Only read under the census's lock, and a weak reference never keeps its object alive.
    weak var object: AnyObject?
  }

  private let references = Mutex<[WeakReference]>([])

  /// Starts counting `object`.
  func record(_ object: AnyObject) {
    references.withLock { $0.append(WeakReference(object: object)) }
  }

  /// How many of the recorded objects are still alive.
  var alive: Int {
    references.withLock { references in references.count { $0.object != nil } }
  }

  /// The recorded objects still alive.
  var objects: [AnyObject] {
    references.withLock { references in references.compactMap(\.object) }
  }

  /// How many objects were recorded.
  var recorded: Int { references.withLock { $0.count } }
}
