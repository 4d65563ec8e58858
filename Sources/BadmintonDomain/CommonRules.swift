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
