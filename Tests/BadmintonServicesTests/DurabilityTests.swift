import BadmintonAPI
import BadmintonRPC
import Foundation
import Testing

@Suite("Durability of acknowledged writes")
struct DurabilityTests {
  // SQLite only: this is the embedded store's file durability (`--data-dir`); the same on
  // PostgreSQL, with two instances, is MultiInstanceTests' SIGKILL test.
  @Test("writes acknowledged before SIGKILL are all there after a restart on the same data")
  func acknowledgedWrites_surviveSIGKILL() async throws {
    let dataDir = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-durability-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dataDir) }

    let first = try ServerProcess.start(["--data-dir", dataDir.path])
    let client = RPCClient(host: "127.0.0.1", port: first.port)
    var registered: [(id: Int64, phone: String)] = []
    for index in 0..<5 {
      let phone = "+86137000000\(index + 10)"
      let answer = try await client.accounts.register(
        RegisterRequest(
          phone: phone, nickname: "Durable \(index)", password: "password \(index)", selfLevel: 3))
      registered.append((answer.userID, phone))
    }
    let login = try await client.accounts.login(
      LoginRequest(phone: registered[0].phone, password: "password 0"))
    let options = CallOptions(bearerToken: login.token)
    _ = try await client.players.updateProfile(
      UpdateProfileRequest(nickname: "Renamed"), options: options)
    _ = try await client.players.updateLocation(
      .init(latitude: 31.23, longitude: 121.47), options: options)
    let neighbour = try await client.accounts.login(
      LoginRequest(phone: registered[1].phone, password: "password 1"))
    let theirs = CallOptions(bearerToken: neighbour.token)
    _ = try await client.players.updateLocation(
      .init(latitude: 31.24, longitude: 121.48), options: theirs)
    // Tomorrow in UTC, on the server's real clock.
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    let day = utc.dateComponents([.year, .month, .day], from: Date().addingTimeInterval(86_400))
    func slot(_ start: Int32, _ end: Int32) -> PostAvailabilityRequest {
      PostAvailabilityRequest(
        mode: .singles,
        date: .init(year: Int32(day.year!), month: Int32(day.month!), day: Int32(day.day!)),
        startMinute: start, endMinute: end, timeZone: "UTC")
    }
    let mine = try await client.matching.postAvailability(slot(600, 720), options: options)
    let partner = try await client.matching.postAvailability(slot(600, 720), options: theirs)
    let proposal = try await client.matching.proposeMatch(
      .init(availabilityID: mine.id, candidateAvailabilityIDs: [partner.id]), options: options)
    let accepted = try await client.matching.respondToProposal(
      .init(proposalID: proposal.id, accept: true), options: theirs)
    let later = try await client.matching.postAvailability(slot(840, 960), options: options)
    let laterPartner = try await client.matching.postAvailability(slot(840, 960), options: theirs)
    // The social writes: a friendship, a block, a message, a room and a day of the schedule.
    let third = try await client.accounts.login(
      LoginRequest(phone: registered[2].phone, password: "password 2"))
    let thirds = CallOptions(bearerToken: third.token)
    let request = try await client.friends.sendFriendRequest(
      .init(userID: registered[1].id), options: options)
    _ = try await client.friends.acceptFriendRequest(.init(requestID: request.id), options: theirs)
    _ = try await client.friends.block(.init(userID: registered[2].id), options: options)
    let message = try await client.messages.sendMessage(
      .init(recipientID: registered[1].id, clientMessageID: "durable-1", text: "See you at 10"),
      options: options)
    let room = try await client.rooms.createRoom(.init(mode: .doubles), options: thirds)
    let dayStatus = try await client.schedule.updateDayStatus(
      .init(
        date: .init(year: Int32(day.year!), month: Int32(day.month!), day: Int32(day.day!)),
        status: .free, note: "evening court", timeZone: "UTC"), options: options)
    // The last write is acknowledged; the process dies right after.
    first.kill()
    await client.close()

    let second = try ServerProcess.start(["--data-dir", dataDir.path])
    defer { second.kill() }
    let again = RPCClient(host: "127.0.0.1", port: second.port)
    // The session survived, and so did every player and the profile change.
    let me = try await again.players.getMyProfile(options: options)
    #expect(me.userID == registered[0].id)
    #expect(me.nickname == "Renamed")
    #expect(me.locationUpdatedAtUnixMs > 0)
    for (index, player) in registered.enumerated() {
      let relogin = try await again.accounts.login(
        LoginRequest(phone: player.phone, password: "password \(index)"))
      #expect(relogin.userID == player.id)
    }
    // The nearby index was rebuilt from the store.
    let nearby = try await again.players.nearbyPlayers(options: options)
    #expect(nearby.players.map(\.userID) == [registered[1].id])
    // The match, the availability it used up and the match index all came back.
    #expect(
      try await again.matching.listMyMatches(options: options).matches.map(\.id)
        == [accepted.matchID])
    #expect(
      try await again.matching.listMyAvailability(options: options).availability.map(\.id)
        == [later.id])
    let found = try await again.matching.findMatches(
      .init(availabilityID: later.id), options: options)
    #expect(found.candidates.map(\.availabilityID) == [laterPartner.id])
    // The social writes came back.
    #expect(
      try await again.friends.listFriends(.init(), options: theirs).friends.map(\.player.userID)
        == [registered[0].id])
    #expect(
      try await again.friends.listBlocked(.init(), options: options).players.map(\.player.userID)
        == [registered[2].id])
    let blockedRequest = await #expect(throws: RPCError.self) {
      _ = try await again.messages.sendMessage(
        .init(recipientID: registered[2].id, clientMessageID: "durable-2", text: "hi"),
        options: options)
    }
    #expect(blockedRequest?.reason == "PLAYER_BLOCKED")
    let loaded = try await again.messages.loadMessages(
      .init(threadID: message.threadID), options: theirs)
    #expect(loaded.messages.map(\.id) == [message.id])
    #expect(try await again.rooms.getRoom(.init(), options: thirds).code == room.code)
    let week = try await again.schedule.getMySchedule(.init(timeZone: "UTC"), options: options)
    #expect(week.days.contains(dayStatus))
    await again.close()
  }
}
