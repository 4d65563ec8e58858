import Mustache

// What each template reads, by the names it reads them under. A property that is nil is as if it
// were not there: the template looks the name up in the enclosing values (as mustache does for a
// missing key), and a section over it is skipped.

/// What the layout reads on every page: the title, the nav and sign-out form when signed in, the
/// message, and the reload of the live page.
struct LayoutContext: Sendable {
  var title: String
  /// Whether an administrator is signed in: the nav and the sign-out form show.
  var signedIn: Bool
  /// The session's form token, which every form of a signed-in page carries.
  var csrf: String?
  var administratorNickname: String?
  var administratorID: Int64?
  var message: MessageContext?
  /// How often the browser reloads the page (`<meta http-equiv="refresh">`); nil: never.
  var refreshSeconds: Int?

  /// The layout of a page titled `title`, for `session` (nil: signed out).
  init(title: String, session: ConsoleSession?, message: Message?, refreshSeconds: Int?) {
    self.title = title
    self.signedIn = session != nil
    self.csrf = session?.csrfToken
    self.administratorNickname = session?.administrator.nickname
    self.administratorID = session?.administrator.id
    self.message = message.map(MessageContext.init)
    self.refreshSeconds = refreshSeconds
  }
}

/// The layout's `message` element: an error or a done action, with the fields at fault.
struct MessageContext: Sendable {
  /// A field at fault.
  struct Violation: Sendable {
    var field: String
    var text: String
    var reason: String
  }

  /// `error` or `done`, the element's class.
  var kind: String
  var text: String
  var reason: String?
  var hasViolations: Bool
  var violations: [Violation]

  /// The context of `message`.
  init(_ message: Message) {
    self.kind = message.kind.rawValue
    self.text = message.text
    self.reason = message.reason
    self.hasViolations = !message.violations.isEmpty
    self.violations = message.violations.map {
      Violation(field: $0.field, text: $0.text, reason: $0.reason)
    }
  }
}

/// The sign-in page.
struct SignInPageContext: PageContext {
  static let template = PageTemplate.signIn

  /// The sign-in form's token, the HMAC of the sign-in cookie.
  var signInToken: String
}

/// The player search: the query and, once searched, the players found.
struct PlayersPageContext: PageContext {
  static let template = PageTemplate.players

  /// A player found.
  struct Row: Sendable {
    var id: Int64
    var nickname: String
    var phone: String
    var selfLevel: Int
    /// When the player's suspension ends; empty when not suspended.
    var suspendedUntil: String
  }

  var query: String
  /// Whether a search was made; the results show only then.
  var searched: Bool
  var hasResults: Bool
  var results: [Row]
}

/// One player's page.
struct PlayerPageContext: PageContext {
  static let template = PageTemplate.player

  /// One of the player's recent matches.
  struct Match: Sendable {
    var id: Int64
    var start: String
    var mode: String
    var state: String
  }

  /// Who suspended the player, and when.
  struct SuspendedBy: Sendable {
    var administratorID: Int64
    var at: String
  }

  /// Everything the page shows of the player, and what its forms held.
  struct Detail: Sendable {
    var id: Int64
    var nickname: String
    var phone: String
    var joined: String
    var locale: String
    var selfLevel: Int
    var calculatedLevel: String
    var verifiedMaxLevel: Int
    var gamesPlayed: Int
    var wins: Int
    var punctuality: String
    var characterRating: String
    var skillAccuracy: String
    var evaluationCount: Int
    var hasMatches: Bool
    var matches: [Match]
    var blocking: Int
    var blockedBy: Int
    var openSessions: Int
    /// Whether the player is suspended now: the lift form shows.
    var suspended: Bool
    var suspensionText: String
    var suspendedBy: SuspendedBy?
    var reasonDraft: String
    var untilDraft: String
    var noteDraft: String
  }

  var detail: Detail
}

/// The verification requests that wait for review.
struct VerificationsPageContext: PageContext {
  static let template = PageTemplate.verifications

  /// A request in the queue.
  struct Row: Sendable {
    var id: Int64
    var playerID: Int64
    var nickname: String
    var levelAsked: Int
    var kind: String
    var submitted: String
    var waiting: String
  }

  var hasRequests: Bool
  var requests: [Row]
}

/// One verification request's page.
struct VerificationPageContext: PageContext {
  static let template = PageTemplate.verification

  /// The review of a request that is no longer pending.
  struct Review: Sendable {
    var reviewerID: Int64?
    var at: String?
    var note: String
  }

  /// The request, its certificate and the review form's draft.
  struct Request: Sendable {
    var id: Int64
    var playerID: Int64
    var nickname: String
    var levelAsked: Int
    var kind: String
    var state: String
    var submitted: String
    /// The certificate's type and size, e.g. `PDF, 240.5 KiB`.
    var document: String
    var documentHref: String
    /// Whether the request waits for review: the review form shows.
    var pending: Bool
    /// How long a pending request has waited.
    var waiting: String?
    var review: Review?
    /// How the page shows the certificate: as an image, as a PDF, or not at all.
    var image: Bool
    var pdf: Bool
    var unshowable: Bool
    var noteDraft: String
  }

  var request: Request
}

/// The live figures.
struct LivePageContext: PageContext {
  static let template = PageTemplate.live

  /// A method's row in the table.
  struct MethodRow: Sendable {
    var method: String
    var calls: Int
    var rate: String
    var p50: String
    var p99: String
  }

  /// A method's section with its charts.
  struct MethodSection: Sendable {
    var method: String
    /// How many calls the window holds, as a sentence.
    var calls: String
    /// SVG markup from `LineChart`, written unescaped.
    var rateChart: String
    var latencyChart: String
  }

  var at: String
  var interval: String
  var span: String
  var openConnections: Int
  var openStreams: Int
  var matchBoard: Int
  var nearbyIndex: Int
  var commitLatency: String
  var hasCalls: Bool
  var methods: [MethodRow]
  var sections: [MethodSection]
  /// What the page says when no method was called in the window.
  var emptyWindow: String
}

/// A page of the audit log.
struct AuditPageContext: PageContext {
  static let template = PageTemplate.audit

  /// One entry.
  struct Entry: Sendable {
    var id: Int64
    var at: String
    var administratorID: Int64
    var action: String
    var playerID: Int64?
    var note: String
  }

  var hasEntries: Bool
  var entries: [Entry]
  /// Whether this is an older page: the link to the newest shows.
  var paged: Bool
  /// The id the next older page starts below; nil on the oldest page.
  var older: Int64?
}

/// A page that says what went wrong, with a link onwards.
struct ProblemPageContext: PageContext {
  static let template = PageTemplate.problem

  /// Where to go on from the problem.
  struct Link: Sendable {
    var href: String
    var text: String
  }

  var link: Link?
}

/// What a page's template is rendered with: the page's values and the layout's under one root,
/// the page's first. The page types hold no name the layout holds (TemplateTests checks it).
struct PageRenderContext<Page: PageContext>: MustacheParent {
  var layout: LayoutContext
  var page: Page

  func child(named name: String) -> Any? {
    Self.property(name, of: page) ?? Self.property(name, of: layout)
  }

  /// The stored property `name` of `value`, unwrapped when it is optional; nil when `value` has
  /// no such property or it is nil.
  static func property(_ name: String, of value: Any) -> Any? {
    guard let child = Mirror(reflecting: value).children.first(where: { $0.label == name }) else {
      return nil
    }
    let mirror = Mirror(reflecting: child.value)
    guard mirror.displayStyle == .optional else { return child.value }
    return mirror.children.first?.value
  }
}
