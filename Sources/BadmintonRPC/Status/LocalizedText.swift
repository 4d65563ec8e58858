/// The languages a status message is written in; chosen per call by the `locale` metadata.
public enum RPCLocale: String, Sendable, CaseIterable {
  case en = "en"
  case zhCN = "zh-CN"

  /// The locale a `locale` metadata value asks for; `en` when it is missing or unknown.
  public init(metadataValue: String?) {
    switch metadataValue?.lowercased() {
    case "zh-cn", "zh", "zh-hans", "zh-hans-cn": self = .zhCN
    default: self = .en
    }
  }
}

/// A human text in every supported language.
public struct LocalizedText: Hashable, Sendable {
  /// English.
  public var en: String
  /// Simplified Chinese.
  public var zhCN: String

  /// A text with both translations.
  public init(en: String, zhCN: String) {
    self.en = en
    self.zhCN = zhCN
  }

  /// A text received from a peer in one language only, shown as is in every locale.
  public init(verbatim text: String) {
    self.en = text
    self.zhCN = text
  }

  /// The text in `locale`.
  public func text(in locale: RPCLocale) -> String {
    switch locale {
    case .en: en
    case .zhCN: zhCN
    }
  }
}
