import BadmintonDomain
import HTTPTypes
import Hummingbird
import NIOCore

/// The Verifications pages: the requests that wait for review, one request with its certificate
/// shown in the page, and its approval or rejection.
struct VerificationPages: Sendable {
  /// How many requests the queue lists at most.
  static let queueLimit = 100

  let core: ConsoleCore

  func addRoutes(to router: Router<ConsoleRequestContext>) {
    router.get("/verifications") { _, context in
      try await queue(context)
    }
    router.get("/verifications/:id") { request, context in
      guard let id = verificationID(context) else { return badID(context) }
      let query = try? DoneQuery.decode(request.uri.query ?? "")
      return try await requestPage(id: id, context, status: .ok, done: query?.done)
    }
    router.get("/verifications/:id/document") { _, context in
      try await document(context)
    }
    router.post("/verifications/:id/review") { _, context in
      try await review(context)
    }
  }

  private func queue(_ context: ConsoleRequestContext) async throws -> Response {
    let requests: [ConsoleVerification]
    do {
      requests = try await core.backend.pendingVerifications(limit: Self.queueLimit)
    } catch let error as DomainError {
      return core.renderer.problem(
        title: "Verifications", session: context.session, status: error.pageStatus,
        message: Message(error))
    }
    let now = core.backend.nowUnixMs()
    let page = VerificationsPageContext(
      hasRequests: !requests.isEmpty,
      requests: requests.prefix(Self.queueLimit).map { request in
        VerificationsPageContext.Row(
          id: request.id, playerID: request.playerID, nickname: request.nickname,
          levelAsked: request.levelAsked, kind: request.kind,
          submitted: UTCTime.format(unixMs: request.submittedAtUnixMs),
          waiting: Figures.duration(ms: now - request.submittedAtUnixMs))
      })
    return core.renderer.page(page, title: "Verifications", session: context.session)
  }

  private func review(_ context: ConsoleRequestContext) async throws -> Response {
    guard let id = verificationID(context), let session = context.session else {
      return badID(context)
    }
    let form = try context.form(ReviewForm.self)
    let note = form.trimmedNote
    let violations = form.violations
    let draft = String(note.prefix(VerificationRules.maximumNoteLength))
    guard violations.isEmpty, let approve = form.approves else {
      return try await requestPage(
        id: id, context, status: .badRequest, message: FieldCheck.message(violations),
        noteDraft: draft)
    }
    do {
      try await core.backend.reviewVerification(
        id: id, approve: approve, note: note, by: session.administrator)
    } catch let error as DomainError {
      return try await requestPage(
        id: id, context, status: error.pageStatus, message: Message(error), noteDraft: draft)
    }
    return .seeOther(to: "/verifications/\(id)?done=\(approve ? "approved" : "rejected")")
  }

  /// The request's page; `done` is the review just made, for the flash message. When there is
  /// no such request, a problem page with `message` (the product's refusal) or a 404.
  private func requestPage(
    id: Int64, _ context: ConsoleRequestContext, status: HTTPResponse.Status,
    message: Message? = nil, done: String? = nil, noteDraft: String = ""
  ) async throws -> Response {
    let title = "Verification request \(id)"
    let found: ConsoleVerification?
    do {
      found = try await core.backend.verification(id: id)
    } catch let error as DomainError {
      return core.renderer.problem(
        title: title, session: context.session, status: error.pageStatus,
        message: Message(error), link: ("/verifications", "Back to Verifications"))
    }
    guard let verification = found else {
      return core.renderer.problem(
        title: title, session: context.session,
        status: message == nil ? .notFound : status,
        message: message
          ?? .error(
            "There is no verification request with id \(id).", reason: "VERIFICATION_NOT_FOUND"),
        link: ("/verifications", "Back to Verifications"))
    }
    let shown = Self.documentType(verification.contentType)
    var headers = HTTPFields()
    if shown == .pdf {
      headers[.contentSecurityPolicy] = SecurityHeaders.contentSecurityPolicyShowingPDF
    }
    let page = VerificationPageContext(
      request: Self.request(
        of: verification, shown: shown, nowUnixMs: core.backend.nowUnixMs(),
        noteDraft: noteDraft))
    return core.renderer.page(
      page, title: title, session: context.session, status: status,
      message: message ?? Self.flash(done, verification: verification), headers: headers)
  }

  /// What the request page shows of `verification`.
  static func request(
    of verification: ConsoleVerification, shown: EvidenceDocument.ContentType?, nowUnixMs: Int64,
    noteDraft: String
  ) -> VerificationPageContext.Request {
    let pending = verification.state == "pending"
    return VerificationPageContext.Request(
      id: verification.id,
      playerID: verification.playerID,
      nickname: verification.nickname,
      levelAsked: verification.levelAsked,
      kind: verification.kind,
      state: stateText(verification.state),
      submitted: UTCTime.format(unixMs: verification.submittedAtUnixMs),
      document: "\(typeName(verification.contentType)), "
        + Figures.size(bytes: verification.documentSize),
      documentHref: "/verifications/\(verification.id)/document",
      pending: pending,
      waiting: pending
        ? Figures.duration(ms: nowUnixMs - verification.submittedAtUnixMs) : nil,
      review: pending
        ? nil
        : VerificationPageContext.Review(
          reviewerID: verification.reviewerID,
          at: verification.reviewedAtUnixMs.map { UTCTime.format(unixMs: $0) },
          note: verification.reviewNote),
      image: shown == .png || shown == .jpeg,
      pdf: shown == .pdf,
      unshowable: shown == nil,
      noteDraft: noteDraft)
  }

  /// The flash message after a review: `?done=approved` or `?done=rejected`.
  private static func flash(_ done: String?, verification: ConsoleVerification) -> Message? {
    switch done {
    case "approved":
      .done("Request approved: the player may now choose level \(verification.levelAsked).")
    case "rejected": .done("Request rejected.")
    default: nil
    }
  }

  /// The certificate, served with its type for the request page to show it, and so that
  /// nothing in it runs.
  private func document(_ context: ConsoleRequestContext) async throws -> Response {
    guard let id = verificationID(context) else { return badID(context) }
    let found: ConsoleDocument?
    do {
      found = try await core.backend.verificationDocument(id: id)
    } catch let error as DomainError {
      return core.renderer.problem(
        title: "Certificate", session: context.session, status: error.pageStatus,
        message: Message(error), link: ("/verifications/\(id)", "Back to the request"))
    }
    // Only the three types the product accepts, and only bytes that are of that type.
    guard let document = found, let type = Self.documentType(document.contentType),
      document.bytes.count <= EvidenceDocument.maximumSize,
      document.bytes.starts(with: type.signature)
    else {
      return core.renderer.problem(
        title: "Certificate", session: context.session, status: .notFound,
        message: .error(
          "Verification request \(id) has no certificate the console can show.",
          reason: "DOCUMENT_NOT_FOUND"),
        link: ("/verifications/\(id)", "Back to the request"))
    }
    let headers: HTTPFields = [
      .contentType: type.rawValue,
      .contentDisposition: "inline; filename=\"verification-\(id).\(Self.fileExtension(type))\"",
      .xContentTypeOptions: "nosniff",
      .cacheControl: "no-store",
      .contentSecurityPolicy: Self.documentPolicy(type),
      // For browsers that predate `frame-ancestors`: the console's own pages may frame it.
      .xFrameOptions: "SAMEORIGIN",
    ]
    return Response(
      status: .ok, headers: headers,
      body: .init(byteBuffer: ByteBuffer(bytes: document.bytes)))
  }

  /// The Content-Security-Policy of a certificate. Nothing in it may run or load anything, and
  /// only the console's own pages may frame it.
  ///
  /// An image opened on its own is drawn by the browser in an image document that loads the
  /// image (`img-src 'self'`) and sizes it with inline styles (`style-src 'unsafe-inline'`);
  /// `sandbox` makes that document a unique origin with no scripts, forms or popups.
  ///
  /// A PDF gets less: Chromium's PDF viewer (checked with Chromium 156, in the request page's
  /// `<object>` and opened on its own) draws it in a frame of its own with its own policy, so
  /// the document needs neither `img-src` nor `style-src`; it does need `frame-ancestors
  /// 'self'`, which lets the request page embed it, and it shows with `sandbox` too. (Older
  /// Chromium releases, whose PDF viewer was a plugin in the document itself, refused PDFs in
  /// sandboxed documents; the console asks for a current browser rather than drop `sandbox`.)
  static func documentPolicy(_ type: EvidenceDocument.ContentType) -> String {
    switch type {
    case .png, .jpeg:
      "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'; "
        + "sandbox"
    case .pdf:
      "default-src 'none'; frame-ancestors 'self'; sandbox"
    }
  }

  /// The type, if it is one the console shows.
  static func documentType(_ contentType: String) -> EvidenceDocument.ContentType? {
    EvidenceDocument.ContentType(rawValue: contentType)
  }

  private static func fileExtension(_ type: EvidenceDocument.ContentType) -> String {
    switch type {
    case .png: "png"
    case .jpeg: "jpg"
    case .pdf: "pdf"
    }
  }

  private static func typeName(_ contentType: String) -> String {
    switch documentType(contentType) {
    case .png?: "PNG image"
    case .jpeg?: "JPEG image"
    case .pdf?: "PDF"
    case nil: contentType
    }
  }

  private static func stateText(_ state: String) -> String {
    switch state {
    case "pending": "Pending"
    case "approved": "Approved"
    case "rejected": "Rejected"
    default: state
    }
  }

  private func verificationID(_ context: ConsoleRequestContext) -> Int64? {
    FieldCheck.positiveID(context.parameters.get("id") ?? "")
  }

  private func badID(_ context: ConsoleRequestContext) -> Response {
    core.renderer.problem(
      title: "Verification request", session: context.session, status: .badRequest,
      message: .error(
        "Verification request ids are positive whole numbers.",
        reason: "INVALID_VERIFICATION_ID"),
      link: ("/verifications", "Back to Verifications"))
  }
}
