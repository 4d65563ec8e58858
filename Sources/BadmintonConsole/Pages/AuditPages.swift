import BadmintonDomain
import Hummingbird

/// The Audit log page: what administrators did, newest first, a page at a time.
struct AuditPages: Sendable {
  /// How many entries a page lists.
  static let pageSize = 50

  let core: ConsoleCore

  func addRoutes(to router: Router<ConsoleRequestContext>) {
    router.get("/audit") { request, context in
      try await audit(request, context)
    }
  }

  private func audit(_ request: Request, _ context: ConsoleRequestContext) async throws
    -> Response
  {
    let query = try? AuditQuery.decode(request.uri.query ?? "")
    var before: Int64?
    if let text = query?.before, !text.isEmpty {
      guard let id = FieldCheck.positiveID(text) else {
        return core.renderer.problem(
          title: "Audit log", session: context.session, status: .badRequest,
          message: .error(
            "The page's position must be a positive whole number.", reason: "INVALID_ARGUMENT"),
          link: ("/audit", "Newest entries"))
      }
      before = id
    }
    let entries: [ConsoleAuditEntry]
    do {
      // One more than a page: whether it comes tells whether there is an older page.
      entries = try await core.backend.auditLog(beforeID: before, limit: Self.pageSize + 1)
    } catch let error as DomainError {
      return core.renderer.problem(
        title: "Audit log", session: context.session, status: error.pageStatus,
        message: Message(error))
    }
    let shown = entries.prefix(Self.pageSize)
    let page = AuditPageContext(
      hasEntries: !shown.isEmpty,
      entries: shown.map { entry in
        AuditPageContext.Entry(
          id: entry.id, at: UTCTime.format(unixMs: entry.atUnixMs),
          administratorID: entry.administratorID, action: entry.action,
          playerID: entry.playerID, note: entry.note)
      },
      paged: before != nil,
      older: entries.count > Self.pageSize ? shown.last?.id : nil)
    return core.renderer.page(page, title: "Audit log", session: context.session)
  }
}
