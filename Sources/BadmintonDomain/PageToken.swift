/// The one text form of every page token the server gives out: a listing's name and the
/// position of the page's last item as whole numbers, joined by dots (`threads.1742`).
///
/// A token is parsed strictly and then written again: only the exact text `text` gives is
/// accepted, so a token nobody was given (a sign, a leading zero, white space, a number out of
/// range, a distance that is not a number or is negative zero) is refused with
/// `PAGE_TOKEN_INVALID` before any query sees it.
public struct PageToken: Hashable, Sendable {
  /// The listing the token belongs to: lowercase ASCII letters, so a token of one listing is
  /// refused by another.
  public var kind: String
  /// The position: each from 0 to `Int64.max`.
  public var values: [Int64]

  /// The most bytes a token may have; anything longer is refused unread.
  public static let maximumBytes = 128

  /// A token of `kind` at `values`. Kinds are fixed names and values positions the server holds,
  /// so a kind that is not lowercase letters or a negative value is a programming error.
  public init(kind: String, values: [Int64]) {
    precondition(!kind.isEmpty && kind.utf8.allSatisfy { (0x61...0x7A).contains($0) })
    precondition(values.allSatisfy { $0 >= 0 })
    self.kind = kind
    self.values = values
  }

  /// The token as the client sees it: the kind, then each value in decimal, joined by dots.
  public var text: String {
    ([kind] + values.map { String($0) }).joined(separator: ".")
  }

  /// The values of `token`, which must be the text of a token of `kind` with `count` values;
  /// `PAGE_TOKEN_INVALID` naming `field` otherwise.
  public static func parse(
    _ token: String, kind: String, count: Int, field: String = "page_token"
  ) throws(DomainError) -> [Int64] {
    guard token.utf8.count <= maximumBytes else { throw invalid(field) }
    let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard parts.count == count + 1, String(decoding: parts[0], as: UTF8.self) == kind else {
      throw invalid(field)
    }
    var values: [Int64] = []
    for part in parts.dropFirst() {
      // Digits only: no sign, no white space, no leading zero except 0 itself.
      guard !part.isEmpty, part.allSatisfy({ (0x30...0x39).contains($0) }),
        part.count == 1 || part.first != 0x30,
        let value = Int64(String(decoding: part, as: UTF8.self))
      else { throw invalid(field) }
      values.append(value)
    }
    // What parses must write back to the same text.
    guard PageToken(kind: kind, values: values).text == token else { throw invalid(field) }
    return values
  }

  /// The refusal of a token the server did not give out.
  public static func invalid(_ field: String = "page_token") -> DomainError {
    .invalidField(
      field, "PAGE_TOKEN_INVALID", en: "The page token is not one this server gave out.",
      zhCN: "分页标记无效。")
  }
}
