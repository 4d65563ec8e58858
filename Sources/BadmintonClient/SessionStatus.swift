import Synchronization

/// Where a session stands with the server.
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
  /// Signed in and the last attempt to reach the server succeeded.
  case connected
  /// Signed in and trying to reach the server now.
  case connecting
  /// Signed in, the last attempt failed, and the session waits out its backoff before the
  /// next one.
  case offline
  /// No usable token: never logged in, logged out, or the server ended the session
  /// (UNAUTHENTICATED). Writes wait in the queue until the app logs in again.
  case signedOut

  public var description: String {
    switch self {
    case .connected: "connected"
    case .connecting: "connecting"
    case .offline: "offline"
    case .signedOut: "signed out"
    }
  }
}

/// What a session reports to the app.
public struct SessionStatus: Sendable, Hashable, CustomStringConvertible {
  /// Where the session stands with the server.
  public var connection: ConnectionState
  /// Writes in the queue that have no definite answer yet.
  public var pendingWrites: Int
  /// The signed-in player, or the last one while signed out; nil before the first login.
  public var userID: Int64?

  /// A status.
  public init(connection: ConnectionState, pendingWrites: Int, userID: Int64?) {
    self.connection = connection
    self.pendingWrites = pendingWrites
    self.userID = userID
  }

  public var description: String {
    "\(connection), \(pendingWrites) writes waiting"
  }
}

/// The current status and the app's streams of it.
final class StatusBroadcast: Sendable {
  private struct State {
    var current: SessionStatus
    var listeners: [Int: AsyncStream<SessionStatus>.Continuation] = [:]
    var nextID = 0
    var finished = false
  }
  private let state: Mutex<State>

  init(_ initial: SessionStatus) {
    state = Mutex(State(current: initial))
  }

  var current: SessionStatus { state.withLock { $0.current } }

  /// A stream that starts with the current status and yields every change.
  func stream() -> AsyncStream<SessionStatus> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: SessionStatus.self, bufferingPolicy: .bufferingNewest(64))
    let id: Int? = state.withLock { state in
      continuation.yield(state.current)
      guard !state.finished else { return nil }
      let id = state.nextID
      state.nextID += 1
      state.listeners[id] = continuation
      return id
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
    }
    return stream
  }

  /// Publishes `status` when it differs from the current one.
  func publish(_ status: SessionStatus) {
    state.withLock { state in
      guard status != state.current else { return }
      state.current = status
      for listener in state.listeners.values { listener.yield(status) }
    }
  }

  /// Ends every stream.
  func finish() {
    let listeners = state.withLock { state in
      state.finished = true
      defer { state.listeners = [:] }
      return Array(state.listeners.values)
    }
    for listener in listeners { listener.finish() }
  }
}
