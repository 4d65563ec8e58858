/// The fields of an `application/x-www-form-urlencoded` body or a query string.
struct FormFields: Sendable, Equatable {
  /// Each field's value; the first of several with one name.
  private(set) var values: [String: String] = [:]

  /// No fields.
  init() {}

  /// The fields of `encoded`, or nil when it is not well formed (a bad `%` escape, or text that
  /// is not UTF-8 once decoded).
  init?(encoded: some StringProtocol) {
    for pair in encoded.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
      let parts = pair.split(
        separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.decode(parts[0]) else { return nil }
      guard let value = parts.count > 1 ? Self.decode(parts[1]) : "" else { return nil }
      if values[name] == nil {
        values[name] = value
      }
    }
  }

  /// The value of the field `name`, or nil when the form has none.
  subscript(name: String) -> String? { values[name] }

  /// Percent-decodes `bytes`, `+` standing for a space.
  private static func decode(_ bytes: some Collection<UInt8>) -> String? {
    var output = [UInt8]()
    output.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index != bytes.endIndex {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%") {
        let first = bytes.index(after: index)
        guard first != bytes.endIndex else { return nil }
        let second = bytes.index(after: first)
        guard second != bytes.endIndex,
          let high = hexValue(bytes[first]), let low = hexValue(bytes[second])
        else { return nil }
        output.append(high << 4 | low)
        index = bytes.index(after: second)
        continue
      }
      output.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
      index = bytes.index(after: index)
    }
    return String(validating: output, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
