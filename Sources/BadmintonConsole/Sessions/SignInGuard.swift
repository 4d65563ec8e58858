import Crypto

/// The sign-in form's token, before there is a session: a signed double submit. The browser gets
/// a short-lived cookie holding when it was issued and a random value; the form carries the
/// HMAC-SHA256 of that cookie under a key only this server holds. A POST is accepted when the
/// cookie is young enough and the form's token is the cookie's HMAC. A site that cannot read
/// the cookie (it is `HttpOnly` and `SameSite=Strict`) cannot forge the token.
struct SignInGuard: Sendable {
  /// The cookie's name.
  static let cookieName = "console_sign_in"

  /// How long a sign-in form stays valid.
  let lifetimeMs: Int64
  private let key: SymmetricKey

  /// A guard with a fresh random key.
  init(lifetimeMs: Int64) {
    self.lifetimeMs = lifetimeMs
    self.key = SymmetricKey(size: .bits256)
  }

  /// A new cookie value, issued now.
  func issueCookie(nowUnixMs: Int64) -> String {
    "\(nowUnixMs)-\(Secrets.randomHex())"
  }

  /// The form token that goes with `cookie`, or nil when the cookie is malformed or too old.
  func token(forCookie cookie: String, nowUnixMs: Int64) -> String? {
    let parts = cookie.split(separator: "-", maxSplits: 1)
    guard parts.count == 2, let issued = Int64(parts[0]), parts[1].utf8.count == 64,
      parts[1].utf8.allSatisfy({ Self.isHexDigit($0) }),
      issued <= nowUnixMs, nowUnixMs - issued < lifetimeMs
    else { return nil }
    let mac = HMAC<SHA256>.authenticationCode(for: Array(cookie.utf8), using: key)
    return Secrets.hex(mac)
  }

  /// Whether `formToken` is the token of a valid `cookie`.
  func accepts(cookie: String?, formToken: String?, nowUnixMs: Int64) -> Bool {
    guard let cookie, let formToken,
      let expected = token(forCookie: cookie, nowUnixMs: nowUnixMs)
    else { return false }
    return Secrets.constantTimeEquals(expected, formToken)
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }
}
