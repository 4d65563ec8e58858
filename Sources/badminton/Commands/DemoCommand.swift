import ArgumentParser
import BadmintonAPI
import BadmintonRPC
import Foundation

/// `badminton demo`: plays the product's main path against a running server, step by step.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "Play the main path against a running server: register, find a match, play, rate.",
    discussion: """
      Registers four new players around Shanghai (random phone numbers, so the demo can run \
      again on the same server), posts their availability for tomorrow evening, finds a match \
      for the first one, proposes it and has the partner accept it. A proposed match lies in \
      the future and can only be completed from its start on, so the demo then plays a match \
      that starts now, from a room, completes it and submits both players' surveys.

      \(ExitStatus.helpText)
      """)

  @OptionGroup var global: GlobalOptions

  /// One demo player: who they are and how they call.
  private struct Player {
    let name: String
    let phone: String
    let id: Int64
    let options: CallOptions
  }

  private static let zone = "Asia/Shanghai"
  private static let peoplesSquare = GeoPoint(latitude: 31.2304, longitude: 121.4737)

  func run() async throws {
    try await Output.reporting(locale: global.rpcLocale) {
      try await global.withClient { client in try await play(client) }
    }
  }

  private func play(_ client: RPCClient) async throws {
    let (host, port) = try global.endpoint()
    Output.line("BadmintonBuddy demo against \(host):\(port)\n")

    Output.line("1. Four players register and log in (Accounts/Register, Accounts/Login)")
    let roster: [(name: String, level: Int32, north: Double, east: Double)] = [
      ("Lin", 5, 0, 0), ("Chen", 5, 1.2, 0.5), ("Wang", 6, -0.8, 1.5), ("Zhao", 4, 2.0, -1.0),
    ]
    var players: [Player] = []
    for entry in roster {
      let phone = "+86138" + String(format: "%08d", Int.random(in: 0..<100_000_000))
      let password = "demo-\(UUID().uuidString.prefix(8))"
      let registered = try await client.accounts.register(
        RegisterRequest(
          phone: phone, nickname: "\(entry.name) (demo)", password: password,
          selfLevel: entry.level),
        options: global.callOptions())
      let session = try await client.accounts.login(
        LoginRequest(phone: phone, password: password), options: global.callOptions())
      let player = Player(
        name: entry.name, phone: phone, id: registered.userID,
        options: global.callOptions(token: session.token))
      players.append(player)
      Output.line(
        "   \(entry.name): player \(registered.userID), phone \(phone), level \(entry.level)")
    }

    Output.line("\n2. Each one is somewhere in Shanghai (Players/UpdateLocation)")
    for (player, entry) in zip(players, roster) {
      let point = GeoPoint(
        latitude: Self.peoplesSquare.latitude + entry.north / 69.05,
        longitude: Self.peoplesSquare.longitude + entry.east / 59.1)
      _ = try await client.players.updateLocation(
        UpdateLocationRequest(latitude: point.latitude, longitude: point.longitude),
        options: player.options)
      Output.line(
        "   \(player.name) at \(String(format: "%.4f, %.4f", point.latitude, point.longitude))")
    }

    let tomorrow = Self.tomorrow()
    Output.line(
      "\n3. Each one posts singles availability for tomorrow, "
        + "\(tomorrow.year)-\(tomorrow.month)-\(tomorrow.day), 18:00-20:00 Shanghai time "
        + "(Matching/PostAvailability)")
    var availability: [Availability] = []
    for player in players {
      let posted = try await client.matching.postAvailability(
        PostAvailabilityRequest(
          mode: .singles, date: tomorrow, startMinute: 18 * 60, endMinute: 20 * 60,
          timeZone: Self.zone, radiusMiles: 10, skillTolerance: SkillTolerance(levels: 2)),
        options: player.options)
      availability.append(posted)
      Output.line("   \(player.name): availability \(posted.id)")
    }

    let (lin, ours) = (players[0], Set(players.map(\.id)))
    Output.line("\n4. \(lin.name) looks for partners (Matching/FindMatches)")
    let found = try await client.matching.findMatches(
      FindMatchesRequest(availabilityID: availability[0].id, pageSize: 10), options: lin.options)
    for candidate in found.candidates {
      Output.line(
        "   \(candidate.nickname): level \(candidate.displayLevel), "
          + String(format: "%.1f miles away", candidate.distanceMiles)
          + ", skill difference \(candidate.skillDifference)")
    }
    guard let pick = found.candidates.first(where: { ours.contains($0.userID) }),
      let partner = players.first(where: { $0.id == pick.userID })
    else {
      throw CLIFailure(
        message: "FindMatches found none of the demo's players", status: ExitStatus.serverFault)
    }

    Output.line("\n5. \(lin.name) proposes a match to \(partner.name) (Matching/ProposeMatch)")
    let proposal = try await client.matching.proposeMatch(
      ProposeMatchRequest(
        availabilityID: availability[0].id, candidateAvailabilityIDs: [pick.availabilityID]),
      options: lin.options)
    Output.line("   proposal \(proposal.id), \(Self.describe(proposal.slot))")

    Output.line("\n6. \(partner.name) accepts (Matching/RespondToProposal)")
    let accepted = try await client.matching.respondToProposal(
      RespondToProposalRequest(proposalID: proposal.id, accept: true), options: partner.options)
    Output.line(
      "   proposal \(accepted.id) is \(accepted.state): match \(accepted.matchID) is confirmed")

    Output.line(
      "\n7. That match can only be completed once it has started, so the two also play one now, "
        + "from a room (Rooms/CreateRoom, Rooms/JoinRoom, Rooms/StartMatch)")
    let room = try await client.rooms.createRoom(
      CreateRoomRequest(mode: .singles), options: lin.options)
    Output.line("   \(lin.name) opens room \(room.id) with code \(room.code)")
    _ = try await client.rooms.joinRoom(JoinRoomRequest(code: room.code), options: partner.options)
    Output.line("   \(partner.name) joins with the code")
    let started = try await client.rooms.startMatch(StartMatchRequest(), options: lin.options)
    Output.line("   match \(started.match.id) starts now: \(Self.describe(started.match.slot))")

    Output.line("\n8. \(lin.name) records the result (Surveys/CompleteMatch)")
    let completed = try await client.surveys.completeMatch(
      CompleteMatchRequest(matchID: started.match.id, winningTeam: 1), options: lin.options)
    Output.line("   match \(completed.id) \(completed.state), team \(completed.winningTeam) won")

    Output.line("\n9. Both rate each other (Surveys/SubmitSurvey)")
    for (rater, rated, skill) in [(lin, partner, Int32(5)), (partner, lin, Int32(5))] {
      let survey = try await client.surveys.submitSurvey(
        SubmitSurveyRequest(
          matchID: completed.id,
          ratings: [
            PlayerRating(userID: rated.id, skillLevel: skill, punctuality: .onTime, character: 5)
          ]),
        options: rater.options)
      Output.line("   \(rater.name) rates \(rated.name): survey \(survey.state)")
    }

    Output.line("\n10. Their reputations now (Surveys/GetReputation)")
    for (asker, player) in [(partner, lin), (lin, partner)] {
      let reputation = try await client.surveys.getReputation(
        GetReputationRequest(userID: player.id), options: asker.options)
      let summary = reputation.reputation
      Output.line(
        "   \(player.name): \(reputation.totalGames) game(s), \(reputation.wins) win(s), "
          + "\(summary.evaluationCount) rating(s), "
          + String(
            format: "punctuality %.0f%%, character %.1f", summary.punctualityPercentage,
            summary.averageCharacterRating))
    }
    Output.line(
      """

      Done. Next, by hand: badminton call Accounts/Register with your own phone and password \
      (badminton describe Accounts/Register shows the fields), badminton login PHONE, then \
      badminton call Players/GetMyProfile; badminton list shows every method.
      """)
  }

  /// Tomorrow's date in Shanghai.
  private static func tomorrow() -> LocalDate {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone) ?? .current
    let date = calendar.date(byAdding: .day, value: 1, to: Date()) ?? Date()
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return LocalDate(
      year: Int32(parts.year ?? 0), month: Int32(parts.month ?? 0), day: Int32(parts.day ?? 0))
  }

  /// A slot as `from … to …` in Shanghai time.
  private static func describe(_ slot: TimeSlot) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: zone)
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    let start = Date(timeIntervalSince1970: Double(slot.startUnixMs) / 1000)
    let end = Date(timeIntervalSince1970: Double(slot.endUnixMs) / 1000)
    return "\(formatter.string(from: start)) to \(formatter.string(from: end)) Shanghai time"
  }
}
