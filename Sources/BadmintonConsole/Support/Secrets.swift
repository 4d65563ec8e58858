/// Random tokens and their comparison, for session ids and form tokens.
enum Secrets {
  /// `byteCount` random bytes from the system's secure generator, as lowercase hex.
  static func randomHex(byteCount: Int = 32) -> String {
    var generator = SystemRandomNumberGenerator()
    var bytes = [UInt8](repeating: 0, count: byteCount)
    for index in bytes.indices {
      bytes[index] = generator.next()
    }
    return hex(bytes)
  }

  /// The bytes as lowercase hex.
  static func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var output = [UInt8]()
    for byte in bytes {
      output.append(digits[Int(byte >> 4)])
      output.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// Whether the two strings are equal, in time that depends on their lengths only.
  static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let left = Array(lhs.utf8)
    let right = Array(rhs.utf8)
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for index in left.indices {
      difference |= left[index] ^ right[index]
    }
    return difference == 0
  }
}
