import Foundation
import Synchronization

/// What a session keeps between app launches: its token, whose it is, and how far the app has
/// read the event stream.
public struct StoredSession: Codable, Sendable, Hashable {
  /// The session token (`authorization: Bearer`); nil once the session was signed out, while
  /// the player and the cursor are kept for the next login of the same player.
  public var token: String?
  /// The player the session belongs to.
  public var userID: Int64
  /// When the token ends, in milliseconds since 1970-01-01 UTC (the server's clock).
  public var expiresAtUnixMs: Int64
  /// The sequence of the last event handed to the app: the stream resumes after it.
  public var lastEventSequence: UInt64

  /// A stored session.
  public init(token: String?, userID: Int64, expiresAtUnixMs: Int64, lastEventSequence: UInt64) {
    self.token = token
    self.userID = userID
    self.expiresAtUnixMs = expiresAtUnixMs
    self.lastEventSequence = lastEventSequence
  }
}

/// Where a session keeps its `StoredSession`; the app may give its own (the keychain, ...).
/// Calls come one at a time, from the session.
public protocol TokenStore: Sendable {
  /// The stored session, or nil when there is none.
  func load() throws -> StoredSession?
  /// Stores `session` in place of the previous one, durably before it returns; nil removes it.
  func save(_ session: StoredSession?) throws
}

/// The default token store: one JSON file, replaced atomically (a new file `fsync`ed, then
/// renamed over the old one, then the folder `fsync`ed) and readable by its owner only (0600).
public struct FileTokenStore: TokenStore {
  /// The file.
  public let path: String

  /// A store in the file at `path`; its folder is created when missing.
  public init(path: String) {
    self.path = path
  }

  public func load() throws -> StoredSession? {
    guard let bytes = try FileIO.contents(of: path) else { return nil }
    return try JSONDecoder().decode(StoredSession.self, from: Data(bytes))
  }

  public func save(_ session: StoredSession?) throws {
    guard let session else { return try FileIO.remove(path) }
    try FileIO.makeFolder(FileIO.folder(of: path))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try FileIO.replace(path, with: Array(try encoder.encode(session)), mode: 0o600)
  }
}

/// A token store in memory, for an app that keeps nothing between launches, and for tests.
public final class InMemoryTokenStore: TokenStore {
  private let stored: Mutex<StoredSession?>

  /// A store holding `session`.
  public init(_ session: StoredSession? = nil) {
    stored = Mutex(session)
  }

  public func load() throws -> StoredSession? { stored.withLock { $0 } }

  public func save(_ session: StoredSession?) throws { stored.withLock { $0 = session } }
}
