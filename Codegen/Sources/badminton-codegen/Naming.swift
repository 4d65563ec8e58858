/// The names the generated code uses: Swift names from `.proto` names, and the C names protoc-c
/// gives the same things (its `c_helpers.cc` rules), so that the bridging names protoc-c's symbols
/// directly.
enum Naming {
  /// Words written in capitals inside a Swift name (`user_id` -> `userID`).
  private static let acronyms: [String: String] = ["id": "ID", "ids": "IDs", "url": "URL"]

  /// Swift's reserved words, which a generated name escapes with backquotes.
  private static let swiftKeywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
    "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
    "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break",
    "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard",
    "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "false", "is",
    "nil", "self", "Self", "super", "throws", "true", "try", "Type",
  ]

  /// C's reserved words, which protoc-c follows with `_` in a member name.
  private static let cKeywords: Set<String> = [
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "int", "long", "register", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while",
  ]

  /// `snake_case` as lower camel case, acronyms in capitals: `user_id` -> `userID`.
  static func lowerCamel(_ snake: String) -> String {
    let parts = snake.lowercased().split(separator: "_").map(String.init)
    guard let first = parts.first else { return snake }
    return first + parts.dropFirst().map(upperWord).joined()
  }

  /// `snake_case` as upper camel case: `body` -> `Body`.
  static func upperCamel(_ snake: String) -> String {
    snake.lowercased().split(separator: "_").map { upperWord(String($0)) }.joined()
  }

  private static func upperWord(_ word: String) -> String {
    acronyms[word] ?? (word.prefix(1).uppercased() + word.dropFirst())
  }

  /// `name`, in backquotes when it is a Swift keyword.
  static func escaped(_ name: String) -> String {
    swiftKeywords.contains(name) ? "`\(name)`" : name
  }

  /// protoc-c's `CamelToLower`: `PlayerCard` -> `player_card`.
  static func camelToLower(_ name: String) -> String {
    var result = ""
    for (index, character) in name.enumerated() {
      if index > 0, character.isUppercase { result += "_" }
      result += character.lowercased()
    }
    return result
  }

  /// protoc-c's `CamelToUpper`: `PlayerCard` -> `PLAYER_CARD`.
  static func camelToUpper(_ name: String) -> String { camelToLower(name).uppercased() }

  /// protoc-c's type name of a message or enum: `badminton.v1.PlayerCard` ->
  /// `Badminton__V1__PlayerCard`.
  static func cTypeName(package: String, name: String) -> String {
    let prefix = package.split(separator: ".").map { upperCamel(String($0)) }
    return (prefix + [name]).joined(separator: "__")
  }

  /// protoc-c's lower-case name of a message: `badminton__v1__player_card`.
  static func cLowerName(package: String, name: String) -> String {
    let prefix = package.split(separator: ".").map { $0.lowercased() }
    return (prefix + [camelToLower(name)]).joined(separator: "__")
  }

  /// protoc-c's upper-case name of a message: `BADMINTON__V1__PLAYER_CARD`.
  static func cUpperName(package: String, name: String) -> String {
    cLowerName(package: package, name: name).uppercased()
  }

  /// protoc-c's struct member for a field called `name`.
  static func cMember(_ name: String) -> String {
    let lower = name.lowercased()
    return cKeywords.contains(lower) ? lower + "_" : lower
  }

  /// The Swift names of an enum's values, in order: the enum's own prefix
  /// (`VERIFICATION_KIND_`) dropped where a value has it, else the prefix the `.proto` declares
  /// with `(badminton.rpc.v1.value_prefix)` (`ANSWER_`), then lower camel case:
  /// `VERIFICATION_KIND_UNSPECIFIED` -> `unspecified`, `REGIONAL_CHAMPIONSHIP` ->
  /// `regionalChampionship`, `ANSWER_PENDING` -> `pending`. A prefix that would leave a name
  /// starting with a digit stays.
  static func enumCases(_ valueNames: [String], enumName: String, valuePrefix: String = "")
    -> [String]
  {
    let own = camelToUpper(enumName) + "_"
    return valueNames.map { name in
      for prefix in [own, valuePrefix] where !prefix.isEmpty && name.hasPrefix(prefix) {
        let rest = name.dropFirst(prefix.count)
        if let first = rest.first, !first.isNumber { return lowerCamel(String(rest)) }
      }
      return lowerCamel(name)
    }
  }

  /// A plural-free, lower camel name for a type's generator function: `PlayerCard` ->
  /// `playerCard`.
  static func lowerFirst(_ name: String) -> String {
    name.prefix(1).lowercased() + name.dropFirst()
  }
}
