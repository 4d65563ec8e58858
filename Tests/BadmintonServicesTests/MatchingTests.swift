import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Foundation
import StoreTestSupport
import Testing

/// The world's clock starts at 2027-01-15 08:00 UTC: 16:00 on Friday 15 January in Shanghai.
@Suite("Matching over the wire")
struct MatchingTests {
  static let zone = "Asia/Shanghai"
  static let today = LocalDate(year: 2027, month: 1, day: 15)
  static let tomorrow = LocalDate(year: 2027, month: 1, day: 16)
  static let shanghai = GeoPoint(latitude: 31.2304, longitude: 121.4737)

  /// A point `miles` north of central Shanghai.
  static func north(_ miles: Double) -> GeoPoint {
    GeoPoint(latitude: shanghai.latitude + miles / 69.05, longitude: shanghai.longitude)
  }

  static func request(
    date: LocalDate = tomorrow, from start: Int32 = 600, to end: Int32 = 720,
    mode: MatchMode = .singles, at location: GeoPoint? = shanghai, radius: Double = 0,
    tolerance: Int32? = nil
  ) -> PostAvailabilityRequest {
    PostAvailabilityRequest(
      mode: mode, date: date, startMinute: start, endMinute: end, timeZone: zone,
      location: location, radiusMiles: radius,
      skillTolerance: tolerance.map { SkillTolerance(levels: $0) })
  }

  @Test(
    "posting checks every field, fills the defaults, and lists and cancels only your own",
    arguments: StoreKind.allCases)
  func post_validatesAndDefaults(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player(level: 5)
      let other = try await world.player(level: 5)
      let matching = world.client.matching
      func reason(_ request: PostAvailabilityRequest) async -> (String?, [String]) {
        let error = await rpcError {
          _ = try await matching.postAvailability(request, options: player.options)
        }
        return (error?.reason, error?.violations.map(\.field) ?? [])
      }
      var badMode = Self.request()
      badMode.mode = .unspecified
      #expect(await reason(badMode) == ("MATCH_MODE_INVALID", ["mode"]))
      var badZone = Self.request()
      badZone.timeZone = "Mars/Olympus"
      #expect(await reason(badZone).0 == "TIME_ZONE_UNKNOWN")
      // Property 11 at the edges: today and 13 days ahead are open; 14 days ahead and the past
      // are not, nor a start that has passed.
      let lastDay = LocalDate(year: 2027, month: 1, day: 28)
      let tooFar = LocalDate(year: 2027, month: 1, day: 29)
      #expect(await reason(Self.request(date: tooFar)) == ("TIME_SLOT_INVALID", ["date"]))
      #expect(
        await reason(Self.request(date: LocalDate(year: 2027, month: 1, day: 14)))
          == ("TIME_SLOT_INVALID", ["date"]))
      #expect(
        await reason(Self.request(date: Self.today, from: 900, to: 1000))
          == ("TIME_SLOT_INVALID", ["start_minute"]))
      // Property 12 at the edges: 1 and 8 hours are fine, a minute less or more is not.
      let short = await rpcError {
        _ = try await matching.postAvailability(
          Self.request(from: 600, to: 659),
          options: CallOptions(locale: .zhCN, bearerToken: player.token))
      }
      #expect(short?.reason == "TIME_SLOT_INVALID")
      #expect(short?.message.en == "时间段需要1-8小时")
      #expect(await reason(Self.request(from: 600, to: 1081)).0 == "TIME_SLOT_INVALID")
      #expect(await reason(Self.request(radius: 51)) == ("RADIUS_OUT_OF_RANGE", ["radius_miles"]))
      #expect(
        await reason(Self.request(tolerance: 9)) == ("SKILL_TOLERANCE_INVALID", ["skill_tolerance"])
      )
      #expect(await reason(Self.request(at: nil)).0 == "LOCATION_UNKNOWN")

      let hour = try await matching.postAvailability(
        Self.request(from: 600, to: 660), options: player.options)
      _ = try await world.client.players.updateLocation(
        .init(latitude: 31.3, longitude: 121.5), options: player.options)
      let eight = try await matching.postAvailability(
        Self.request(date: lastDay, from: 480, to: 960, at: nil), options: player.options)
      #expect(hour.radiusMiles == 10 && hour.skillTolerance == 2)
      #expect(hour.location == Self.shanghai)
      #expect(eight.location == GeoPoint(latitude: 31.3, longitude: 121.5))
      #expect(hour.source == .posted && hour.userID == player.id)
      // 10:00 in Shanghai is 02:00 UTC.
      #expect(hour.slot.startUnixMs == 1_800_000_000_000 + 18 * 3_600_000)
      #expect(hour.slot.endUnixMs - hour.slot.startUnixMs == 3_600_000)
      let zero = try await matching.postAvailability(
        Self.request(from: 700, to: 800, tolerance: 0), options: player.options)
      #expect(zero.skillTolerance == 0)

      let mine = try await matching.listMyAvailability(options: player.options).availability
      #expect(mine.map(\.id) == [hour.id, zero.id, eight.id])
      #expect(try await matching.listMyAvailability(options: other.options).availability.isEmpty)
      let stolen = await rpcError {
        _ = try await matching.cancelAvailability(
          .init(availabilityID: hour.id), options: other.options)
      }
      #expect(stolen?.reason == "AVAILABILITY_NOT_FOUND")
      #expect(stolen?.code == .notFound)
      _ = try await matching.cancelAvailability(
        .init(availabilityID: hour.id), options: player.options)
      let twice = await rpcError {
        _ = try await matching.cancelAvailability(
          .init(availabilityID: hour.id), options: player.options)
      }
      #expect(twice?.reason == "AVAILABILITY_NOT_FOUND")
      #expect(
        try await matching.listMyAvailability(options: player.options).availability.map(\.id)
          == [zero.id, eight.id])
    }
  }

  @Test("a player has at most 10 active posted availability", arguments: StoreKind.allCases)
  func post_limit(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      for index in 0..<10 {
        _ = try await world.client.matching.postAvailability(
          Self.request(from: Int32(index * 60), to: Int32(index * 60 + 60)),
          options: player.options)
      }
      let eleventh = await rpcError {
        _ = try await world.client.matching.postAvailability(
          Self.request(from: 900, to: 1000), options: player.options)
      }
      #expect(eleventh?.reason == "AVAILABILITY_LIMIT")
      #expect(eleventh?.code == .failedPrecondition)
    }
  }

  @Test(
    "candidates: closest skill first, then nearest, with the overlap; paged without gaps",
    arguments: StoreKind.allCases)
  func findMatches_orderAndPaging(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let me = try await world.player(level: 5)
      let mine = try await matching.postAvailability(
        Self.request(from: 600, to: 780, radius: 20, tolerance: 3), options: me.options)
      // (level, miles north, start, end) of the others; the last three do not fit.
      let others: [(Int32, Double, Int32, Int32)] = [
        (6, 5, 660, 780), (5, 8, 540, 660), (4, 2, 700, 900), (5, 1, 600, 720), (7, 3, 600, 720),
        (5, 2, 760, 900),  // overlaps by 20 minutes only
        (5, 30, 600, 720),  // farther than my radius
        (1, 1, 600, 720),  // 4 levels apart
      ]
      var expected: [(id: Int64, difference: Int32, miles: Double)] = []
      for (level, miles, start, end) in others {
        let player = try await world.player(level: level)
        let posted = try await matching.postAvailability(
          Self.request(from: start, to: end, at: Self.north(miles), radius: 50, tolerance: 8),
          options: player.options)
        if abs(level - 5) <= 3, miles <= 20, min(end, 780) - max(start, 600) >= 30 {
          expected.append((posted.id, abs(level - 5), miles))
        }
      }
      expected.sort { ($0.difference, $0.miles) < ($1.difference, $1.miles) }

      var found: [MatchCandidate] = []
      var token = ""
      repeat {
        let page = try await matching.findMatches(
          .init(availabilityID: mine.id, pageSize: 2, pageToken: token), options: me.options)
        #expect(page.candidates.count <= 2)
        #expect(page.suggestions.isEmpty)
        found += page.candidates
        token = page.nextPageToken
      } while !token.isEmpty
      #expect(found.map(\.availabilityID) == expected.map(\.id))
      let first = try #require(found.first)
      #expect(first.skillDifference == 0 && first.displayLevel == 5)
      // One mile apart is shown between cell centres (0.69 miles tall), in half-mile bands.
      #expect([1.0, 1.5].contains(first.distanceMiles))
      // 10:00-12:00 against 10:00-13:00: the overlap is the common two hours.
      #expect(first.overlap.endUnixMs - first.overlap.startUnixMs == 2 * 3_600_000)
      #expect(first.nickname == "Player" && first.reputation.punctualityPercentage == 100)

      let bad = await rpcError {
        _ = try await matching.findMatches(
          .init(availabilityID: mine.id, pageToken: "nonsense"), options: me.options)
      }
      #expect(bad?.reason == "PAGE_TOKEN_INVALID")
      let stranger = try await world.player()
      let notMine = await rpcError {
        _ = try await matching.findMatches(
          .init(availabilityID: mine.id), options: stranger.options)
      }
      #expect(notMine?.reason == "AVAILABILITY_NOT_FOUND")
    }
  }

  @Test(
    "when nothing fits, the answer counts what each relaxation would find",
    arguments: StoreKind.allCases)
  func findMatches_suggestions(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let me = try await world.player(level: 5)
      let mine = try await matching.postAvailability(
        Self.request(from: 600, to: 720, radius: 5, tolerance: 0), options: me.options)
      // One player a level up; one 20 miles away; one an hour and a half later.
      for (level, miles, start, end) in [(6, 1.0, 600, 720), (5, 20, 600, 720), (5, 1, 810, 900)] {
        let other = try await world.player(level: Int32(level))
        _ = try await matching.postAvailability(
          Self.request(
            from: Int32(start), to: Int32(end), at: Self.north(miles), radius: 50, tolerance: 8),
          options: other.options)
      }
      let answer = try await matching.findMatches(
        .init(availabilityID: mine.id), options: me.options)
      #expect(answer.candidates.isEmpty)
      let counts = answer.suggestions.map { ($0.kind, $0.candidateCount) }
      #expect(counts.contains { $0 == (RelaxationKind.raiseSkillTolerance, 1) })
      #expect(counts.contains { $0 == (RelaxationKind.widenRadius, 1) })
      #expect(counts.contains { $0 == (RelaxationKind.widenTime, 1) })
      let widened = try #require(answer.suggestions.first { $0.kind == .widenTime })
      #expect(widened.slot.endUnixMs - widened.slot.startUnixMs == 4 * 3_600_000)
      #expect(answer.suggestions.first { $0.kind == .widenRadius }?.radiusMiles == 50)
    }
  }

  @Test(
    "a new fitting availability reaches the standing search of the other player at once",
    arguments: StoreKind.allCases)
  func standingSearch_notifies(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let waiting = try await world.player(level: 5)
      let offline = try await world.player(level: 5)
      let mine = try await matching.postAvailability(Self.request(), options: waiting.options)
      let theirs = try await matching.postAvailability(
        Self.request(mode: .doubles), options: offline.options)
      var stream = try await world.client.events.subscribe(options: waiting.options)
        .makeAsyncIterator()
      let newcomer = try await world.player(level: 6)
      let posted = try await matching.postAvailability(
        Self.request(from: 630, to: 750, at: Self.north(2)), options: newcomer.options)
      let event = try #require(try await stream.next())
      guard case .partnerAvailable(let found)? = event.body else {
        Issue.record("expected partner_available, got \(String(describing: event.body))")
        return
      }
      #expect(found.availabilityID == mine.id)
      #expect(found.candidate.availabilityID == posted.id)
      #expect(found.candidate.userID == newcomer.id && found.candidate.skillDifference == 1)
      #expect(
        found.candidate.overlap.endUnixMs - found.candidate.overlap.startUnixMs == 90 * 60_000)

      // A doubles player offline now finds the event waiting when they subscribe.
      let partner = try await world.player(level: 4)
      _ = try await matching.postAvailability(
        Self.request(mode: .doubles), options: partner.options)
      var later = try await world.client.events.subscribe(options: offline.options)
        .makeAsyncIterator()
      let replayed = try #require(try await later.next())
      guard case .partnerAvailable(let missed)? = replayed.body else {
        Issue.record("expected partner_available")
        return
      }
      #expect(missed.availabilityID == theirs.id && missed.candidate.userID == partner.id)
    }
  }

  @Test(
    "recurring slots post each weekday of the next 14 days, and keep doing so as days pass",
    arguments: StoreKind.allCases)
  func recurring_slotsBecomeAvailability(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let player = try await world.player()
      let six = (1...6).map {
        RecurringSlot(
          weekday: Int32($0), startMinute: 600, endMinute: 720, mode: .singles, active: true)
      }
      let tooMany = await rpcError {
        _ = try await matching.saveRecurringSlots(
          .init(slots: six, timeZone: Self.zone, location: Self.shanghai), options: player.options)
      }
      #expect(tooMany?.reason == "RECURRING_SLOTS_LIMIT")
      // Saturday (7) 10:00-12:00 active, Monday (2) inactive.
      let saved = try await matching.saveRecurringSlots(
        .init(
          slots: [
            RecurringSlot(
              weekday: 7, startMinute: 600, endMinute: 720, mode: .singles, active: true),
            RecurringSlot(
              weekday: 2, startMinute: 600, endMinute: 720, mode: .singles, active: false),
          ],
          timeZone: Self.zone, location: Self.shanghai, skillTolerance: SkillTolerance(levels: 1)),
        options: player.options)
      #expect(saved.slots.count == 2 && saved.skillTolerance == 1 && saved.radiusMiles == 10)
      #expect(try await matching.getRecurringSlots(options: player.options) == saved)
      // Saturdays within today (Friday 15th) and 13 days on: the 16th and the 23rd.
      var days = try await matching.listMyAvailability(options: player.options).availability
      #expect(days.map(\.date.day) == [16, 23])
      #expect(days.allSatisfy { $0.source == .recurring && $0.skillTolerance == 1 })

      // Another player finds a recurring day like any other availability.
      let other = try await world.player()
      let posted = try await matching.postAvailability(Self.request(), options: other.options)
      let found = try await matching.findMatches(
        .init(availabilityID: posted.id), options: other.options)
      #expect(found.candidates.map(\.availabilityID) == [days[0].id])

      // A cancelled day stays cancelled; a week later the sweep adds the new fourteenth day.
      _ = try await matching.cancelAvailability(
        .init(availabilityID: days[1].id), options: player.options)
      world.clock.advance(by: 7 * 24 * 3_600_000)
      try await world.sweep()
      days = try await matching.listMyAvailability(options: player.options).availability
      #expect(days.map(\.date.day) == [30])
    }
  }

  @Test("a level change is seen by the next search", arguments: StoreKind.allCases)
  func levelChange_updatesSearch(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let matching = world.client.matching
      let me = try await world.player(level: 3)
      let other = try await world.player(level: 6)
      let mine = try await matching.postAvailability(
        Self.request(tolerance: 1), options: me.options)
      _ = try await matching.postAvailability(Self.request(tolerance: 8), options: other.options)
      #expect(
        try await matching.findMatches(.init(availabilityID: mine.id), options: me.options)
          .candidates.isEmpty)
      _ = try await world.client.players.updateProfile(.init(selfLevel: 5), options: me.options)
      let found = try await matching.findMatches(
        .init(availabilityID: mine.id), options: me.options)
      #expect(found.candidates.map(\.skillDifference) == [1])
    }
  }
}
