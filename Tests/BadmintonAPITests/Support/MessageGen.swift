import PropertyBased

/// Random values of every message, for property tests: the field values here, written by hand;
/// one function per message, setting every field, in `Generated/MessageGen.pb.swift`.
enum MessageGen {
  static func string(_ rng: inout any SeededRandomNumberGenerator, maxLength: Int = 40) -> String {
    let length = Int.random(in: 0...maxLength, using: &rng)
    var scalars = String.UnicodeScalarView()
    for _ in 0..<length {
      switch Int.random(in: 0..<10, using: &rng) {
      case 0:
        // CJK, as zh-CN nicknames and notes are.
        scalars.append(Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &rng))!)
      case 1:
        // Emoji, outside the basic plane (4-byte UTF-8).
        scalars.append(Unicode.Scalar(UInt32.random(in: 0x1F300...0x1F64F, using: &rng))!)
      case 2:
        // Other 2- and 3-byte scalars; U+0000 never, as protobuf-c strings end at it.
        scalars.append(Unicode.Scalar(UInt32.random(in: 0x80...0xD7FF, using: &rng))!)
      default:
        scalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng)))
      }
    }
    return String(scalars)
  }

  static func bytes(_ rng: inout any SeededRandomNumberGenerator, maxLength: Int = 300) -> [UInt8] {
    (0..<Int.random(in: 0...maxLength, using: &rng)).map { _ in
      UInt8.random(in: 0...255, using: &rng)
    }
  }

  static func bool(_ rng: inout any SeededRandomNumberGenerator) -> Bool {
    Bool.random(using: &rng)
  }

  static func int64(_ rng: inout any SeededRandomNumberGenerator) -> Int64 {
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: 0
    case 1: Int64.random(in: -300...300, using: &rng)
    case 2: Int64.max - Int64.random(in: 0...5, using: &rng)
    case 3: Int64.min + Int64.random(in: 0...5, using: &rng)
    default: Int64.random(in: Int64.min...Int64.max, using: &rng)
    }
  }

  static func int32(_ rng: inout any SeededRandomNumberGenerator) -> Int32 {
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: 0
    case 1: Int32.random(in: -10...10, using: &rng)
    case 2: Int32.max - Int32.random(in: 0...5, using: &rng)
    case 3: Int32.min + Int32.random(in: 0...5, using: &rng)
    default: Int32.random(in: Int32.min...Int32.max, using: &rng)
    }
  }

  /// Any double but NaN, which is unequal to itself.
  static func double(_ rng: inout any SeededRandomNumberGenerator) -> Double {
    switch Int.random(in: 0..<8, using: &rng) {
    case 0: return 0
    case 1: return -0.0
    case 2: return Double.random(in: -200...200, using: &rng)
    case 3:
      return [
        Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude,
        Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude,
        Double.leastNormalMagnitude, Double.infinity, -Double.infinity, 1e300, -1e-300,
      ].randomElement(using: &rng)!
    default:
      // Any bit pattern: huge, tiny, subnormal, negative.
      let value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
      return value.isNaN ? 1.5 : value
    }
  }

  /// Mostly defined numbers; sometimes one this build does not know (proto3 enums are open).
  static func enumNumber(
    _ rng: inout any SeededRandomNumberGenerator, defined: ClosedRange<Int32>
  ) -> Int32 {
    switch Int.random(in: 0..<8, using: &rng) {
    case 0: Int32.random(in: (defined.upperBound + 1)...Int32.max, using: &rng)
    case 1: Int32.random(in: Int32.min...(-1), using: &rng)
    default: Int32.random(in: defined, using: &rng)
    }
  }

  static func count(_ rng: inout any SeededRandomNumberGenerator) -> Int {
    Int.random(in: 0...5, using: &rng)
  }

  static func uint64(_ rng: inout any SeededRandomNumberGenerator) -> UInt64 {
    UInt64(bitPattern: int64(&rng))
  }

  static func uint32(_ rng: inout any SeededRandomNumberGenerator) -> UInt32 {
    UInt32(bitPattern: int32(&rng))
  }

  /// Any float but NaN, which is unequal to itself.
  static func float(_ rng: inout any SeededRandomNumberGenerator) -> Float {
    let value = Float(double(&rng))
    return value.isNaN ? 1.5 : value
  }

  /// Absent half of the time; present ones include all-zero values.
  static func optional<T>(
    _ rng: inout any SeededRandomNumberGenerator,
    _ make: (inout any SeededRandomNumberGenerator) -> T
  ) -> T? {
    bool(&rng) ? make(&rng) : nil
  }
}
