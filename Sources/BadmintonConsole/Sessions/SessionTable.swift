import Crypto
import Synchronization

/// A signed-in administrator's console session.
struct ConsoleSession: Sendable, Hashable {
  /// Who signed in.
  var administrator: ConsoleAdministrator
  /// The token every form of this session carries.
  var csrfToken: String
}

/// The console's sessions, in memory: keyed by the SHA-256 of the id the browser holds, so the
/// table never holds an id a browser could present; ended after an idle time, and at the latest
/// a fixed lifetime after sign-in (a Live page left open, which reloads itself, never stays
/// signed in for longer); at most a bounded count, the least recently used evicted first.
final class SessionTable: Sendable {
  private struct Entry {
    var session: ConsoleSession
    var lastSeenUnixMs: Int64
    var startedUnixMs: Int64
  }

  /// How long a session lasts without a request.
  let idleTimeoutMs: Int64
  /// How long a session lasts at most, however busy.
  let lifetimeMs: Int64
  /// How many sessions the table holds at most.
  let capacity: Int
  private let entries = Mutex<[SHA256Digest: Entry]>([:])

  /// An empty table.
  init(idleTimeoutMs: Int64, lifetimeMs: Int64 = 12 * 3_600_000, capacity: Int) {
    precondition(idleTimeoutMs > 0 && lifetimeMs > 0 && capacity > 0)
    self.idleTimeoutMs = idleTimeoutMs
    self.lifetimeMs = lifetimeMs
    self.capacity = capacity
  }

  /// How many sessions the table holds.
  var count: Int { entries.withLock { $0.count } }

  /// Starts a session for `administrator`; returns the id for the browser's cookie.
  func start(for administrator: ConsoleAdministrator, nowUnixMs: Int64) -> (
    id: String, session: ConsoleSession
  ) {
    let id = Secrets.randomHex()
    let session = ConsoleSession(administrator: administrator, csrfToken: Secrets.randomHex())
    entries.withLock { entries in
      entries = entries.filter { !isExpired($0.value, nowUnixMs: nowUnixMs) }
      while entries.count >= capacity,
        let oldest = entries.min(by: { $0.value.lastSeenUnixMs < $1.value.lastSeenUnixMs })
      {
        entries.removeValue(forKey: oldest.key)
      }
      entries[Self.key(id)] = Entry(
        session: session, lastSeenUnixMs: nowUnixMs, startedUnixMs: nowUnixMs)
    }
    return (id, session)
  }

  /// The session with this id, its idle time restarted; nil when there is none or it has been
  /// idle too long (it ends then).
  func touch(id: String, nowUnixMs: Int64) -> ConsoleSession? {
    let key = Self.key(id)
    return entries.withLock { entries in
      guard var entry = entries[key] else { return nil }
      guard !isExpired(entry, nowUnixMs: nowUnixMs) else {
        entries.removeValue(forKey: key)
        return nil
      }
      entry.lastSeenUnixMs = max(entry.lastSeenUnixMs, nowUnixMs)
      entries[key] = entry
      return entry.session
    }
  }

  /// Ends the session with this id, if there is one.
  func end(id: String) {
    let key = Self.key(id)
    _ = entries.withLock { $0.removeValue(forKey: key) }
  }

  private func isExpired(_ entry: Entry, nowUnixMs: Int64) -> Bool {
    nowUnixMs - entry.lastSeenUnixMs >= idleTimeoutMs
      || nowUnixMs - entry.startedUnixMs >= lifetimeMs
  }

  private static func key(_ id: String) -> SHA256Digest {
    SHA256.hash(data: Array(id.utf8))
  }
}
