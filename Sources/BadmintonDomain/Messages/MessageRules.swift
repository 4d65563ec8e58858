/// The rules of direct messages that need no store: what a message may say, how a client names
/// it, and how much one page holds.
public enum MessageRules {
  /// The most characters (grapheme clusters) one message may have.
  public static let maximumLength = 1000
  /// The most UTF-8 bytes one message may have: room for 1000 of the longest everyday
  /// characters (joined emoji of up to 40 bytes), while a single character stacked with
  /// thousands of combining marks is refused.
  public static let maximumBytes = 40_000
  /// The most characters a client message id may have.
  public static let maximumClientMessageIDLength = 64
  /// The messages one LoadMessages page holds at most, and when the request names no limit.
  public static let loadPageLimit = 50
  /// The messages one SyncMessages page holds at most, and when the request names no limit.
  public static let syncPageLimit = 500
  /// The most message ids one AckDelivered call may name.
  public static let maximumAcknowledged = 500

  /// Checks who a message goes to: never the sender.
  public static func checkRecipient(senderID: Int64, recipientID: Int64) throws(DomainError) {
    guard senderID != recipientID else { throw MessageErrors.notYourself }
  }

  /// Checks a message's text: 1 to 1000 characters counted as a reader sees them (an emoji or a
  /// letter with its accents is one), at most 40,000 UTF-8 bytes, and something besides white
  /// space. Returns it unchanged.
  public static func validateText(_ text: String) throws(DomainError) -> String {
    if text.utf8.count > maximumBytes || text.count > maximumLength {
      throw MessageErrors.messageTooLong
    }
    if isBlank(text) { throw MessageErrors.messageEmpty }
    return text
  }

  /// Checks a client message id: 1 to 64 characters, at most 256 UTF-8 bytes.
  public static func validateClientMessageID(_ id: String) throws(DomainError) -> String {
    guard id.utf8.count <= 256, (1...maximumClientMessageIDLength).contains(id.count) else {
      throw MessageErrors.clientMessageIDInvalid
    }
    return id
  }

  /// The page size a request asks for: 0 means `maximum`; anything else must be 1 to `maximum`.
  public static func pageLimit(_ requested: Int32, maximum: Int) throws(DomainError) -> Int {
    if requested == 0 { return maximum }
    guard requested > 0, Int(requested) <= maximum else {
      throw MessageErrors.limitOutOfRange(maximum: maximum)
    }
    return Int(requested)
  }

  /// Whether `text` is empty or only white space and line breaks. A combining mark on a space
  /// is something to read, so it is judged scalar by scalar.
  static func isBlank(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy(\.properties.isWhitespace)
  }
}
