/// The code players type to join a room: 6 characters from an alphabet without the look-alikes
/// 0, O, 1, I and L.
public enum RoomCode {
  /// The characters a code is drawn from: A to Z and 2 to 9, less 0, O, 1, I and L.
  public static let alphabet: [Character] = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
  /// How many characters a code has.
  public static let length = 6

  /// A code of `length` characters, each drawn uniformly from `alphabet` with `generator`.
  /// The server passes `SystemRandomNumberGenerator`, which on Linux reads the kernel's
  /// cryptographic source (`getrandom`), so codes cannot be guessed from earlier ones.
  public static func generate(using generator: inout some RandomNumberGenerator) -> String {
    String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
  }

  /// The most UTF-8 bytes a typed code may have, white space around it included; longer text is
  /// refused before any character of it is looked at.
  public static let maximumTypedBytes = 64

  /// The code a player typed, in the form rooms store it: white space around it removed and
  /// letters in upper case; nil when what is left is not `length` characters of `alphabet`, or
  /// when the text is over `maximumTypedBytes`.
  public static func normalized(_ text: String) -> String? {
    guard text.utf8.count <= maximumTypedBytes else { return nil }
    let trimmed = text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace)
    let candidate = String(trimmed.reversed()).uppercased()
    return isWellFormed(candidate) ? candidate : nil
  }

  /// Whether `code` is exactly `length` characters of `alphabet`, in upper case.
  public static func isWellFormed(_ code: String) -> Bool {
    code.count == length && code.allSatisfy(alphabet.contains)
  }
}
