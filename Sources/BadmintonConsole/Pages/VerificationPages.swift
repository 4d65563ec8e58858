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

  func register(on router: Router<ConsoleRequestContext>) {
    router.get("/verifications") { _, context in
      try await queue(context)
    }
    router.get("/verifications/:id") { request, context in
      guard let id = verificationID(context) else { return badID(context) }
      let query = FormFields(encoded: request.uri.query ?? "") ?? FormFields()
      return try await requestPage(id: id, context, status: .ok, done: query["done"])
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
    let values: [String: Any] = [
      "hasRequests": !requests.isEmpty,
      "requests": requests.prefix(Self.queueLimit).map { request -> [String: Any] in
        [
          "id": String(request.id),
          "playerID": String(request.playerID),
          "nickname": request.nickname,
          "levelAsked": String(request.levelAsked),
          "kind": request.kind,
          "submitted": UTCTime.format(unixMs: request.submittedAtUnixMs),
          "waiting": Figures.duration(ms: now - request.submittedAtUnixMs),
        ]
      },
    ]
    return core.renderer.page(
      "verifications", title: "Verifications", session: context.session, values: values)
  }

  private func review(_ context: ConsoleRequestContext) async throws -> Response {
    guard let id = verificationID(context), let session = context.session else {
      return badID(context)
    }
    let note = (context.form["note"] ?? "").trimmedOfWhitespace
    let decision = context.form["decision"] ?? ""
    var violations = [
      FieldCheck.length(
        of: note, field: "note", maximum: VerificationRules.maximumNoteLength, label: "Note")
    ].compactMap { $0 }
    if decision != "approve" && decision != "reject" {
      violations.append(
        .init(
          field: "decision", text: "Choose Approve or Reject.", reason: "INVALID_DECISION"))
    }
    let draft = String(note.prefix(VerificationRules.maximumNoteLength))
    guard violations.isEmpty else {
      return try await requestPage(
        id: id, context, status: .badRequest, message: FieldCheck.message(violations),
        noteDraft: draft)
    }
    let approve = decision == "approve"
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
    return core.renderer.page(
      "verification", title: title, session: context.session, status: status,
      message: message ?? Self.flash(done, verification: verification),
      values: [
        "request": Self.values(
          of: verification, shown: shown, nowUnixMs: core.backend.nowUnixMs(),
          noteDraft: noteDraft)
      ],
      headers: headers)
  }

  /// The request page's values for `verification`.
  static func values(
    of verification: ConsoleVerification, shown: EvidenceDocument.ContentType?, nowUnixMs: Int64,
    noteDraft: String
  ) -> [String: Any] {
    let pending = verification.state == "pending"
    var values: [String: Any] = [
      "id": String(verification.id),
      "playerID": String(verification.playerID),
      "nickname": verification.nickname,
      "levelAsked": String(verification.levelAsked),
      "kind": verification.kind,
      "state": stateText(verification.state),
      "submitted": UTCTime.format(unixMs: verification.submittedAtUnixMs),
      "document": "\(typeName(verification.contentType)), "
        + Figures.size(bytes: verification.documentSize),
      "pending": pending,
      "noteDraft": noteDraft,
      "documentHref": "/verifications/\(verification.id)/document",
    ]
    if pending {
      values["waiting"] = Figures.duration(ms: nowUnixMs - verification.submittedAtUnixMs)
    } else {
      var review: [String: Any] = ["note": verification.reviewNote]
      if let reviewerID = verification.reviewerID { review["reviewerID"] = String(reviewerID) }
      if let at = verification.reviewedAtUnixMs { review["at"] = UTCTime.format(unixMs: at) }
      values["review"] = review
    }
    switch shown {
    case .png?, .jpeg?: values["image"] = true
    case .pdf?: values["pdf"] = true
    case nil: values["unshowable"] = true
    }
    return values
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
