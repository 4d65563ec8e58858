import Hummingbird

/// Why a POST was refused before any page saw it, and the page that says so.
enum FormRefusal: Error {
  case unsupportedMediaType
  case tooLarge
  case unreadable
  case csrf(path: String)

  func response(core: ConsoleCore, session: ConsoleSession?) -> Response {
    switch self {
    case .unsupportedMediaType:
      core.renderer.problem(
        title: "Form not accepted", session: session, status: .unsupportedMediaType,
        message: .error(
          "Forms must be sent as application/x-www-form-urlencoded.",
          reason: "UNSUPPORTED_MEDIA_TYPE"))
    case .tooLarge:
      core.renderer.problem(
        title: "Form too large", session: session, status: .contentTooLarge,
        message: .error(
          "The form is larger than \(core.maximumBodyBytes / 1024) KiB.", reason: "BODY_TOO_LARGE"
        ))
    case .unreadable:
      core.renderer.problem(
        title: "Form not accepted", session: session, status: .badRequest,
        message: .error("The form could not be read.", reason: "FORM_UNREADABLE"))
    case .csrf(let path):
      core.renderer.problem(
        title: "Form expired", session: session, status: .forbidden,
        message: .error(
          "This form has expired or did not come from the console. Open the page again and "
            + "resubmit it.", reason: "CSRF_INVALID"),
        link: Self.pageOfForm(at: path))
    }
  }

  /// The page whose form posts to `path`, to open again.
  private static func pageOfForm(at path: String) -> (href: String, text: String) {
    if path == "/sign-in" { return ("/sign-in", "Open the sign-in page again") }
    let parts = path.split(separator: "/")
    if parts.count == 3, parts[0] == "players", let id = Int64(parts[1]), id > 0 {
      return ("/players/\(id)", "Open the player's page again")
    }
    if parts.count == 3, parts[0] == "verifications", let id = Int64(parts[1]), id > 0 {
      return ("/verifications/\(id)", "Open the request again")
    }
    return ("/players", "Open Players again")
  }
}
