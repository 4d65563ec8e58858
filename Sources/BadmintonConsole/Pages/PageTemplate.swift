/// The console's templates, one file each in `Resources/Templates/` (`NAME.mustache`, the raw
/// value). Every value goes through `{{ }}`, which escapes HTML; only the live page's charts go
/// through `{{{ }}}`: they are SVG markup that `LineChart` builds from numbers and escapes itself.
enum PageTemplate: String, CaseIterable, Sendable {
  /// The frame of every page: the head, the nav when signed in, the title and the message. The
  /// other templates inherit it (`{{<layout}}`) and fill its `main` block.
  case layout
  /// The sign-in form.
  case signIn = "sign-in"
  /// The player search and its results.
  case players
  /// One player: profile, levels, reputation, matches, blocks, sessions, suspension, actions.
  case player
  /// The verification requests that wait for review, oldest first.
  case verifications
  /// One verification request: its facts, its certificate shown in the page, and the review.
  case verification
  /// The live figures: sizes now, and each busy method's calls and latency over the window.
  case live
  /// The audit log, newest first, a page at a time.
  case audit
  /// A page that says what went wrong: an expired form, a page not found, an error.
  case problem

  /// The template's file name in `Resources/Templates/`.
  var fileName: String { rawValue + ".mustache" }
}

/// The values one page's template reads, besides the layout's (`LayoutContext`). Each page has
/// its own type, which names its template: a page cannot be rendered with another's template.
/// Templates read the properties by name through `Mirror`; TemplateTests checks that every name
/// a template uses is a property here.
protocol PageContext: Sendable {
  /// The template that renders this page.
  static var template: PageTemplate { get }
}
