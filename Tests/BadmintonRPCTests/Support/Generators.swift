import BadmintonRPC
import PropertyBased

/// Random values of the protocol's messages, for property tests: the field values here, written
/// by hand; one function per message, setting every field, in `Generated/MessageGen.pb.swift`.
enum MessageGen {
  static func string(_ rng: inout any SeededRandomNumberGenerator, maxLength: Int = 40) -> String {
    let length = Int.random(in: 0...maxLength, using: &rng)
    var scalars = String.UnicodeScalarView()
    for _ in 0..<length {
      switch Int.random(in: 0..<10, using: &rng) {
      case 0:
        // CJK, as zh-CN texts are.
        scalars.append(Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &rng))!)
      case 1:
        // Outside the basic plane (4-byte UTF-8).
        scalars.append(Unicode.Scalar(UInt32.random(in: 0x1F300...0x1F64F, using: &rng))!)
      default:
        // Printable ASCII; U+0000 is left out because protobuf-c strings end at it.
        scalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng)))
      }
    }
    return String(scalars)
  }

  static func bytes(_ rng: inout any SeededRandomNumberGenerator, maxLength: Int = 200) -> [UInt8] {
    (0..<Int.random(in: 0...maxLength, using: &rng)).map { _ in
      UInt8.random(in: 0...255, using: &rng)
    }
  }

  static func uint64(_ rng: inout any SeededRandomNumberGenerator) -> UInt64 {
    switch Int.random(in: 0..<4, using: &rng) {
    case 0: 0
    case 1: UInt64.random(in: 1...300, using: &rng)
    case 2: UInt64.max - UInt64.random(in: 0...5, using: &rng)
    default: UInt64.random(in: 0...UInt64.max, using: &rng)
    }
  }

  static func enumNumber(_ rng: inout any SeededRandomNumberGenerator, defined: ClosedRange<Int32>)
    -> Int32
  {
    // Mostly defined numbers; sometimes one this build does not know (proto3 enums are open).
    Int.random(in: 0..<8, using: &rng) == 0
      ? Int32.random(in: (defined.upperBound + 1)...10_000, using: &rng)
      : Int32.random(in: defined, using: &rng)
  }

  static func uint32(_ rng: inout any SeededRandomNumberGenerator) -> UInt32 {
    Bool.random(using: &rng) ? 0 : UInt32.random(in: 0...UInt32.max, using: &rng)
  }

  static func bool(_ rng: inout any SeededRandomNumberGenerator) -> Bool {
    Bool.random(using: &rng)
  }

  static func count(_ rng: inout any SeededRandomNumberGenerator) -> Int {
    Int.random(in: 0...4, using: &rng)
  }

  /// Absent half of the time.
  static func optional<T>(
    _ rng: inout any SeededRandomNumberGenerator,
    _ make: (inout any SeededRandomNumberGenerator) -> T
  ) -> T? {
    bool(&rng) ? make(&rng) : nil
  }

  static let envelopes = Generator { rng in envelope(&rng) }
  static let statuses = Generator { rng in status(&rng) }
  static let metadataEntries = Generator { rng in metadata(&rng) }
  static let fieldViolations = Generator { rng in fieldViolation(&rng) }
  static let methodInfos = Generator { rng in methodInfo(&rng) }
  static let methodLists = Generator { rng in listMethodsResponse(&rng) }
  static let healthRequests = Generator { rng in healthCheckRequest(&rng) }
  static let healthResponses = Generator { rng in healthCheckResponse(&rng) }
}

/// An independent protobuf encoder, written from the wire-format specification the way
/// Google's encoders write proto3: fields in number order, defaults left out.
enum ReferenceEncoder {
  static func varint(_ value: UInt64) -> [UInt8] {
    var value = value
    var out: [UInt8] = []
    repeat {
      var byte = UInt8(value & 0x7F)
      value >>= 7
      if value != 0 { byte |= 0x80 }
      out.append(byte)
    } while value != 0
    return out
  }

  static func tag(_ field: Int, _ wireType: Int) -> [UInt8] {
    varint(UInt64(field << 3 | wireType))
  }

  static func uint(_ field: Int, _ value: UInt64) -> [UInt8] {
    value == 0 ? [] : tag(field, 0) + varint(value)
  }

  /// Enums are int32: negative numbers are sign-extended to 64 bits.
  static func enumField(_ field: Int, _ value: Int32) -> [UInt8] {
    value == 0 ? [] : tag(field, 0) + varint(UInt64(bitPattern: Int64(value)))
  }

  static func bool(_ field: Int, _ value: Bool) -> [UInt8] { value ? tag(field, 0) + [1] : [] }

  static func bytes(_ field: Int, _ value: [UInt8], always: Bool = false) -> [UInt8] {
    value.isEmpty && !always ? [] : tag(field, 2) + varint(UInt64(value.count)) + value
  }

  static func string(_ field: Int, _ value: String) -> [UInt8] { bytes(field, Array(value.utf8)) }

  static func encode(_ m: Metadata) -> [UInt8] { string(1, m.key) + string(2, m.value) }

  static func encode(_ v: FieldViolation) -> [UInt8] {
    string(1, v.field) + string(2, v.reason) + string(3, v.description)
  }

  static func encode(_ s: Status) -> [UInt8] {
    enumField(1, s.code.rawValue) + string(2, s.message) + string(3, s.reason)
      + s.violations.flatMap { bytes(4, encode($0), always: true) } + uint(5, s.retryAfterMs)
  }

  static func encode(_ e: Envelope) -> [UInt8] {
    uint(1, e.callID) + enumField(2, e.kind.rawValue) + string(3, e.method)
      + uint(4, UInt64(e.timeoutMs))
      + e.metadata.flatMap { bytes(5, encode($0), always: true) }
      + bytes(6, e.payload)
      + (e.status.map { bytes(7, encode($0), always: true) } ?? [])
  }

  static func encode(_ m: MethodInfo) -> [UInt8] {
    string(1, m.path) + string(2, m.requestType) + string(3, m.responseType)
      + bool(4, m.serverStreaming) + bool(5, m.idempotent) + bool(6, m.requiresAuthentication)
      + bool(7, m.takesIdempotencyKey)
  }
}
