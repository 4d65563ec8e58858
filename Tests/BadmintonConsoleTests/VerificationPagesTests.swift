import BadmintonConsole
import BadmintonDomain
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@Suite("Console Verifications pages")
struct VerificationPagesTests {
  static let pageWithPDFPolicy =
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    + "frame-ancestors 'none'; base-uri 'none'; object-src 'self'; frame-src 'self'"

  /// Requests 1 (50 min old), 2 (2 days 5 hours), 3 (3 h 12 min, level 9, a PDF) and an
  /// approved one, 4.
  static func queueBackend() -> TestBackend {
    let backend = TestBackend()
    backend.add(TestBackend.verification(id: 1, ageMs: 50 * 60_000))
    backend.add(
      TestBackend.verification(
        id: 2, playerID: 8, nickname: "<script>alert(1)</script>", ageMs: (53 * 60 + 1) * 60_000))
    backend.add(
      TestBackend.verification(
        id: 3, levelAsked: 9, ageMs: (3 * 60 + 12) * 60_000 + 30_000,
        contentType: "application/pdf", documentSize: 250_000))
    var approved = TestBackend.verification(id: 4, ageMs: 90 * 60_000)
    approved.state = "approved"
    approved.reviewNote = "Checked with the federation"
    approved.reviewerID = 1
    approved.reviewedAtUnixMs = 1_739_999_000_000
    backend.add(approved)
    return backend
  }

  @Test("the nav links to Verifications and Live")
  func nav_links() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/players").text
      #expect(
        html.contains("<a id=\"nav-verifications\" href=\"/verifications\">Verifications</a>"))
      #expect(html.contains("<a id=\"nav-live\" href=\"/live\">Live</a>"))
    }
  }

  @Test("the queue lists pending requests oldest first, with how long each has waited")
  func queue_orderAndWaiting() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/verifications")
      #expect(response.status == .ok)
      let html = response.text
      #expect(html.contains("<table id=\"queue\">"))
      #expect(backend.calls.last == .pendingVerifications(limit: 100))
      let rows = ["/verifications/2\"", "/verifications/3\"", "/verifications/1\""].map {
        html.range(of: $0)?.lowerBound
      }
      let positions = try rows.map { try #require($0) }
      #expect(positions == positions.sorted())
      #expect(!html.contains("/verifications/4\""))
      #expect(
        html.contains(
          "<tr><td>3</td><td><a href=\"/players/7\">Shuttle Sam</a></td><td>9</td>"
            + "<td>national championship</td><td>2025-02-19 18:07 UTC</td>"
            + "<td class=\"waiting\">3 h 12 min</td>"
            + "<td><a class=\"review\" href=\"/verifications/3\">Review</a></td></tr>"))
      #expect(html.contains("<td class=\"waiting\">2 d 5 h</td>"))
      #expect(html.contains("<td class=\"waiting\">50 min</td>"))
      #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
      #expect(!html.contains("<script"))

      backend.advance(byMs: 10 * 60_000)
      let later = try await browser.get(client, "/verifications").text
      #expect(later.contains("<td class=\"waiting\">3 h 22 min</td>"))
      #expect(later.contains("<td class=\"waiting\">1 h 0 min</td>"))
    }
  }

  @Test("an empty queue says so")
  func queue_empty() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/verifications").text
      #expect(element("no-verifications", in: html) == "No requests wait for review.")
      #expect(!html.contains("id=\"queue\""))
    }
  }

  @Test("a PNG request's page shows its facts, the image in the page and the review form")
  func requestPage_png() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/verifications/1")
      #expect(response.status == .ok)
      expectSecurityHeaders(response)
      let html = response.text
      #expect(element("verification-id", in: html) == "1")
      #expect(element("level-asked", in: html) == "8")
      #expect(element("kind", in: html) == "regional championship")
      #expect(element("state", in: html) == "Pending")
      #expect(element("submitted", in: html) == "2025-02-19 20:30 UTC")
      #expect(element("waiting", in: html) == "50 min")
      #expect(element("document", in: html) == "PNG image, 12 bytes")
      #expect(html.contains("<a href=\"/players/7\">Shuttle Sam</a>"))
      #expect(
        html.contains(
          "<img id=\"certificate\" class=\"certificate\" src=\"/verifications/1/document\" "
            + "alt=\"Championship certificate of Shuttle Sam\">"))
      #expect(!html.contains("<object"))
      #expect(
        html.contains(
          "<form id=\"review\" method=\"post\" action=\"/verifications/1/review\">"))
      #expect(
        html.contains(
          "<button id=\"approve\" type=\"submit\" name=\"decision\" value=\"approve\">"))
      #expect(
        html.contains("<button id=\"reject\" type=\"submit\" name=\"decision\" value=\"reject\">"))
      #expect(html.contains("<textarea id=\"note\" name=\"note\" maxlength=\"500\">"))
      #expect(html.contains("name=\"csrf\" value=\"\(browser.csrf!)\""))
    }
  }

  @Test("a PDF request's page shows it in an object, with a link to open it, and allows it")
  func requestPage_pdf() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/verifications/3")
      #expect(response.status == .ok)
      let html = response.text
      #expect(
        html.contains(
          "<object id=\"certificate\" class=\"certificate\" data=\"/verifications/3/document\" "
            + "type=\"application/pdf\">"))
      #expect(
        element("certificate-fallback", in: html)?.contains(
          "<a href=\"/verifications/3/document\">") == true)
      #expect(!html.contains("<img id=\"certificate\""))
      #expect(element("document", in: html) == "PDF, 244.1 KiB")
      #expect(response.headers[.contentSecurityPolicy] == Self.pageWithPDFPolicy)
      #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
    }
  }

  @Test("a reviewed request's page shows its state and review, and no form")
  func requestPage_reviewed() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, _ in
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/verifications/4").text
      #expect(element("state", in: html) == "Approved")
      #expect(element("review-note", in: html) == "Checked with the federation")
      #expect(element("reviewed-at", in: html) == "2025-02-19 21:03 UTC")
      #expect(html.contains("<a href=\"/players/1\">#1</a>"))
      #expect(!html.contains("id=\"review\""))
      #expect(!html.contains("id=\"waiting\""))
    }
  }

  @Test("an unknown request is 404")
  func requestPage_unknown() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/verifications/404")
      #expect(response.status == .notFound)
      #expect(response.text.contains("VERIFICATION_NOT_FOUND"))
    }
  }

  @Test("approving calls the backend with the trimmed note and shows the new level")
  func review_approve() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/verifications/1/review",
        [("note", " Certificate checked "), ("decision", "approve")])
      #expect(response.status == .seeOther)
      #expect(response.location == "/verifications/1?done=approved")
      #expect(
        backend.calls.last
          == .review(id: 1, approve: true, note: "Certificate checked", administratorID: 1))
      let page = try await browser.get(client, response.location!)
      #expect(
        element("message", in: page.text)?.contains(
          "Request approved: the player may now choose level 8.") == true)
      #expect(element("state", in: page.text) == "Approved")
      #expect(element("review-note", in: page.text) == "Certificate checked")
      #expect(!page.text.contains("id=\"review\""))
    }
  }

  @Test("rejecting calls the backend and says the request was rejected")
  func review_reject() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/verifications/3/review", [("decision", "reject"), ("note", "")])
      #expect(response.status == .seeOther)
      #expect(response.location == "/verifications/3?done=rejected")
      #expect(backend.calls.last == .review(id: 3, approve: false, note: "", administratorID: 1))
      let page = try await browser.get(client, response.location!)
      #expect(element("message", in: page.text)?.contains("Request rejected.") == true)
      #expect(element("state", in: page.text) == "Rejected")
    }
  }

  @Test("a review without the session's token is refused with 403 and reaches no backend call")
  func review_needsToken() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let browser = try await signedIn(client)
      let fields = [("decision", "approve"), ("note", "ok")]
      let missing = try await browser.post(
        client, "/verifications/1/review", fields, withToken: false)
      let wrong = try await browser.post(
        client, "/verifications/1/review", fields, csrf: String(repeating: "f", count: 64))
      for response in [missing, wrong] {
        #expect(response.status == .forbidden)
        #expect(response.text.contains("CSRF_INVALID"))
        #expect(response.text.contains("href=\"/verifications/1\""))
        expectSecurityHeaders(response)
      }
      #expect(!backend.calls.contains { if case .review = $0 { true } else { false } })
      #expect(backend.state.withLock { $0.verifications[1]?.state } == "pending")
    }
  }

  @Test(
    "the backend's refusal is shown on the request's page with its status",
    arguments: [
      (VerificationRules.alreadyReviewed, HTTPResponse.Status.conflict),
      (VerificationRules.ownRequest, .forbidden),
      (VerificationRules.notFound, .notFound),
      (
        DomainError.invalidField(
          "note", "REVIEW_NOTE_TOO_LONG", en: "The review note is too long.", zhCN: "备注太长。"),
        .badRequest
      ),
    ])
  func review_backendError(error: DomainError, status: HTTPResponse.Status) async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      backend.state.withLock { $0.reviewError = error }
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/verifications/1/review", [("decision", "approve"), ("note", "Looks <fine>")])
      #expect(response.status == status)
      let message = try #require(element("message", in: response.text))
      #expect(message.contains(error.en))
      #expect(response.text.contains(error.reason))
      #expect(response.text.contains(">Looks &lt;fine&gt;</textarea>"))
      #expect(element("state", in: response.text) == "Pending")
    }
  }

  @Test("a review of a request that is gone shows the product's refusal")
  func review_unknownRequest() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/verifications/99/review", [("decision", "reject")])
      #expect(response.status == .notFound)
      #expect(response.text.contains(VerificationRules.notFound.en))
      #expect(backend.calls.contains(.review(id: 99, approve: false, note: "", administratorID: 1)))
    }
  }

  @Test(
    "bad review forms are refused with a message and no backend call",
    arguments: [
      [("decision", "approve"), ("note", String(repeating: "n", count: 501))],
      [("note", "ok")],
      [("decision", "maybe")],
    ])
  func review_badForm(fields: [(String, String)]) async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(client, "/verifications/1/review", fields)
      #expect(response.status == .badRequest)
      #expect(element("violations", in: response.text) != nil)
      #expect(element("state", in: response.text) == "Pending")
      #expect(!backend.calls.contains { if case .review = $0 { true } else { false } })
    }
  }

  @Test(
    "request ids must be positive whole numbers",
    arguments: ["abc", "0", "-1", "99999999999999999999"])
  func badID(id: String) async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let browser = try await signedIn(client)
      for response in [
        try await browser.get(client, "/verifications/\(id)"),
        try await browser.get(client, "/verifications/\(id)/document"),
        try await browser.post(client, "/verifications/\(id)/review", [("decision", "approve")]),
      ] {
        #expect(response.status == .badRequest)
        #expect(response.text.contains("INVALID_VERIFICATION_ID"))
      }
      #expect(
        !backend.calls.contains {
          switch $0 {
          case .verification, .verificationDocument, .review: true
          default: false
          }
        })
    }
  }

  @Test("the certificate is served with its type, inline, and a policy under which nothing runs")
  func document_png() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/verifications/1/document")
      #expect(response.status == .ok)
      #expect(Array(buffer: response.body) == TestBackend.pngBytes)
      #expect(response.headers[.contentType] == "image/png")
      #expect(
        response.headers[.contentDisposition] == "inline; filename=\"verification-1.png\"")
      #expect(response.headers[.xContentTypeOptions] == "nosniff")
      #expect(response.headers[.cacheControl] == "no-store")
      #expect(
        response.headers[.contentSecurityPolicy]
          == "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
          + "frame-ancestors 'self'; sandbox")
      #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "SAMEORIGIN")
      #expect(backend.calls.last == .verificationDocument(id: 1))
    }
  }

  @Test("a PDF certificate is served with the policy Chromium's PDF viewer shows it under")
  func document_pdf() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/verifications/3/document")
      #expect(response.status == .ok)
      #expect(Array(buffer: response.body) == TestBackend.pdfBytes)
      #expect(response.headers[.contentType] == "application/pdf")
      #expect(
        response.headers[.contentDisposition] == "inline; filename=\"verification-3.pdf\"")
      #expect(
        response.headers[.contentSecurityPolicy]
          == "default-src 'none'; frame-ancestors 'self'; sandbox")
    }
  }

  @Test("a JPEG certificate is named .jpg")
  func document_jpeg() async throws {
    let backend = TestBackend()
    backend.add(
      TestBackend.verification(id: 5, ageMs: 0, contentType: "image/jpeg"),
      bytes: [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3])
    try await withConsole(backend: backend) { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/verifications/5/document")
      #expect(response.status == .ok)
      #expect(response.headers[.contentType] == "image/jpeg")
      #expect(
        response.headers[.contentDisposition] == "inline; filename=\"verification-5.jpg\"")
    }
  }

  @Test("no certificate, another type, or bytes not of the stated type: 404")
  func document_notServed() async throws {
    let backend = Self.queueBackend()
    backend.add(
      TestBackend.verification(id: 6, ageMs: 0, contentType: "image/gif"),
      bytes: Array("GIF89a".utf8))
    backend.add(
      TestBackend.verification(id: 7, ageMs: 0, contentType: "image/png"),
      bytes: Array("<html><script>alert(1)</script>".utf8))
    try await withConsole(backend: backend) { client, _ in
      let browser = try await signedIn(client)
      for id in [404, 6, 7] {
        let response = try await browser.get(client, "/verifications/\(id)/document")
        #expect(response.status == .notFound, "\(id)")
        #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        expectSecurityHeaders(response)
      }
      let page = try await browser.get(client, "/verifications/6")
      #expect(element("certificate-unshowable", in: page.text) != nil)
      #expect(!page.text.contains("id=\"certificate\""))
    }
  }

  @Test(
    "a certificate has one address: other spellings of it are 404 and read nothing",
    arguments: [
      "/verifications/01/document", "/verifications//1/document", "/verifications/1//document",
      "/verifications/1/document/", "/verifications/%31/document", "/verifications/./1/document",
      "/verifications/1/./document", "/verifications/1/../1/document", "//verifications/1/document",
      "/verifications/1/", "/players/07", "/players/7/",
    ])
  func document_oneAddress(path: String) async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, path)
      #expect(response.status == .notFound)
      #expect(response.headers[.contentType] == "text/html; charset=utf-8")
      expectSecurityHeaders(response)
      #expect(
        !backend.calls.contains {
          switch $0 {
          case .verification, .verificationDocument, .player: true
          default: false
          }
        })
    }
  }

  @Test(
    "without a session the pages and the certificate redirect to sign-in",
    arguments: ["/verifications", "/verifications/1", "/verifications/1/document", "/live"])
  func signInRequired(path: String) async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let response = try await client.execute(uri: path, method: .get)
      #expect(response.status == .seeOther)
      #expect(response.location == "/sign-in")
      #expect(response.body.readableBytes == 0)
      #expect(
        !backend.calls.contains {
          switch $0 {
          case .pendingVerifications, .verification, .verificationDocument: true
          default: false
          }
        })
    }
  }

  @Test("a review without a session redirects to sign-in and reaches no backend call")
  func review_signInRequired() async throws {
    try await withConsole(backend: Self.queueBackend()) { client, backend in
      let response = try await Browser().post(
        client, "/verifications/1/review", [("decision", "approve")], csrf: "x")
      #expect(response.status == .seeOther)
      #expect(response.location == "/sign-in")
      #expect(!backend.calls.contains { if case .review = $0 { true } else { false } })
    }
  }
}
