/// The kind of game a player looks for.
public enum MatchMode: Int, Hashable, Sendable, CaseIterable {
  /// One player against one.
  case singles = 1
  /// Two players against two.
  case doubles = 2

  /// The mode's name in English.
  public var en: String {
    switch self {
    case .singles: "Singles"
    case .doubles: "Doubles"
    }
  }

  /// The mode's name in Simplified Chinese.
  public var zhCN: String {
    switch self {
    case .singles: "单打"
    case .doubles: "双打"
    }
  }
}
