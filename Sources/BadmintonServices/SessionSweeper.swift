public import BadmintonStore
public import Logging
public import ServiceLifecycle

/// Removes expired sessions from the store at a fixed interval while the server runs. Expired
/// sessions are refused at once whether or not they were removed; this only keeps the table small.
public struct SessionSweeper: Service {
  private let store: any PlayerStore
  private let clock: any WallClock
  private let interval: Duration
  private let logger: Logger

  /// A sweeper over `store`, every `interval` (default one hour).
  public init(
    store: any PlayerStore, clock: any WallClock = SystemWallClock(),
    interval: Duration = .seconds(3600), logger: Logger
  ) {
    self.store = store
    self.clock = clock
    self.interval = interval
    self.logger = logger
  }

  /// Removes the sessions expired by now; returns how many.
  @discardableResult
  public func sweep() async throws -> Int {
    try await store.deleteSessions(expiredBefore: clock.nowUnixMs())
  }

  /// Sweeps every `interval` until graceful shutdown.
  public func run() async throws {
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
      do {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
      } catch {
        return
      }
      do {
        let removed = try await sweep()
        if removed > 0 {
          logger.debug("expired sessions removed", metadata: ["count": "\(removed)"])
        }
      } catch {
        logger.warning("session sweep failed", metadata: ["error": "\(error)"])
      }
    }
  }
}
