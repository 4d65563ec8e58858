public import BadmintonDomain
public import BadmintonStore

extension PostgresStore {
  /// The availabilities with `ids` that exist, by id (the change tail reads changed ones with it).
  static func availabilities(_ db: SQLConnection, ids: [Int64]) async throws
    -> [Int64: AvailabilityRecord]
  {
    throw NotBuilt()
  }

  /// The matches with `ids` that exist, with their participants, by id (the change tail reads
  /// changed ones with it).
  static func matches(_ db: SQLConnection, ids: [Int64]) async throws -> [Int64: MatchRecord] {
    throw NotBuilt()
  }
}

// Not built yet: each method below throws until it is.
extension PostgresStore: MatchingStore {
  public func createAvailability(
    _ new: NewAvailability, activeLimit: Int, now: Int64,
    notify: @escaping @Sendable (AvailabilityRecord) -> OutgoingEvents
  ) async throws -> AvailabilityRecord {
    throw NotBuilt()
  }

  public func availability(id: Int64) async throws -> AvailabilityRecord? {
    throw NotBuilt()
  }

  public func activeAvailability(playerID: Int64, now: Int64) async throws -> [AvailabilityRecord] {
    throw NotBuilt()
  }

  public func allActiveAvailability(now: Int64) async throws -> [AvailabilityRecord] {
    throw NotBuilt()
  }

  public func replayActiveAvailability(
    nowUnixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    throw NotBuilt()
  }

  public func replayConfirmedMatches(
    endingAfter unixMs: Int64, _ apply: @escaping @Sendable (StoreChange) -> Void
  ) async throws {
    throw NotBuilt()
  }

  public func replayPlayerLevels(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    throw NotBuilt()
  }

  public func cancelAvailability(id: Int64, playerID: Int64) async throws -> AvailabilityRecord {
    throw NotBuilt()
  }

  public func saveRecurring(
    _ settings: RecurringSettings, occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> RecurringChange {
    throw NotBuilt()
  }

  public func recurringSettings(playerID: Int64) async throws -> RecurringSettings? {
    throw NotBuilt()
  }

  public func allRecurringSettings() async throws -> [RecurringSettings] {
    throw NotBuilt()
  }

  public func addRecurringOccurrences(
    _ occurrences: [NewAvailability],
    notify: @escaping @Sendable ([AvailabilityRecord]) -> OutgoingEvents
  ) async throws -> [AvailabilityRecord] {
    throw NotBuilt()
  }

  public func deleteAvailability(endedBefore unixMs: Int64) async throws -> Int {
    throw NotBuilt()
  }
}

// Not built yet: each method below throws until it is.
extension PostgresStore: ProposalStore {
  public func createProposal(
    _ new: NewProposal, now: Int64, notify: @escaping @Sendable (ProposalRecord) -> OutgoingEvents
  ) async throws -> ProposalRecord {
    throw NotBuilt()
  }

  public func proposal(id: Int64) async throws -> ProposalRecord? {
    throw NotBuilt()
  }

  public func answerProposal(
    id: Int64, playerID: Int64, accept: Bool, teams: [Int64: Int], now: Int64,
    notify: @escaping @Sendable (ProposalAnswerOutcome) -> OutgoingEvents
  ) async throws -> ProposalAnswerOutcome {
    throw NotBuilt()
  }

  public func lapseProposals(
    now: Int64, notify: @escaping @Sendable ([ProposalRecord]) -> OutgoingEvents
  ) async throws -> [ProposalRecord] {
    throw NotBuilt()
  }

  public func match(id: Int64) async throws -> MatchRecord? {
    throw NotBuilt()
  }

  public func matches(
    playerID: Int64, past: Bool, now: Int64, after: (startUnixMs: Int64, matchID: Int64)?,
    limit: Int
  ) async throws -> [MatchRecord] {
    throw NotBuilt()
  }

  public func cancelMatch(
    id: Int64, playerID: Int64, now: Int64,
    notify: @escaping @Sendable (MatchCancellation) -> OutgoingEvents
  ) async throws -> MatchCancellation {
    throw NotBuilt()
  }

  public func confirmedMatches(endingAfter now: Int64) async throws -> [MatchRecord] {
    throw NotBuilt()
  }
}
