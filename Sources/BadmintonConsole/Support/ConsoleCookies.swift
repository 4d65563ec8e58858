import Hummingbird

/// The console's cookies, as Hummingbird `Cookie`s: `HttpOnly`, `SameSite=Strict`, `Path=/`,
/// and `Secure` when the console is served over TLS.
struct ConsoleCookies: Sendable {
  /// The signed-in session's cookie.
  static let sessionName = "console_session"
  /// The sign-in form's cookie (`SignInGuard`).
  static let signInName = SignInGuard.cookieName

  /// Whether cookies carry `Secure`.
  let secure: Bool

  /// The session cookie holding `id`, kept until the browser closes.
  func session(_ id: String) -> Cookie {
    cookie(Self.sessionName, value: id, maxAgeSeconds: nil)
  }

  /// The sign-in form's cookie holding `value`, for `maxAgeSeconds`.
  func signIn(_ value: String, maxAgeSeconds: Int) -> Cookie {
    cookie(Self.signInName, value: value, maxAgeSeconds: maxAgeSeconds)
  }

  /// A cookie that tells the browser to forget `name` now.
  func cleared(_ name: String) -> Cookie {
    cookie(name, value: "", maxAgeSeconds: 0)
  }

  private func cookie(_ name: String, value: String, maxAgeSeconds: Int?) -> Cookie {
    Cookie(
      name: name, value: value, maxAge: maxAgeSeconds, path: "/", secure: secure, httpOnly: true,
      sameSite: .strict)
  }
}

extension Response {
  /// The response with `cookies` set on it.
  func setting(_ cookies: Cookie...) -> Response {
    var response = self
    for cookie in cookies { response.setCookie(cookie) }
    return response
  }
}

extension ConsoleCore {
  /// The console's cookies, `Secure` when it is served over TLS.
  var cookies: ConsoleCookies { ConsoleCookies(secure: secureCookies) }
}
