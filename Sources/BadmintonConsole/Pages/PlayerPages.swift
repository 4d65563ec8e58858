import BadmintonDomain
import Hummingbird

/// The Players pages: find a player, see one, and end their sessions, suspend them or lift
/// their suspension.
struct PlayerPages: Sendable {
  /// How many players a search lists at most.
  static let searchLimit = 50
  let core: ConsoleCore

  func addRoutes(to router: Router<ConsoleRequestContext>) {
    router.get("/players") { request, context in
      try await search(request, context)
    }
    router.get("/players/:id") { request, context in
      guard let id = FieldCheck.positiveID(context.parameters.get("id") ?? "") else {
        return badID(context)
      }
      let query = try? DoneQuery.decode(request.uri.query ?? "")
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
    guard let query = try? SearchQuery.decode(request.uri.query ?? "") else {
      return searchPage(
        query: "", results: nil, context, status: .badRequest,
        message: .error("The search could not be read.", reason: "FORM_UNREADABLE"))
    }
    let text = (query.q ?? "").trimmedOfWhitespace
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
    let page = PlayersPageContext(
      query: query, searched: results != nil, hasResults: !(results ?? []).isEmpty,
      results: (results ?? []).map { player in
        PlayersPageContext.Row(
          id: player.id, nickname: player.nickname, phone: player.phone,
          selfLevel: player.selfLevel,
          suspendedUntil: player.suspendedUntilUnixMs.map { UTCTime.format(unixMs: $0) } ?? "")
      })
    return core.renderer.page(
      page, title: "Players", session: context.session, status: status, message: message)
  }

  private func suspend(_ context: ConsoleRequestContext) async throws -> Response {
    guard let id = playerID(context), let session = context.session else {
      return badID(context)
    }
    let form = try context.form(SuspendForm.self)
    let reason = form.trimmedReason
    let (until, violations) = form.checked(nowUnixMs: core.backend.nowUnixMs())
    var drafts = Drafts(
      reason: String(reason.prefix(SuspendForm.maximumReasonLength)),
      until: String(form.trimmedUntil.prefix(19)))
    // A time that could not be read is not kept: the browser would not show it.
    if violations.contains(where: { $0.reason == "INVALID_TIME" }) { drafts.until = "" }
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
    let form = try context.form(LiftForm.self)
    let note = form.trimmedNote
    let violations = form.violations
    if !violations.isEmpty {
      return try await playerPage(
        id: id, context, status: .badRequest, message: FieldCheck.message(violations),
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
      PlayerPageContext(detail: Self.detail(of: detail, nowUnixMs: now, drafts: drafts)),
      title: "Player \(detail.player.nickname)", session: context.session, status: status,
      message: message)
  }

  /// What the player page shows of `detail`.
  static func detail(of detail: ConsolePlayerDetail, nowUnixMs: Int64, drafts: Drafts)
    -> PlayerPageContext.Detail
  {
    let suspension = detail.suspension.flatMap { $0.untilUnixMs > nowUnixMs ? $0 : nil }
    return PlayerPageContext.Detail(
      id: detail.player.id,
      nickname: detail.player.nickname,
      phone: detail.player.phone,
      joined: UTCTime.format(unixMs: detail.joinedAtUnixMs),
      locale: detail.locale,
      selfLevel: detail.selfLevel,
      calculatedLevel: detail.calculatedLevel.map(Figures.oneDecimal) ?? "—",
      verifiedMaxLevel: detail.verifiedMaxLevel,
      gamesPlayed: detail.gamesPlayed,
      wins: detail.wins,
      punctuality: Figures.oneDecimal(detail.punctualityPercentage) + "%",
      characterRating: Figures.oneDecimal(detail.characterRating),
      skillAccuracy: Figures.oneDecimal(detail.skillAccuracy),
      evaluationCount: detail.evaluationCount,
      hasMatches: !detail.recentMatches.isEmpty,
      matches: detail.recentMatches.map { match in
        PlayerPageContext.Match(
          id: match.id, start: UTCTime.format(unixMs: match.startUnixMs), mode: match.mode,
          state: match.state)
      },
      blocking: detail.blocking,
      blockedBy: detail.blockedBy,
      openSessions: detail.openSessions,
      suspended: suspension != nil,
      suspensionText: suspension.map {
        "Suspended until \(UTCTime.format(unixMs: $0.untilUnixMs)): \($0.reason)"
      } ?? "Not suspended",
      suspendedBy: suspension.map {
        PlayerPageContext.SuspendedBy(
          administratorID: $0.administratorID, at: UTCTime.format(unixMs: $0.atUnixMs))
      },
      reasonDraft: drafts.reason,
      untilDraft: drafts.until,
      noteDraft: drafts.note)
  }

  /// The flash message of a redirect after an action: `?done=suspended` and the like.
  private func flash(_ query: DoneQuery?) -> Message? {
    switch query?.done {
    case "suspended": return .done("Player suspended.")
    case "lifted": return .done("Suspension lifted.")
    case "sessions-ended":
      let count = query?.n.flatMap { FieldCheck.positiveID($0) ?? ($0 == "0" ? 0 : nil) }
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
