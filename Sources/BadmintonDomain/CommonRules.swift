extension DomainError {
  /// No player has the id asked for.
  public static let playerNotFound = DomainError(
    .notFound, "PLAYER_NOT_FOUND", en: "There is no such player.", zhCN: "没有该球友。")
}

/// How many results one page of a listing holds.
public enum PageRules {
  /// The page size when the request gives none.
  public static let defaultSize = 20
  /// The page sizes a request may ask for.
  public static let sizes = 1...100

  /// The page size for `requested`: the default for 0, else 1 to 100.
  public static func size(_ requested: Int) throws(DomainError) -> Int {
    let size = requested == 0 ? defaultSize : requested
    guard sizes.contains(size) else {
      throw .invalidField(
        "page_size", "PAGE_SIZE_OUT_OF_RANGE", en: "The page size must be from 1 to 100.",
        zhCN: "每页数量须为 1 到 100。")
    }
    return size
  }
}

/// What a name shown to other players (a nickname) may hold, scalar by scalar.
public enum NameRules {
  /// Whether `scalar` is a format character or a line or paragraph separator (Unicode general
  /// categories Cf, Zl, Zp): invisible by itself, and able to hide or reorder what a reader sees
  /// (zero-width joiners and spaces, the right-to-left override U+202E, the byte order mark).
  public static func isFormatOrSeparator(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .format, .lineSeparator, .paragraphSeparator: true
    default: false
    }
  }

  /// Whether `scalar` shows something by itself: not white space, not a code point that
  /// renderers ignore (such as the Hangul fillers or variation selectors), not a mark that
  /// only decorates the character before it, and not the blank Braille pattern U+2800.
  public static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
    let properties = scalar.properties
    switch properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .spacingMark, .control, .format, .lineSeparator,
      .paragraphSeparator, .spaceSeparator:
      return false
    default:
      return !properties.isWhitespace && !properties.isDefaultIgnorableCodePoint
        && scalar.value != 0x2800
    }
  }
}
