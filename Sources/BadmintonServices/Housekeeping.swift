import BadmintonDomain
public import BadmintonStore
public import Logging
public import ServiceLifecycle

/// Removes expired sessions, events older than the retention, unfinished verification uploads
/// past their hour, ended availability and idempotency keys past their 24 hours, adds the recurring days that became due and marks
/// the surveys past their 48 hours as expired (hourly), and closes the rooms idle for 30 minutes (every minute), while the server runs. Expired
/// sessions are refused at once whether or not they were removed; this only keeps the tables
/// small.
public struct Housekeeping: Service {
  private let store: any PlayerStore
  private let clock: any WallClock
  private let eventRetentionMs: Int64
  private let interval: Duration
  private let roomInterval: Duration
  private let logger: Logger
  private let matching: MatchingService?
  private let rooms: RoomsService?
  private let surveys: SurveysService?

  /// Housekeeping over `store`: events are kept for `eventRetention`; a full sweep runs every
  /// `interval` (default one hour), and the rooms' sweep every `roomInterval` (default one
  /// minute).
  public init(
    store: any PlayerStore, clock: any WallClock = SystemWallClock(),
    eventRetention: Duration = .seconds(30 * 24 * 3600), interval: Duration = .seconds(3600),
    logger: Logger = Logger(label: "badminton.housekeeping"), matching: MatchingService? = nil,
    rooms: RoomsService? = nil, surveys: SurveysService? = nil,
    roomInterval: Duration = .seconds(60)
  ) {
    self.roomInterval = roomInterval
    self.matching = matching
    self.rooms = rooms
    self.surveys = surveys
    self.store = store
    self.clock = clock
    self.eventRetentionMs = eventRetention.components.seconds * 1000
    self.interval = interval
    self.logger = logger
  }

  /// Removes the sessions and unfinished uploads expired by now and the events past the
  /// retention, and sweeps the availability; returns how many sessions, events and uploads
  /// were removed.
  @discardableResult
  public func sweep() async throws -> (sessions: Int, events: Int, uploads: Int) {
    let now = clock.nowUnixMs()
    let sessions = try await store.deleteSessions(expiredBefore: now)
    let events = try await store.deleteEvents(createdBefore: now - eventRetentionMs)
    let uploads = try await store.deleteDocumentUploads(expiredBefore: now)
    // Ended suspensions go, so that what searches leave out stays the players suspended now.
    _ = try await (store as? any AdministrationStore)?.deleteSuspensions(endedBy: now)
    // Idempotency keys answer for a day, then go.
    _ = try await (store as? any WriteKeyStore)?.deleteWriteKeys(
      createdBefore: now - WriteKeyRules.lifetimeMs + 1)
    try await matching?.sweep()
    try await rooms?.sweep()
    try await surveys?.sweep()
    return (sessions, events, uploads)
  }

  /// Expires the rooms idle for 30 minutes and tells their players; runs every
  /// `roomInterval`, so a room nobody touches is closed within that much of its expiry.
  private func sweepRooms() async throws {
    try await rooms?.sweep()
  }

  /// Sweeps rooms every `roomInterval` and everything every `interval`, until graceful shutdown.
  public func run() async throws {
    let clock = ContinuousClock()
    var lastFullSweep = clock.now
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
      do {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: roomInterval) }
      } catch {
        return
      }
      do {
        if clock.now - lastFullSweep >= interval {
          lastFullSweep = clock.now
          let removed = try await sweep()
          logger.debug(
            "housekeeping",
            metadata: [
              "sessions": "\(removed.sessions)", "events": "\(removed.events)",
              "uploads": "\(removed.uploads)",
            ])
        } else {
          try await sweepRooms()
        }
      } catch {
        logger.warning("housekeeping failed", metadata: ["error": "\(error)"])
      }
    }
  }
}
