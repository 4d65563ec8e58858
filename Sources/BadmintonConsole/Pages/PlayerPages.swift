import BadmintonDomain
import Hummingbird

/// The Players pages: find a player, see one, and end their sessions, suspend them or lift
/// their suspension.
struct PlayerPages: Sendable {
  /// How many players a search lists at most.
  static let searchLimit = 50
  /// The quick choices of the suspend form, in days.
  static let quickDurations: [String: Int64] = ["1d": 1, "7d": 7, "30d": 30, "365d": 365]

  let core: ConsoleCore

  func register(on router: Router<ConsoleRequestContext>) {
    router.get("/players") { request, context in
      try await search(request, context)
    }
    router.get("/players/:id") { request, context in
      guard let id = FieldCheck.positiveID(context.parameters.get("id") ?? "") else {
        return badID(context)
      }
      let query = FormFields(encoded: request.uri.query ?? "") ?? FormFields()
      return try await playerPage(id: id, context, status: .ok, message: flash(query))
    }
    router.post("/players/:id/suspend") { _, context in
      try await suspend(context)
    }
    router.post("/players/:id/lift") { _, context in
      try await lift(context)
    }
    router.post("/players/:id/end-sessions") { _, context in
      try await endSessions(context)
    }
  }

  private func search(_ request: Request, _ context: ConsoleRequestContext) async throws
    -> Response
  {
    guard let query = FormFields(encoded: request.uri.query ?? "") else {
      return searchPage(
        query: "", results: nil, context, status: .badRequest,
        message: .error("The search could not be read.", reason: "FORM_UNREADABLE"))
    }
    let text = (query["q"] ?? "").trimmedOfWhitespace
    if let violation = FieldCheck.length(of: text, field: "q", maximum: 64, label: "The search") {
      return searchPage(
        query: "", results: nil, context, status: .badRequest,
        message: FieldCheck.message([violation]))
    }
    guard !text.isEmpty else {
      return searchPage(query: "", results: nil, context, status: .ok, message: nil)
    }
    do {
      let players = try await core.backend.findPlayers(matching: text, limit: Self.searchLimit)
      return searchPage(query: text, results: players, context, status: .ok, message: nil)
    } catch let error as DomainError {
      return searchPage(
        query: text, results: nil, context, status: error.pageStatus, message: Message(error))
    }
  }

  private func searchPage(
    query: String, results: [ConsolePlayer]?, _ context: ConsoleRequestContext,
    status: HTTPResponse.Status, message: Message?
  ) -> Response {
    var values: [String: Any] = ["query": query]
    if let results {
      values["searched"] = true
      values["hasResults"] = !results.isEmpty
      values["results"] = results.map { player -> [String: Any] in
        [
          "id": String(player.id),
          "nickname": player.nickname,
          "phone": player.phone,
          "selfLevel": String(player.selfLevel),
          "suspendedUntil": player.suspendedUntilUnixMs.map { UTCTime.format(unixMs: $0) } ?? "",
        ]
      }
    }
    return core.renderer.page(
      "players", title: "Players", session: context.session, status: status, message: message,
      values: values)
  }

  private func suspend(_ context: ConsoleRequestContext) async throws -> Response {
    guard let id = playerID(context), let session = context.session else {
      return badID(context)
    }
    let reason = (context.form["reason"] ?? "").trimmedOfWhitespace
    let untilText = (context.form["until"] ?? "").trimmedOfWhitespace
    let quick = context.form["for"] ?? ""
    var drafts = Drafts(reason: String(reason.prefix(500)), until: String(untilText.prefix(19)))
    var violations = [
      FieldCheck.length(of: reason, field: "reason", maximum: 500, minimum: 1, label: "Reason")
    ].compactMap { $0 }
    var until: Int64?
    if !untilText.isEmpty {
      until = UTCTime.parseDateTimeLocal(untilText)
      if until == nil {
        drafts.until = ""
        violations.append(
          .init(
            field: "until", text: "Until must be a date and time, e.g. 2025-03-01T14:05.",
            reason: "INVALID_TIME"))
      }
    } else if let days = Self.quickDurations[quick] {
      until = core.backend.nowUnixMs() + days * 86_400_000
    } else {
      violations.append(
        .init(
          field: "until", text: "Choose when the suspension ends: a time, or a number of days.",
          reason: "REQUIRED"))
    }
    guard violations.isEmpty, let until else {
      return try await playerPage(
        id: id, context, status: .badRequest, message: FieldCheck.message(violations),
        drafts: drafts)
    }
    do {
      try await core.backend.suspend(
        id, untilUnixMs: until, reason: reason, by: session.administrator)
    } catch let error as DomainError {
      return try await playerPage(
        id: id, context, status: error.pageStatus, message: Message(error), drafts: drafts)
    }
    return .seeOther(to: "/players/\(id)?done=suspended")
  }

  private func lift(_ context: ConsoleRequestContext) async throws -> Response {
    guard let id = playerID(context), let session = context.session else {
      return badID(context)
    }
    let note = (context.form["note"] ?? "").trimmedOfWhitespace
    if let violation = FieldCheck.length(of: note, field: "note", maximum: 500, label: "Note") {
      return try await playerPage(
        id: id, context, status: .badRequest, message: FieldCheck.message([violation]),
        drafts: Drafts(note: String(note.prefix(500))))
    }
    do {
      try await core.backend.liftSuspension(of: id, note: note, by: session.administrator)
    } catch let error as DomainError {
      return try await playerPage(
        id: id, context, status: error.pageStatus, message: Message(error),
        drafts: Drafts(note: note))
    }
    return .seeOther(to: "/players/\(id)?done=lifted")
  }

  private func endSessions(_ context: ConsoleRequestContext) async throws -> Response {
    guard let id = playerID(context), let session = context.session else {
      return badID(context)
    }
    let count: Int
    do {
      count = try await core.backend.endSessions(of: id, by: session.administrator)
    } catch let error as DomainError {
      return try await playerPage(
        id: id, context, status: error.pageStatus, message: Message(error))
    }
    return .seeOther(to: "/players/\(id)?done=sessions-ended&n=\(max(0, count))")
  }

  /// What the forms held when they come back with an error, so nothing typed is lost.
  struct Drafts {
    var reason = ""
    var until = ""
    var note = ""
  }

  /// The player's page; 404 when there is no such player.
  private func playerPage(
    id: Int64, _ context: ConsoleRequestContext, status: HTTPResponse.Status, message: Message?,
    drafts: Drafts = Drafts()
  ) async throws -> Response {
    let detail: ConsolePlayerDetail?
    do {
      detail = try await core.backend.player(id: id)
    } catch let error as DomainError {
      return core.renderer.problem(
        title: "Player \(id)", session: context.session, status: error.pageStatus,
        message: Message(error), link: ("/players", "Back to Players"))
    }
    guard let detail else {
      return core.renderer.problem(
        title: "Player \(id)", session: context.session, status: .notFound,
        message: .error("There is no player with id \(id).", reason: "PLAYER_NOT_FOUND"),
        link: ("/players", "Back to Players"))
    }
    let now = core.backend.nowUnixMs()
    return core.renderer.page(
      "player", title: "Player \(detail.player.nickname)", session: context.session,
      status: status, message: message,
      values: ["detail": Self.values(of: detail, nowUnixMs: now, drafts: drafts)])
  }

  /// The player page's values for `detail`.
  static func values(of detail: ConsolePlayerDetail, nowUnixMs: Int64, drafts: Drafts)
    -> [String: Any]
  {
    var values: [String: Any] = [
      "id": String(detail.player.id),
      "nickname": detail.player.nickname,
      "phone": detail.player.phone,
      "joined": UTCTime.format(unixMs: detail.joinedAtUnixMs),
      "locale": detail.locale,
      "selfLevel": String(detail.selfLevel),
      "calculatedLevel": detail.calculatedLevel.map(Figures.oneDecimal) ?? "—",
      "verifiedMaxLevel": String(detail.verifiedMaxLevel),
      "gamesPlayed": String(detail.gamesPlayed),
      "wins": String(detail.wins),
      "punctuality": Figures.oneDecimal(detail.punctualityPercentage) + "%",
      "characterRating": Figures.oneDecimal(detail.characterRating),
      "skillAccuracy": Figures.oneDecimal(detail.skillAccuracy),
      "evaluationCount": String(detail.evaluationCount),
      "hasMatches": !detail.recentMatches.isEmpty,
      "matches": detail.recentMatches.map { match -> [String: Any] in
        [
          "id": String(match.id), "start": UTCTime.format(unixMs: match.startUnixMs),
          "mode": match.mode, "state": match.state,
        ]
      },
      "blocking": String(detail.blocking),
      "blockedBy": String(detail.blockedBy),
      "openSessions": String(detail.openSessions),
      "reasonDraft": drafts.reason,
      "untilDraft": drafts.until,
      "noteDraft": drafts.note,
    ]
    if let suspension = detail.suspension, suspension.untilUnixMs > nowUnixMs {
      values["suspended"] = true
      values["suspensionText"] =
        "Suspended until \(UTCTime.format(unixMs: suspension.untilUnixMs)): \(suspension.reason)"
      values["suspendedBy"] = [
        "administratorID": String(suspension.administratorID),
        "at": UTCTime.format(unixMs: suspension.atUnixMs),
      ]
    } else {
      values["suspensionText"] = "Not suspended"
    }
    return values
  }

  /// The flash message of a redirect after an action: `?done=suspended` and the like.
  private func flash(_ query: FormFields) -> Message? {
    switch query["done"] {
    case "suspended": return .done("Player suspended.")
    case "lifted": return .done("Suspension lifted.")
    case "sessions-ended":
      let count = query["n"].flatMap { FieldCheck.positiveID($0) ?? ($0 == "0" ? 0 : nil) }
      guard let count else { return .done("Sessions ended.") }
      return .done("Ended \(count) session\(count == 1 ? "" : "s").")
    default: return nil
    }
  }

  private func playerID(_ context: ConsoleRequestContext) -> Int64? {
    FieldCheck.positiveID(context.parameters.get("id") ?? "")
  }

  private func badID(_ context: ConsoleRequestContext) -> Response {
    core.renderer.problem(
      title: "Player", session: context.session, status: .badRequest,
      message: .error("Player ids are positive whole numbers.", reason: "INVALID_PLAYER_ID"),
      link: ("/players", "Back to Players"))
  }
}
