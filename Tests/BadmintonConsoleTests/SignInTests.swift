import BadmintonConsole
import BadmintonDomain
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing

@Suite("Console sign-in and sessions")
struct SignInTests {
  @Test(
    "every page but sign-in redirects to /sign-in without a session",
    arguments: [
      "/", "/players", "/players?q=sam", "/players/7", "/players/abc", "/audit",
      "/audit?before=5", "/no-such-page",
    ])
  func notSignedIn_redirectsToSignIn(path: String) async throws {
    try await withConsole { client, backend in
      let response = try await client.execute(uri: path, method: .get)
      #expect(response.status == .seeOther)
      #expect(response.location == "/sign-in")
      #expect(!response.text.contains("Shuttle Sam"))
      expectSecurityHeaders(response)
      #expect(backend.calls.isEmpty)
    }
  }

  @Test("a POST without a session is redirected and reaches no backend call")
  func notSignedIn_postRedirects() async throws {
    try await withConsole { client, backend in
      let browser = Browser()
      for path in ["/players/7/suspend", "/players/7/lift", "/players/7/end-sessions"] {
        let response = try await browser.post(
          client, path, [("reason", "spam"), ("for", "7d")], csrf: "whatever")
        #expect(response.status == .seeOther)
        #expect(response.location == "/sign-in")
      }
      #expect(backend.calls.isEmpty)
    }
  }

  @Test("a stale session cookie is redirected and cleared")
  func staleCookie_isCleared() async throws {
    try await withConsole { client, _ in
      let response = try await client.execute(
        uri: "/players", method: .get, headers: [.cookie: "console_session=deadbeef"])
      #expect(response.status == .seeOther)
      #expect(response.headers[values: .setCookie].contains { $0.hasPrefix("console_session=;") })
    }
  }

  @Test("the sign-in page shows the form with a token and sets the sign-in cookie")
  func signInPage_showsForm() async throws {
    try await withConsole { client, _ in
      let response = try await client.execute(uri: "/sign-in", method: .get)
      #expect(response.status == .ok)
      #expect(response.headers[.contentType] == "text/html; charset=utf-8")
      #expect(response.text.contains("<form id=\"sign-in\" method=\"post\" action=\"/sign-in\">"))
      #expect(csrfToken(in: response.text)?.count == 64)
      let cookie = try #require(
        response.headers[values: .setCookie].first { $0.hasPrefix("console_sign_in=") })
      #expect(cookie.contains("HttpOnly"))
      #expect(cookie.contains("SameSite=Strict"))
      #expect(cookie.contains("Path=/"))
      #expect(!cookie.contains("Secure"))
      #expect(!response.text.contains("<script"))
      #expect(!response.text.contains("style="))
      expectSecurityHeaders(response)
    }
  }

  @Test("signing in sets an HttpOnly, SameSite=Strict session cookie and opens Players")
  func signIn_setsSessionCookie() async throws {
    try await withConsole { client, backend in
      var browser = Browser()
      browser.take(try await browser.get(client, "/sign-in"))
      let response = try await browser.post(
        client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)])
      #expect(response.status == .seeOther)
      #expect(response.location == "/players")
      let cookie = try #require(
        response.headers[values: .setCookie].first { $0.hasPrefix("console_session=") })
      let id = cookie.split(separator: ";")[0].dropFirst("console_session=".count)
      #expect(id.count == 64)
      #expect(cookie.contains("; HttpOnly"))
      #expect(cookie.contains("; SameSite=Strict"))
      #expect(cookie.contains("; Path=/"))
      #expect(!cookie.contains("Secure"))
      #expect(
        backend.calls == [.signIn(phone: adminPhone, password: adminPassword, address: "unknown")])
      browser.take(response)
      let players = try await browser.get(client, "/players")
      #expect(players.status == .ok)
      #expect(players.text.contains("<form id=\"sign-out\""))
      #expect(element("administrator", in: players.text) == "Ada (#1)")
    }
  }

  @Test(
    "cookies carry Secure and responses HSTS when the console is served over TLS, and not without")
  func secureCookies_withTLS() async throws {
    try await withConsole { client, _ in
      let page = try await Browser().get(client, "/sign-in")
      #expect(page.headers[values: .setCookie].allSatisfy { !$0.contains("Secure") })
      #expect(page.headers[HTTPField.Name("Strict-Transport-Security")!] == nil)
    }
    try await withConsole(configuration: ConsoleConfiguration(secureCookies: true)) { client, _ in
      var browser = Browser()
      let page = try await browser.get(client, "/sign-in")
      #expect(page.headers[values: .setCookie].allSatisfy { $0.contains("; Secure") })
      #expect(page.headers[HTTPField.Name("Strict-Transport-Security")!] == "max-age=31536000")
      browser.take(page)
      let response = try await browser.post(
        client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)])
      let cookie = try #require(
        response.headers[values: .setCookie].first { $0.hasPrefix("console_session=") })
      #expect(cookie.contains("; Secure"))
    }
  }

  @Test("a wrong password, an unknown phone and a non-administrator get the same response")
  func wrongCredentials_areIndistinguishable() async throws {
    try await withConsole { client, backend in
      var browser = Browser()
      browser.take(try await browser.get(client, "/sign-in"))
      let wrongPassword = try await browser.post(
        client, "/sign-in", [("phone", adminPhone), ("password", "wrong")])
      let unknownPhone = try await browser.post(
        client, "/sign-in", [("phone", "+8613899999999"), ("password", "wrong")])
      #expect(wrongPassword.status == .unauthorized)
      #expect(unknownPhone.status == wrongPassword.status)
      #expect(unknownPhone.text == wrongPassword.text)
      #expect(unknownPhone.headers[values: .setCookie] == wrongPassword.headers[values: .setCookie])
      #expect(
        element("message", in: wrongPassword.text)?.contains(
          "Wrong phone or password, or not an administrator&#39;s account.") == true)
      #expect(!wrongPassword.text.contains("+8613"))
      #expect(backend.calls.count == 2)
      #expect(
        !wrongPassword.headers[values: .setCookie].contains { $0.hasPrefix("console_session") })
    }
  }

  @Test("a suspended administrator's right password gets the same answer as a wrong password")
  func suspendedAdministrator_signInLikeWrongPassword() async throws {
    try await withConsole { client, backend in
      backend.state.withLock { _ = $0.suspendedAdministrators.insert(1) }
      var browser = Browser()
      browser.take(try await browser.get(client, "/sign-in"))
      let suspended = try await browser.post(
        client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)])
      let wrongPassword = try await browser.post(
        client, "/sign-in", [("phone", adminPhone), ("password", "wrong")])
      #expect(suspended.status == .unauthorized)
      #expect(suspended.text == wrongPassword.text)
      #expect(suspended.headers[values: .setCookie] == wrongPassword.headers[values: .setCookie])
      #expect(
        element("message", in: suspended.text)?.contains(
          "Wrong phone or password, or not an administrator&#39;s account.") == true)
      #expect(!suspended.headers[values: .setCookie].contains { $0.hasPrefix("console_session") })
    }
  }

  @Test(
    "an administrator suspended while signed in is sent to /sign-in with the cookie cleared at their next request, and the session stays ended once the suspension is lifted"
  )
  func suspendedAdministrator_sessionEnds() async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let callsBefore = backend.calls.count
      backend.state.withLock { _ = $0.suspendedAdministrators.insert(1) }
      let page = try await browser.get(client, "/players?q=shuttle")
      #expect(page.status == .seeOther)
      #expect(page.location == "/sign-in")
      #expect(
        page.headers[values: .setCookie].contains {
          $0.hasPrefix("console_session=;") && $0.contains("Max-Age=0")
        })
      #expect(!page.text.contains("Shuttle Sam"))
      // A form of the session, as lifting their own suspension, reaches nothing either.
      let lift = try await browser.post(client, "/players/1/lift", [("note", "mine")])
      #expect(lift.status == .seeOther)
      #expect(lift.location == "/sign-in")
      #expect(backend.calls.count == callsBefore)

      backend.state.withLock { _ = $0.suspendedAdministrators.remove(1) }
      let after = try await browser.get(client, "/players")
      #expect(after.status == .seeOther)
      #expect(after.location == "/sign-in")
      // The sign-in page shows its form rather than sending the old session to Players.
      #expect(try await browser.get(client, "/sign-in").status == .ok)
      // Signing in again opens a new session.
      #expect(try await signedIn(client).get(client, "/players").status == .ok)
    }
  }

  @Test("a throttled sign-in says how long to wait")
  func throttled_showsWait() async throws {
    try await withConsole { client, backend in
      backend.state.withLock {
        $0.signInError = DomainError(
          .failedPrecondition, "TOO_MANY_LOGIN_ATTEMPTS", en: "Too many attempts.", zhCN: "尝试次数过多。",
          retryAfterMs: 2_500)
      }
      var browser = Browser()
      browser.take(try await browser.get(client, "/sign-in"))
      let response = try await browser.post(
        client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)])
      #expect(response.status == .tooManyRequests)
      #expect(response.headers[.retryAfter] == "3")
      let message = try #require(element("message", in: response.text))
      #expect(message.contains("Try again in 3 seconds."))
      #expect(response.text.contains("TOO_MANY_LOGIN_ATTEMPTS"))
      #expect(!response.headers[values: .setCookie].contains { $0.hasPrefix("console_session") })
    }
  }

  @Test("sign-in fields are bounded and required; no backend call for bad ones")
  func signIn_fieldBounds() async throws {
    try await withConsole { client, backend in
      var browser = Browser()
      browser.take(try await browser.get(client, "/sign-in"))
      for fields in [
        [("phone", String(repeating: "1", count: 33)), ("password", "x")],
        [("phone", adminPhone), ("password", String(repeating: "p", count: 257))],
        [("phone", ""), ("password", "x")],
        [("phone", adminPhone)],
      ] {
        let response = try await browser.post(client, "/sign-in", fields)
        #expect(response.status == .badRequest)
        #expect(element("violations", in: response.text) != nil)
      }
      #expect(backend.calls.isEmpty)
    }
  }

  @Test("a sign-in without its token, with a wrong one or an expired one is refused with 403")
  func signIn_csrf() async throws {
    try await withConsole { client, backend in
      var browser = Browser()
      browser.take(try await browser.get(client, "/sign-in"))
      let fields = [("phone", adminPhone), ("password", adminPassword)]
      let missing = try await browser.post(client, "/sign-in", fields, withToken: false)
      let wrong = try await browser.post(
        client, "/sign-in", fields, csrf: String(repeating: "0", count: 64))
      var noCookie = browser
      noCookie.cookies = [:]
      let withoutCookie = try await noCookie.post(client, "/sign-in", fields)
      backend.advance(byMs: 11 * 60_000)
      let expired = try await browser.post(client, "/sign-in", fields)
      for response in [missing, wrong, withoutCookie, expired] {
        #expect(response.status == .forbidden)
        #expect(response.text.contains("CSRF_INVALID"))
        #expect(element("message", in: response.text)?.contains("expired") == true)
        expectSecurityHeaders(response)
      }
      #expect(backend.calls.isEmpty)
    }
  }

  @Test("a token from another browser's sign-in cookie is refused")
  func signIn_tokenBoundToCookie() async throws {
    try await withConsole { client, backend in
      var first = Browser()
      first.take(try await first.get(client, "/sign-in"))
      var second = Browser()
      second.take(try await second.get(client, "/sign-in"))
      let response = try await second.post(
        client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)], csrf: first.csrf)
      #expect(response.status == .forbidden)
      #expect(backend.calls.isEmpty)
    }
  }

  @Test("a session ends after the idle time and lasts while it is used")
  func session_idleExpiry() async throws {
    try await withConsole(configuration: ConsoleConfiguration(sessionIdleTimeoutMs: 30 * 60_000)) {
      client, backend in
      let browser = try await signedIn(client)
      backend.advance(byMs: 29 * 60_000)
      #expect(try await browser.get(client, "/players").status == .ok)
      backend.advance(byMs: 29 * 60_000)
      #expect(try await browser.get(client, "/players").status == .ok)
      backend.advance(byMs: 30 * 60_000)
      let expired = try await browser.get(client, "/players")
      #expect(expired.status == .seeOther)
      #expect(expired.location == "/sign-in")
    }
  }

  @Test("a session ends at its lifetime however busy it is, as a Live page left open would keep it")
  func session_lifetime() async throws {
    try await withConsole(
      configuration: ConsoleConfiguration(
        sessionIdleTimeoutMs: 30 * 60_000, sessionLifetimeMs: 12 * 3_600_000)
    ) { client, backend in
      let browser = try await signedIn(client)
      // A request every 5 minutes (a Live page reloads every 5 seconds) for 12 hours.
      for _ in 0..<(12 * 12 - 1) {
        backend.advance(byMs: 5 * 60_000)
        #expect(try await browser.get(client, "/players").status == .ok)
      }
      backend.advance(byMs: 5 * 60_000)
      let ended = try await browser.get(client, "/players")
      #expect(ended.status == .seeOther && ended.location == "/sign-in")
    }
  }

  @Test("signing out ends the session and clears its cookie")
  func signOut_endsSession() async throws {
    try await withConsole { client, _ in
      var browser = try await signedIn(client)
      let old = browser
      let response = try await browser.post(client, "/sign-out")
      #expect(response.status == .seeOther)
      #expect(response.location == "/sign-in")
      #expect(
        response.headers[values: .setCookie].contains {
          $0.hasPrefix("console_session=;") && $0.contains("Max-Age=0")
        })
      browser.take(response)
      #expect(browser.cookies["console_session"] == nil)
      #expect(try await old.get(client, "/players").status == .seeOther)
    }
  }

  @Test("signing out needs the session's token")
  func signOut_needsToken() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.post(
        client, "/sign-out", csrf: String(repeating: "a", count: 64))
      #expect(response.status == .forbidden)
      #expect(response.text.contains("CSRF_INVALID"))
      #expect(try await browser.get(client, "/players").status == .ok)
    }
  }

  @Test("signing in again gives a new session id and ends the one the browser had")
  func signIn_rotatesSessionID() async throws {
    try await withConsole { client, _ in
      let first = try await signedIn(client)
      var again = first
      again.take(try await client.execute(uri: "/sign-in", method: .get))
      let response = try await again.post(
        client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)])
      #expect(response.status == .seeOther)
      again.take(response)
      #expect(again.cookies["console_session"] != first.cookies["console_session"])
      #expect(try await first.get(client, "/players").status == .seeOther)
      #expect(try await again.get(client, "/players").status == .ok)
    }
  }

  @Test("a session id planted before sign-in is never the signed-in one")
  func signIn_ignoresPlantedID() async throws {
    try await withConsole { client, _ in
      let planted = String(repeating: "ab", count: 32)
      var browser = Browser(cookies: ["console_session": planted])
      browser.take(try await browser.get(client, "/sign-in"))
      let response = try await browser.post(
        client, "/sign-in", [("phone", adminPhone), ("password", adminPassword)])
      browser.take(response)
      let id = try #require(browser.cookies["console_session"])
      #expect(id != planted)
      #expect(try await browser.get(client, "/players").status == .ok)
    }
  }

  @Test("the session table is bounded: the least recently used session ends first")
  func sessions_bounded() async throws {
    try await withConsole(configuration: ConsoleConfiguration(maximumSessions: 2)) {
      client, backend in
      let first = try await signedIn(client)
      backend.advance(byMs: 1_000)
      let second = try await signedIn(client)
      backend.advance(byMs: 1_000)
      let third = try await signedIn(client)
      #expect(try await first.get(client, "/players").status == .seeOther)
      #expect(try await second.get(client, "/players").status == .ok)
      #expect(try await third.get(client, "/players").status == .ok)
    }
  }

  @Test("a signed-in administrator opening /sign-in goes to Players")
  func signedIn_signInPageRedirects() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/sign-in")
      #expect(response.status == .seeOther)
      #expect(response.location == "/players")
    }
  }
}
