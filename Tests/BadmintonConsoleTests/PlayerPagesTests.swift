import BadmintonConsole
import BadmintonDomain
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@Suite("Console Players pages")
struct PlayerPagesTests {
  @Test("Players without a query shows only the search form")
  func search_emptyQuery() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      for uri in ["/players", "/players?q=", "/players?q=+++"] {
        let response = try await browser.get(client, uri)
        #expect(response.status == .ok)
        #expect(response.text.contains("<form id=\"search\" method=\"get\" action=\"/players\">"))
        #expect(!response.text.contains("id=\"results\""))
        #expect(!response.text.contains("id=\"no-results\""))
      }
      #expect(!backend.calls.contains { if case .findPlayers = $0 { true } else { false } })
    }
  }

  @Test("a search lists matching players with links to their pages")
  func search_listsResults() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/players?q=+shuttle+")
      #expect(response.status == .ok)
      #expect(response.text.contains("<table id=\"results\">"))
      #expect(response.text.contains("<a href=\"/players/7\">Shuttle Sam</a>"))
      #expect(response.text.contains("value=\"shuttle\""))
      #expect(backend.calls.last == .findPlayers(query: "shuttle", limit: 50))
      let none = try await browser.get(client, "/players?q=nobody")
      #expect(none.text.contains("id=\"no-results\""))
      expectSecurityHeaders(response)
    }
  }

  @Test("a search longer than 64 characters is refused with a message")
  func search_tooLong() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.get(
        client, "/players?q=" + String(repeating: "a", count: 65))
      #expect(response.status == .badRequest)
      #expect(element("message", in: response.text) != nil)
      #expect(response.text.contains("at most 64 characters"))
      #expect(!backend.calls.contains { if case .findPlayers = $0 { true } else { false } })
    }
  }

  @Test("the player page shows profile, levels, reputation, matches, blocks and sessions")
  func playerPage_showsDetail() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/players/7")
      #expect(response.status == .ok)
      let html = response.text
      #expect(element("nickname", in: html) == "Shuttle Sam")
      #expect(element("phone", in: html) == "+8613800000007")
      #expect(element("joined", in: html) == "2023-11-14 22:13 UTC")
      #expect(element("self-level", in: html) == "5")
      #expect(element("calculated-level", in: html) == "4.3")
      #expect(element("verified-max-level", in: html) == "6")
      #expect(element("punctuality", in: html) == "91.5%")
      #expect(element("blocking", in: html) == "1")
      #expect(element("blocked-by", in: html) == "2")
      #expect(element("open-sessions", in: html) == "2")
      #expect(html.contains("<td>301</td>"))
      #expect(element("suspension", in: html) == "Not suspended")
      for form in ["suspend", "end-sessions"] {
        #expect(html.contains("<form id=\"\(form)\" method=\"post\""))
      }
      #expect(!html.contains("<form id=\"lift\""))
      #expect(html.contains("name=\"csrf\" value=\"\(browser.csrf!)\""))
    }
  }

  @Test("a suspended player's page says until when and why, and offers lifting")
  func playerPage_suspended() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.players[7]?.suspension = ConsoleSuspension(
          untilUnixMs: 1_741_000_000_000, reason: "No-shows", administratorID: 1,
          atUnixMs: 1_739_999_000_000)
      }
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/players/7").text
      #expect(element("suspension", in: html) == "Suspended until 2025-03-03 11:06 UTC: No-shows")
      #expect(html.contains("<form id=\"lift\" method=\"post\" action=\"/players/7/lift\">"))
    }
  }

  @Test(
    "player ids must be positive whole numbers",
    arguments: ["abc", "0", "-1", "1.5", "99999999999999999999"])
  func playerPage_badID(id: String) async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/players/\(id)")
      #expect(response.status == .badRequest)
      #expect(response.text.contains("INVALID_PLAYER_ID"))
      #expect(!backend.calls.contains { if case .player = $0 { true } else { false } })
    }
  }

  @Test("an unknown player is 404")
  func playerPage_unknown() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/players/404")
      #expect(response.status == .notFound)
      #expect(response.text.contains("PLAYER_NOT_FOUND"))
    }
  }

  @Test("suspending calls the backend with the time read as UTC and shows the flash")
  func suspend_untilTime() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/players/7/suspend",
        [("reason", " Repeated no-shows "), ("until", "2025-03-01T14:05")])
      #expect(response.status == .seeOther)
      #expect(response.location == "/players/7?done=suspended")
      #expect(
        backend.calls.last
          == .suspend(
            playerID: 7, untilUnixMs: 1_740_837_900_000, reason: "Repeated no-shows",
            administratorID: 1))
      let page = try await browser.get(client, response.location!)
      #expect(element("message", in: page.text)?.contains("Player suspended.") == true)
      #expect(
        element("suspension", in: page.text)
          == "Suspended until 2025-03-01 14:05 UTC: Repeated no-shows")
    }
  }

  @Test("a quick choice suspends for that many days from now")
  func suspend_quickChoice() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let now = backend.nowUnixMs()
      let response = try await browser.post(
        client, "/players/7/suspend", [("reason", "Abuse"), ("until", ""), ("for", "7d")])
      #expect(response.status == .seeOther)
      #expect(
        backend.calls.last
          == .suspend(
            playerID: 7, untilUnixMs: now + 7 * 86_400_000, reason: "Abuse", administratorID: 1))
    }
  }

  @Test(
    "bad suspend forms are refused with a message and no backend call",
    arguments: [
      [("reason", ""), ("for", "7d")],
      [("reason", String(repeating: "r", count: 501)), ("for", "7d")],
      [("reason", "ok"), ("until", "2025-02-30T10:00")],
      [("reason", "ok"), ("until", "tomorrow")],
      [("reason", "ok"), ("for", "9d")],
      [("reason", "ok")],
    ])
  func suspend_badForm(fields: [(String, String)]) async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(client, "/players/7/suspend", fields)
      #expect(response.status == .badRequest)
      #expect(element("violations", in: response.text) != nil)
      #expect(element("suspension", in: response.text) == "Not suspended")
      #expect(!backend.calls.contains { if case .suspend = $0 { true } else { false } })
    }
  }

  @Test("the backend's error is shown with its message and reason")
  func suspend_backendError() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.actionError = DomainError(
          .invalidArgument, "INVALID_ARGUMENT", en: "The request has invalid fields.",
          zhCN: "请求字段无效。",
          violations: [
            .init(
              field: "until", reason: "SUSPENSION_IN_PAST", en: "Until must be in the future.",
              zhCN: "结束时间必须在将来。")
          ])
      }
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/players/7/suspend", [("reason", "Late <again>"), ("until", "2020-01-01T00:00")])
      #expect(response.status == .badRequest)
      let message = try #require(element("message", in: response.text))
      #expect(message.contains("The request has invalid fields."))
      #expect(response.text.contains("Until must be in the future."))
      #expect(response.text.contains("SUSPENSION_IN_PAST"))
      #expect(response.text.contains(">Late &lt;again&gt;</textarea>"))
    }
  }

  @Test("a NOT_FOUND from the backend is 404")
  func suspend_notFound() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.actionError = DomainError(
          .notFound, "NOT_FOUND", en: "No such player.", zhCN: "没有这个玩家。")
      }
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/players/7/suspend", [("reason", "x"), ("for", "1d")])
      #expect(response.status == .notFound)
      #expect(response.text.contains("No such player."))
    }
  }

  @Test("lifting calls the backend with the note and shows the flash")
  func lift_callsBackend() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.players[7]?.suspension = ConsoleSuspension(
          untilUnixMs: 1_741_000_000_000, reason: "No-shows", administratorID: 1,
          atUnixMs: 1_739_999_000_000)
      }
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/players/7/lift", [("note", "Apologised")])
      #expect(response.status == .seeOther)
      #expect(response.location == "/players/7?done=lifted")
      #expect(backend.calls.last == .lift(playerID: 7, note: "Apologised", administratorID: 1))
      let page = try await browser.get(client, response.location!)
      #expect(element("message", in: page.text)?.contains("Suspension lifted.") == true)
      #expect(element("suspension", in: page.text) == "Not suspended")
    }
  }

  @Test("a lift note longer than 500 characters is refused")
  func lift_noteTooLong() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/players/7/lift", [("note", String(repeating: "n", count: 501))])
      #expect(response.status == .badRequest)
      #expect(!backend.calls.contains { if case .lift = $0 { true } else { false } })
    }
  }

  @Test("ending sessions calls the backend and says how many ended")
  func endSessions_callsBackend() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(client, "/players/7/end-sessions")
      #expect(response.status == .seeOther)
      #expect(response.location == "/players/7?done=sessions-ended&n=3")
      #expect(backend.calls.last == .endSessions(playerID: 7, administratorID: 1))
      let page = try await browser.get(client, response.location!)
      #expect(element("message", in: page.text)?.contains("Ended 3 sessions.") == true)
    }
  }

  @Test(
    "an action without the session's token is refused with 403 and reaches no backend call",
    arguments: ["/players/7/suspend", "/players/7/lift", "/players/7/end-sessions"])
  func actions_needToken(path: String) async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let fields = [("reason", "x"), ("for", "1d"), ("note", "n")]
      let missing = try await browser.post(client, path, fields, withToken: false)
      let wrong = try await browser.post(
        client, path, fields, csrf: String(repeating: "f", count: 64))
      let short = try await browser.post(client, path, fields, csrf: "f")
      for response in [missing, wrong, short] {
        #expect(response.status == .forbidden)
        #expect(response.text.contains("CSRF_INVALID"))
        #expect(response.text.contains("href=\"/players/7\""))
        expectSecurityHeaders(response)
      }
      let actions = backend.calls.filter {
        switch $0 {
        case .suspend, .lift, .endSessions: true
        default: false
        }
      }
      #expect(actions.isEmpty)
    }
  }

  @Test(
    "an administrator's suspend, lift or end-sessions on their own account is refused on the page with 403 and ADMINISTRATOR_ACTS_ON_SELF",
    arguments: ["/players/1/suspend", "/players/1/lift", "/players/1/end-sessions"])
  func actionOnSelf_refused(path: String) async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.players[1] = TestBackend.detail(id: 1, nickname: "Ada", phone: adminPhone)
      }
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, path, [("reason", "Taking a break"), ("for", "1d"), ("note", "mine")])
      #expect(response.status == .forbidden)
      let message = try #require(element("message", in: response.text))
      #expect(message.contains("Administrators cannot suspend themselves"))
      #expect(response.text.contains("ADMINISTRATOR_ACTS_ON_SELF"))
      #expect(element("nickname", in: response.text) == "Ada")
      #expect(element("suspension", in: response.text) == "Not suspended")
      expectSecurityHeaders(response)
    }
  }

  @Test("nicknames are escaped: markup shows as text")
  func escaping() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let page = try await browser.get(client, "/players/8")
      #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
      #expect(!page.text.contains("<script"))
      let search = try await browser.get(client, "/players?q=%3Cscript")
      #expect(search.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
      #expect(search.text.contains("value=\"&lt;script\""))
      #expect(!search.text.contains("<script"))
    }
  }

  @Test("a body larger than 16 KiB is refused with 413")
  func bodyTooLarge() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/players/7/lift", [("note", String(repeating: "n", count: 17 * 1024))])
      #expect(response.status == .contentTooLarge)
      expectSecurityHeaders(response)
      #expect(!backend.calls.contains { if case .lift = $0 { true } else { false } })
    }
  }

  @Test("a POST that is not a urlencoded form is refused with 415")
  func wrongContentType() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      var headers = browser.cookieHeader
      headers[.contentType] = "application/json"
      let response = try await client.execute(
        uri: "/players/7/end-sessions", method: .post, headers: headers,
        body: ByteBuffer(string: "{\"csrf\":\"\(browser.csrf!)\"}"))
      #expect(response.status == .unsupportedMediaType)
      #expect(!backend.calls.contains { if case .endSessions = $0 { true } else { false } })
    }
  }

  @Test("a malformed form is refused with 400")
  func malformedForm() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      var headers = browser.cookieHeader
      headers[.contentType] = "application/x-www-form-urlencoded"
      let response = try await client.execute(
        uri: "/players/7/end-sessions", method: .post, headers: headers,
        body: ByteBuffer(string: "csrf=\(browser.csrf!)&note=%ZZ"))
      #expect(response.status == .badRequest)
      #expect(response.text.contains("FORM_UNREADABLE"))
      #expect(!backend.calls.contains { if case .endSessions = $0 { true } else { false } })
    }
  }

  @Test("an unknown path is 404 once signed in, with the security headers")
  func unknownPath_notFound() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/no-such-page")
      #expect(response.status == .notFound)
      #expect(response.text.contains("<nav>"))
      expectSecurityHeaders(response)
    }
  }

  @Test("the stylesheet is served as CSS with the security headers, signed in or not")
  func stylesheet() async throws {
    try await withConsole { client, _ in
      let response = try await client.execute(uri: "/console.css", method: .get)
      #expect(response.status == .ok)
      #expect(response.headers[.contentType] == "text/css; charset=utf-8")
      #expect(response.text.contains("body {"))
      expectSecurityHeaders(response)
    }
  }
}
