import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import PropertyBased
import StoreTestSupport
import Testing

/// GetFriendsSchedules answers in pages that fit the response budget: friends write the notes,
/// and one friend's week of the longest notes takes most of the smallest frame.
@Suite("Friends' schedule pages")
struct SchedulePagesTests {
  typealias Player = PlayerWorld.Player

  /// The smallest frame body the services run with.
  static let smallBody = ResponseBudget.minimumBodySize
  static let zone = "Asia/Shanghai"
  /// A legal note of 200 characters and 7,800 UTF-8 bytes: each an `e` with 19 accents.
  static let longNote = String(
    repeating: "e" + String(repeating: "\u{301}", count: 19), count: 200)

  /// Makes `a` and `b` friends.
  private static func befriend(_ world: PlayerWorld, _ a: Player, _ b: Player) async throws {
    let sent = try await world.client.friends.sendFriendRequest(
      .init(userID: b.id), options: a.options)
    _ = try await world.client.friends.acceptFriendRequest(
      .init(requestID: sent.id), options: b.options)
  }

  /// Every friend's week through pages of `pageSize`, checking that each page fits `limit`.
  private static func listed(
    _ world: PlayerWorld, _ player: Player, pageSize: Int32, limit: Int
  ) async throws -> [FriendSchedule] {
    var all: [FriendSchedule] = []
    var token = ""
    repeat {
      let page = try await world.client.schedule.getFriendsSchedules(
        .init(timeZone: Self.zone, pageSize: pageSize, pageToken: token), options: player.options)
      #expect(FrameFormat.fits(payload: page.serializedSize, limit: limit))
      #expect(page.friends.count <= Int(pageSize == 0 ? 20 : pageSize))
      #expect(!page.friends.isEmpty || page.nextPageToken.isEmpty)
      all += page.friends
      token = page.nextPageToken
    } while !token.isEmpty
    return all
  }

  @Test(
    "property: pages of friends' weeks hold every friend once, by user id",
    arguments: StoreKind.allCases)
  func pages_concatenateToWholeList(kind: StoreKind) async throws {
    // Each friend: how many days of the coming week carry the longest note.
    await propertyCheck(
      count: 5, input: Gen.int(in: 0...7).array(of: 0...4), Gen.int(in: 0...4)
    ) { notes, size in
      do {
        try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
          let player = try await world.player()
          var friends: [Int64] = []
          for days in notes {
            let friend = try await world.player()
            try await Self.befriend(world, friend, player)
            for day in 0..<days {
              _ = try await world.client.schedule.updateDayStatus(
                .init(
                  date: LocalDate(year: 2027, month: 1, day: Int32(15 + day)), status: .free,
                  note: Self.longNote, timeZone: Self.zone),
                options: friend.options)
            }
            friends.append(friend.id)
          }
          // A stranger's week is never listed.
          _ = try await world.player()
          let pageSize = Int32([0, 1, 2, 3, 100][size])
          let weeks = try await Self.listed(
            world, player, pageSize: pageSize, limit: Self.smallBody)
          #expect(weeks.map(\.player.userID) == friends.sorted())
          #expect(weeks.allSatisfy { $0.days.count == 7 })
          let byID = Dictionary(uniqueKeysWithValues: zip(friends, notes))
          #expect(
            weeks.allSatisfy { week in
              week.days.filter { $0.note == Self.longNote }.count == byID[week.player.userID]
            })
        }
      } catch {
        Issue.record("\(error)")
      }
    }
  }

  @Test(
    "two friends' weeks of the longest notes take two pages at the smallest frame limit",
    arguments: StoreKind.allCases)
  func longNotes_endPagesEarly(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
      let player = try await world.player()
      var friends: [Int64] = []
      for _ in 0..<2 {
        let friend = try await world.player()
        try await Self.befriend(world, player, friend)
        for day in 0..<7 {
          _ = try await world.client.schedule.updateDayStatus(
            .init(
              date: LocalDate(year: 2027, month: 1, day: Int32(15 + day)), status: .busy,
              note: Self.longNote, timeZone: Self.zone),
            options: friend.options)
        }
        friends.append(friend.id)
      }
      let first = try await world.client.schedule.getFriendsSchedules(
        .init(timeZone: Self.zone, pageSize: 100), options: player.options)
      #expect(first.friends.map(\.player.userID) == [friends.min()!])
      #expect(!first.nextPageToken.isEmpty)
      let all = try await Self.listed(world, player, pageSize: 100, limit: Self.smallBody)
      #expect(all.map(\.player.userID) == friends.sorted())
      // As one answer they would not fit the frame.
      #expect(
        !FrameFormat.fits(
          payload: GetFriendsSchedulesResponse(friends: all).serializedSize,
          limit: Self.smallBody))
    }
  }

  @Test(
    "friends made between pages never repeat a friend or skip one", arguments: StoreKind.allCases)
  func inserts_betweenPages_keepOrder(kind: StoreKind) async throws {
    try await withPlayerWorld(kind, maximumBodySize: Self.smallBody) { world in
      let player = try await world.player()
      var friends: [Int64] = []
      for _ in 0..<4 {
        let friend = try await world.player()
        try await Self.befriend(world, player, friend)
        friends.append(friend.id)
      }
      let first = try await world.client.schedule.getFriendsSchedules(
        .init(timeZone: Self.zone, pageSize: 2), options: player.options)
      #expect(first.friends.map(\.player.userID) == Array(friends.prefix(2)))
      let later = try await world.player()
      try await Self.befriend(world, later, player)
      var rest: [Int64] = []
      var token = first.nextPageToken
      while !token.isEmpty {
        let page = try await world.client.schedule.getFriendsSchedules(
          .init(timeZone: Self.zone, pageSize: 2, pageToken: token), options: player.options)
        rest += page.friends.map(\.player.userID)
        token = page.nextPageToken
      }
      // A new friend has a larger id than every earlier one: it comes at the end.
      #expect(rest == Array(friends.dropFirst(2)) + [later.id])
    }
  }

  @Test(
    "GetFriendsSchedules refuses page tokens it never gave out and sizes out of range",
    arguments: StoreKind.allCases)
  func refusesForgedTokens(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      for _ in 0..<2 { try await Self.befriend(world, player, try await world.player()) }
      let first = try await world.client.schedule.getFriendsSchedules(
        .init(timeZone: Self.zone, pageSize: 1), options: player.options)
      #expect(!first.nextPageToken.isEmpty)
      let id = String(first.friends[0].player.userID)
      for token in [
        "nonsense", "friendschedules.+\(id)", "friendschedules.0\(id)", "friendschedules.-1",
        "friendschedules.\(id).1", "threads.\(id)", "\(id)", "friendschedules. \(id)",
      ] {
        let refused = await rpcError {
          _ = try await world.client.schedule.getFriendsSchedules(
            .init(timeZone: Self.zone, pageToken: token), options: player.options)
        }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.reason == "PAGE_TOKEN_INVALID")
        #expect(refused?.violations.map(\.field) == ["page_token"])
      }
      for size: Int32 in [-1, 101, .max, .min] {
        let refused = await rpcError {
          _ = try await world.client.schedule.getFriendsSchedules(
            .init(timeZone: Self.zone, pageSize: size), options: player.options)
        }
        #expect(refused?.reason == "PAGE_SIZE_OUT_OF_RANGE")
        #expect(refused?.violations.map(\.field) == ["page_size"])
      }
    }
  }
}
