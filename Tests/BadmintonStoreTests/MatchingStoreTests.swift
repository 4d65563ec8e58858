import BadmintonDomain
import BadmintonStore
import PropertyBased
import StoreTestSupport
import Testing

@Suite("Matching store: availability and recurring slots")
struct MatchingStoreTests {
  static let shanghai = Coordinate(latitude: 31.23, longitude: 121.47)
  static let hour: Int64 = 3_600_000

  static func availability(
    _ playerID: Int64, startHour: Int64 = 10, hours: Int64 = 2,
    source: AvailabilitySource = .posted,
    date: LocalDate = LocalDate(year: 2027, month: 1, day: 15), mode: MatchMode = .singles
  ) -> NewAvailability {
    let start = 1_800_000_000_000 + startHour * hour
    return NewAvailability(
      playerID: playerID, mode: mode, date: date, startMinute: Int(startHour * 60 % 1440),
      endMinute: Int((startHour + hours) * 60 % 1440), timeZone: "Asia/Shanghai",
      slot: TimeSlot(startUnixMs: start, endUnixMs: start + hours * hour), location: shanghai,
      radiusMiles: 10, skillTolerance: 2, postedAtUnixMs: 1_800_000_000_000, source: source)
  }

  @Test(
    "posted availability is stored as given, listed by start, and cancelled once",
    arguments: StoreKind.allCases)
  func availability_storeListCancel(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.storeListCancel(store) }
  }

  private static func storeListCancel(_ store: any ServerStore) async throws {
    let player = try await Self.player(store, "+8613800000011")
    let other = try await Self.player(store, "+8613800000012")
    let late = try await store.createAvailability(
      Self.availability(player, startHour: 14), activeLimit: 10, now: 0)
    let early = try await store.createAvailability(
      Self.availability(player, startHour: 9), activeLimit: 10, now: 0)
    #expect(try await store.availability(id: late.id) == late)
    #expect(late.details == Self.availability(player, startHour: 14))
    #expect(try await store.activeAvailability(playerID: player, now: 0) == [early, late])

    // Another player cannot cancel it, and it cannot be cancelled twice.
    await #expect(throws: DomainError.self) {
      _ = try await store.cancelAvailability(id: late.id, playerID: other)
    }
    let cancelled = try await store.cancelAvailability(id: late.id, playerID: player)
    #expect(cancelled.state == .cancelled)
    await #expect(throws: DomainError.self) {
      _ = try await store.cancelAvailability(id: late.id, playerID: player)
    }
    #expect(try await store.activeAvailability(playerID: player, now: 0) == [early])
    #expect(try await store.allActiveAvailability(now: 0).map(\.id) == [early.id])
    // Ended availability is no longer active.
    let afterEnd = early.details.slot.endUnixMs
    #expect(try await store.activeAvailability(playerID: player, now: afterEnd).isEmpty)
  }

  @Test(
    "for random limits and posts, exactly the first `limit` active posts are stored",
    arguments: StoreKind.allCases)
  func availability_limitInTransaction(kind: StoreKind) async {
    // Each case is a new store: a PostgreSQL database each, so fewer of them.
    let count = kind == .sqlite ? 30 : 10
    await propertyCheck(count: count, input: Gen.int(in: 1...6), Gen.int(in: 0...10)) {
      limit, attempts in
      do {
        try await withStore(kind) { store in
          let player = try await Self.player(store, "+8613800138000")
          var refused = 0
          // Attempts run concurrently: the count is checked inside the insert's transaction.
          await withTaskGroup(of: Bool.self) { group in
            for index in 0..<attempts {
              group.addTask {
                (try? await store.createAvailability(
                  Self.availability(player, startHour: Int64(index)), activeLimit: limit, now: 0))
                  != nil
              }
            }
            for await stored in group where !stored { refused += 1 }
          }
          let active = try await store.activeAvailability(playerID: player, now: 0)
          #expect(active.count == min(limit, attempts))
          #expect(refused == attempts - min(limit, attempts))
          // Recurring days do not count against the posted limit.
          let recurring = try await store.addRecurringOccurrences([
            Self.availability(player, startHour: 30, source: .recurring)
          ])
          #expect(recurring.count == 1)
        }
      } catch {
        Issue.record(error)
      }
    }
  }

  @Test(
    "saving recurring slots replaces the settings and the recurring days in one go",
    arguments: StoreKind.allCases)
  func recurring_replace(kind: StoreKind) async throws {
    try await withStore(kind) { store in try await Self.recurringReplace(store) }
  }

  private static func recurringReplace(_ store: any ServerStore) async throws {
    let player = try await Self.player(store, "+8613800138000")
    let posted = try await store.createAvailability(
      Self.availability(player), activeLimit: 10, now: 0)
    let first = RecurringSettings(
      playerID: player,
      slots: [
        RecurringSlot(weekday: 2, startMinute: 600, endMinute: 720, mode: .singles, isActive: true),
        RecurringSlot(
          weekday: 7, startMinute: 480, endMinute: 960, mode: .doubles, isActive: false),
      ],
      timeZone: "Asia/Shanghai", location: Self.shanghai, radiusMiles: 12, skillTolerance: 1)
    let monday = Self.availability(
      player, startHour: 24, source: .recurring, date: LocalDate(year: 2027, month: 1, day: 18))
    let saved = try await store.saveRecurring(first, occurrences: [monday])
    #expect(saved.removed.isEmpty)
    #expect(saved.added.map(\.details) == [monday])
    #expect(try await store.recurringSettings(playerID: player) == first)

    // The same day is never added twice, even after it was cancelled.
    #expect(try await store.addRecurringOccurrences([monday]).isEmpty)
    _ = try await store.cancelAvailability(id: saved.added[0].id, playerID: player)
    #expect(try await store.addRecurringOccurrences([monday]).isEmpty)

    var second = first
    second.slots = []
    let cleared = try await store.saveRecurring(second, occurrences: [])
    #expect(cleared.removed.isEmpty)  // the only recurring day was already cancelled
    #expect(try await store.recurringSettings(playerID: player)?.slots == [])
    // Posted availability is untouched; saving again makes a cancelled day addable again.
    #expect(try await store.activeAvailability(playerID: player, now: 0) == [posted])
    #expect(try await store.addRecurringOccurrences([monday]).count == 1)
    let again = try await store.saveRecurring(first, occurrences: [])
    #expect(again.removed.count == 1)
    #expect(try await store.allRecurringSettings() == [first])
  }

  @Test(
    "availability that ended before the cutoff is deleted, the rest kept",
    arguments: StoreKind.allCases)
  func availability_prune(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let player = try await Self.player(store, "+8613800138000")
      let early = try await store.createAvailability(
        Self.availability(player, startHour: 1), activeLimit: 10, now: 0)
      let late = try await store.createAvailability(
        Self.availability(player, startHour: 20), activeLimit: 10, now: 0)
      #expect(
        try await store.deleteAvailability(endedBefore: early.details.slot.endUnixMs + 1) == 1)
      #expect(try await store.availability(id: early.id) == nil)
      #expect(try await store.availability(id: late.id) == late)
    }
  }

  /// A newly registered player's id.
  static func player(_ store: any ServerStore, _ phone: String) async throws -> Int64 {
    try await MatchingTestSupport.register(store, phone: phone)
  }
}
