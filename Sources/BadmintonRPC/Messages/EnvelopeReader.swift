public import NIOCore

/// An envelope as the client reads it: its call, its kind, its payload as a slice of the frame
/// (not copied) and its status. It accepts exactly the bytes `Envelope(serializedBytes:)` (protoc-c
/// and the U+0000 check) accepts: an envelope that carries a method or metadata, which only a
/// REQUEST does and no server sends, or a status more than once, is read by protoc-c whole.
public struct ReceivedEnvelope: Sendable {
  /// The call this envelope belongs to; 0 for connection-level envelopes.
  public var callID: UInt64 = 0
  /// What the envelope is.
  public var kind: EnvelopeKind = .unspecified
  /// The payload: a slice of the frame's body.
  public var payload = ByteBuffer()
  /// The status; nil when absent.
  public var status: Status?

  /// An envelope with every field at its default.
  public init() {}

  /// Reads the protobuf encoding of an `Envelope` in `body`'s readable bytes. Fields may come in
  /// any order, a repeated scalar's last value wins and unknown fields are skipped, as protoc-c
  /// reads them; a status is decoded by protoc-c (U+0000 in its strings refused). Throws
  /// `MessageDecodingError` for bytes that are not an envelope.
  public init(reading body: ByteBuffer) throws(MessageDecodingError) {
    let failure = MessageDecodingError(messageType: "badminton.rpc.v1.Envelope")
    var statusRange: Range<Int>?
    var payloadRange: Range<Int>?
    var callID: UInt64 = 0
    var kind = EnvelopeKind.unspecified
    // Set when the envelope is read by protoc-c whole: a method, metadata or a second status.
    var readWhole = false
    let parsed = body.withUnsafeReadableBytes { raw -> Bool in
      var reader = WireReader(raw)
      while !reader.atEnd {
        guard let (field, wireType) = reader.tag() else { return false }
        switch (field, wireType) {
        case (1, 0):
          guard let value = reader.varint() else { return false }
          callID = value
        case (2, 0):
          guard let value = reader.varint() else { return false }
          kind = EnvelopeKind(rawValue: Int32(truncatingIfNeeded: value))
        case (4, 0):
          guard reader.varint() != nil else { return false }
        case (3, 2), (5, 2):
          guard reader.lengthDelimited() != nil else { return false }
          readWhole = true
        case (6, 2):
          guard let range = reader.lengthDelimited() else { return false }
          payloadRange = range
        case (7, 2):
          guard let range = reader.lengthDelimited() else { return false }
          if statusRange != nil { readWhole = true }
          statusRange = range
        case (1...7, _):
          return false
        default:
          guard reader.skip(wireType: wireType) else { return false }
        }
      }
      return true
    }
    guard parsed else { throw failure }
    self.callID = callID
    self.kind = kind
    if let payloadRange {
      payload = body.getSlice(
        at: body.readerIndex + payloadRange.lowerBound, length: payloadRange.count)!
    }
    if readWhole {
      // What no server sends, read as the server's own decoder reads it: protoc-c merges a
      // repeated status and checks a method's and metadata's strings.
      do {
        status = try Envelope(serializedBytes: body).status
      } catch {
        throw failure
      }
    } else if let statusRange, statusRange.isEmpty {
      // `3A 00`, the OK status of every answer that succeeds.
      status = Status()
    } else if let statusRange {
      let bytes = body.getSlice(
        at: body.readerIndex + statusRange.lowerBound, length: statusRange.count)!
      do {
        status = try Status(serializedBytes: bytes)
      } catch {
        throw failure
      }
    }
  }
}

/// Reads protobuf wire format from memory, checking every length against what is left.
struct WireReader {
  private let bytes: UnsafeRawBufferPointer
  private(set) var offset = 0

  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  var atEnd: Bool { offset >= bytes.count }

  /// The next varint, or nil when it is cut off or longer than 10 bytes.
  mutating func varint() -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while offset < bytes.count, shift < 70 {
      let byte = bytes[offset]
      offset += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return value }
      shift += 7
    }
    return nil
  }

  /// The next field's number and wire type, read as protobuf-c reads them (the wire format the
  /// server's decoder accepts is the one the client's accepts): at most 5 bytes, the number
  /// kept to 32 bits, and a first byte that names field 0 refused.
  mutating func tag() -> (field: UInt32, wireType: UInt64)? {
    guard offset < bytes.count else { return nil }
    let first = bytes[offset]
    guard first & 0xF8 != 0 else { return nil }
    let wireType = UInt64(first & 7)
    var field = UInt32((first & 0x7F) >> 3)
    guard first & 0x80 != 0 else {
      offset += 1
      return (field, wireType)
    }
    var shift: UInt32 = 4
    for index in 1..<min(5, bytes.count - offset) {
      let byte = bytes[offset + index]
      field |= UInt32(byte & 0x7F) &<< shift
      if byte & 0x80 == 0 {
        offset += index + 1
        return (field, wireType)
      }
      shift += 7
    }
    return nil
  }

  /// The range of the next length-delimited field's contents, or nil when it is cut off. The
  /// length is read as protobuf-c reads it: at most 5 bytes, and refused above `Int32.max`.
  mutating func lengthDelimited() -> Range<Int>? {
    var length: UInt64 = 0
    var shift: UInt64 = 0
    var index = 0
    while true {
      guard index < 5, offset + index < bytes.count else { return nil }
      let byte = bytes[offset + index]
      length |= UInt64(byte & 0x7F) << shift
      index += 1
      if byte & 0x80 == 0 { break }
      shift += 7
    }
    offset += index
    guard length <= UInt64(Int32.max), Int(length) <= bytes.count - offset else { return nil }
    let range = offset..<(offset + Int(length))
    offset += Int(length)
    return range
  }

  /// Skips a field of `wireType`; false when it is cut off or a group (which proto3 has not).
  mutating func skip(wireType: UInt64) -> Bool {
    switch wireType {
    case 0: return varint() != nil
    case 1, 5:
      let size = wireType == 1 ? 8 : 4
      guard bytes.count - offset >= size else { return false }
      offset += size
      return true
    case 2: return lengthDelimited() != nil
    default: return false
    }
  }
}
