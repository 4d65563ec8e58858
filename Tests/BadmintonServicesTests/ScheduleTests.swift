import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import StoreTestSupport
import Testing

/// The world's clock starts at 2027-01-15 08:00 UTC: already Friday the 15th in Shanghai
/// (16:00), still Thursday the 14th in Honolulu (22:00).
@Suite("Weekly schedule over the wire")
struct ScheduleTests {
  static let zone = "Asia/Shanghai"

  static func day(_ day: Int32, month: Int32 = 1) -> LocalDate {
    LocalDate(year: 2027, month: month, day: day)
  }

  @Test(
    "a new week is 7 unknown days from today in the caller's zone", arguments: StoreKind.allCases)
  func week_startsTodayInTheZone(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let shanghai = try await world.client.schedule.getMySchedule(
        .init(timeZone: Self.zone), options: ann.options)
      #expect(shanghai.userID == ann.id)
      #expect(shanghai.days.map(\.date) == (15...21).map { Self.day(Int32($0)) })
      #expect(shanghai.days.allSatisfy { $0.status == .unknown && $0.note.isEmpty })
      #expect(shanghai.days.allSatisfy { $0.updatedAtUnixMs == 0 })
      let honolulu = try await world.client.schedule.getMySchedule(
        .init(timeZone: "Pacific/Honolulu"), options: ann.options)
      #expect(honolulu.days.first?.date == Self.day(14))
      let unknownZone = await rpcError {
        _ = try await world.client.schedule.getMySchedule(
          .init(timeZone: "Mars/Olympus"), options: ann.options)
      }
      #expect(unknownZone?.reason == "TIME_ZONE_UNKNOWN")
    }
  }

  @Test(
    "setting a day twice keeps one record with the last status and note",
    arguments: StoreKind.allCases)
  func update_upserts(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let first = try await world.client.schedule.updateDayStatus(
        .init(date: Self.day(16), status: .free, note: "after work", timeZone: Self.zone),
        options: ann.options)
      #expect(first.status == .free && first.note == "after work")
      #expect(first.updatedAtUnixMs == world.clock.nowUnixMs())
      world.clock.advance(by: 60_000)
      _ = try await world.client.schedule.updateDayStatus(
        .init(date: Self.day(16), status: .eveningOnly, note: "晚上七点后", timeZone: Self.zone),
        options: ann.options)
      // Today may still be changed.
      _ = try await world.client.schedule.updateDayStatus(
        .init(date: Self.day(15), status: .busy, timeZone: Self.zone), options: ann.options)
      let week = try await world.client.schedule.getMySchedule(
        .init(timeZone: Self.zone), options: ann.options)
      #expect(
        week.days.map(\.status) == [.busy, .eveningOnly] + Array(repeating: .unknown, count: 5))
      #expect(week.days[1].note == "晚上七点后")
      #expect(week.days[1].updatedAtUnixMs == world.clock.nowUnixMs())
      #expect(try await storedDays(world.store, playerID: ann.id) == 2)
    }
  }

  @Test(
    "past days, unknown statuses, long notes and far dates are refused with their reasons",
    arguments: StoreKind.allCases)
  func update_validation(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      func reason(_ request: UpdateDayStatusRequest, locale: RPCLocale = .en) async -> RPCError? {
        await rpcError {
          _ = try await world.client.schedule.updateDayStatus(
            request, options: CallOptions(locale: locale, bearerToken: ann.token))
        }
      }
      let past = await reason(.init(date: Self.day(14), status: .free, timeZone: Self.zone))
      #expect(past?.code == .failedPrecondition && past?.reason == "CANNOT_UPDATE_PAST_DATE")
      // The 14th is still today in Honolulu.
      #expect(
        await reason(.init(date: Self.day(14), status: .free, timeZone: "Pacific/Honolulu"))
          == nil)
      let zh = await reason(
        .init(date: Self.day(1), status: .free, timeZone: Self.zone), locale: .zhCN)
      #expect(zh?.message.en == "无法修改今天之前的日期。")
      let status = await reason(
        .init(date: Self.day(16), status: DayStatus(rawValue: 9), timeZone: Self.zone))
      #expect(status?.violations.map(\.field) == ["status"])
      #expect(status?.reason == "DAY_STATUS_INVALID")
      let longNote = String(repeating: "羽", count: 201)
      let note = await reason(
        .init(date: Self.day(16), status: .free, note: longNote, timeZone: Self.zone))
      #expect(note?.reason == "NOTE_TOO_LONG" && note?.violations.map(\.field) == ["note"])
      #expect(
        await reason(
          .init(
            date: Self.day(16), status: .free, note: String(longNote.dropFirst()),
            timeZone: Self.zone)) == nil)
      let invalid = await reason(
        .init(date: Self.day(30, month: 2), status: .free, timeZone: Self.zone))
      #expect(invalid?.reason == "DATE_INVALID")
      let far = await reason(
        .init(date: LocalDate(year: 2028, month: 6, day: 1), status: .free, timeZone: Self.zone))
      #expect(far?.reason == "DATE_TOO_FAR")
      let zone = await reason(.init(date: Self.day(16), status: .free, timeZone: ""))
      #expect(zone?.reason == "TIME_ZONE_UNKNOWN")
    }
  }

  @Test("friends see each other's weeks; anyone else's stays hidden", arguments: StoreKind.allCases)
  func friendsSchedules_friendsOnly(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player(nickname: "Ann")
      let bob = try await world.player(nickname: "Bob")
      let eve = try await world.player(nickname: "Eve")
      for player in [bob, eve] {
        _ = try await world.client.schedule.updateDayStatus(
          .init(date: Self.day(17), status: .free, note: "\(player.id)", timeZone: Self.zone),
          options: player.options)
      }
      let before = try await world.client.schedule.getFriendsSchedules(
        .init(timeZone: Self.zone), options: ann.options)
      #expect(before.friends.isEmpty)
      let sent = try await world.client.friends.sendFriendRequest(
        .init(userID: bob.id), options: ann.options)
      _ = try await world.client.friends.acceptFriendRequest(
        .init(requestID: sent.id), options: bob.options)
      let after = try await world.client.schedule.getFriendsSchedules(
        .init(timeZone: Self.zone), options: ann.options)
      #expect(after.friends.map(\.player.userID) == [bob.id])
      let days = try #require(after.friends.first?.days)
      #expect(days.count == 7 && days[2].status == .free && days[2].note == "\(bob.id)")
      #expect(days.enumerated().allSatisfy { $0.offset == 2 || $0.element.status == .unknown })
      let eves = try await world.client.schedule.getFriendsSchedules(
        .init(timeZone: Self.zone), options: eve.options)
      #expect(eves.friends.isEmpty)
      _ = try await world.client.friends.block(.init(userID: ann.id), options: bob.options)
      #expect(
        try await world.client.schedule.getFriendsSchedules(
          .init(timeZone: Self.zone), options: ann.options
        ).friends.isEmpty)
    }
  }
}
