public import NIOCore

/// Writes an envelope's protobuf encoding around a payload that is already encoded: the
/// envelope's other fields first, then the payload field's tag, length and bytes, then the
/// status. The bytes are those protoc-c packs for the same envelope (fields in number order,
/// defaults left out, strings cut at their first U+0000 as protobuf-c cuts them), but the
/// payload is copied once, never packed a second time.
public enum EnvelopeWriter {
  /// The fields an envelope carries beside its payload.
  public struct Fields: Sendable {
    /// The call; 0 for connection-level envelopes.
    public var callID: UInt64
    /// What the envelope is.
    public var kind: EnvelopeKind
    /// REQUEST only: the method path.
    public var method: String
    /// REQUEST only: milliseconds until the call's deadline; 0 = none.
    public var timeout: UInt32
    /// REQUEST only: metadata entries.
    public var metadata: [Metadata]
    /// RESPONSE, STREAM_END and GOAWAY: the status; nil when absent.
    public var status: Status?

    /// Fields with the given values.
    public init(
      callID: UInt64, kind: EnvelopeKind, method: String = "", timeout: UInt32 = 0,
      metadata: [Metadata] = [], status: Status? = nil
    ) {
      self.callID = callID
      self.kind = kind
      self.method = method
      self.timeout = timeout
      self.metadata = metadata
      self.status = status
    }
  }

  /// Appends the encoding of the envelope with `fields` and `payload` (its readable bytes) to
  /// `buffer`; returns the bytes written.
  @discardableResult
  public static func write(
    _ fields: Fields, payload: ByteBuffer, into buffer: inout ByteBuffer
  ) -> Int {
    payload.withUnsafeReadableBytes { write(fields, payload: $0, into: &buffer) }
  }

  /// Appends the encoding of the envelope with `fields` and `payload` to `buffer`; returns the
  /// bytes written.
  @discardableResult
  public static func write(
    _ fields: Fields, payload: UnsafeRawBufferPointer, into buffer: inout ByteBuffer
  ) -> Int {
    guard let status = fields.status else {
      return write(fields, payload: payload, status: nil, into: &buffer)
    }
    // An OK status with nothing else, on every answer that succeeds: its encoding is empty.
    if status == Status() {
      return write(fields, payload: payload, status: (nil, 0), into: &buffer)
    }
    return status.withCMessagePointer { pointer in
      write(
        fields, payload: payload, status: (pointer, cbadmintonPackedSize(pointer)), into: &buffer)
    }
  }

  private static func write(
    _ fields: Fields, payload: UnsafeRawBufferPointer,
    status: (pointer: UnsafeRawPointer?, size: Int)?, into buffer: inout ByteBuffer
  ) -> Int {
    var method = fields.method
    return method.withUTF8 { methodUTF8 in
      let method = UnsafeRawBufferPointer(methodUTF8).prefix { $0 != 0 }
      let kind = UInt64(bitPattern: Int64(fields.kind.rawValue))
      var size = 0
      if fields.callID != 0 { size += 1 + Varint.size(fields.callID) }
      if kind != 0 { size += 1 + Varint.size(kind) }
      if !method.isEmpty { size += Varint.fieldSize(method.count) }
      if fields.timeout != 0 { size += 1 + Varint.size(UInt64(fields.timeout)) }
      for entry in fields.metadata { size += Varint.fieldSize(entry.encodedSize) }
      if payload.count > 0 { size += Varint.fieldSize(payload.count) }
      if let status { size += Varint.fieldSize(status.size) }

      buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { out in
        var writer = Varint.Writer(out)
        if fields.callID != 0 {
          writer.byte(0x08)
          writer.varint(fields.callID)
        }
        if kind != 0 {
          writer.byte(0x10)
          writer.varint(kind)
        }
        if !method.isEmpty { writer.field(0x1A, UnsafeRawBufferPointer(rebasing: method)) }
        if fields.timeout != 0 {
          writer.byte(0x20)
          writer.varint(UInt64(fields.timeout))
        }
        for entry in fields.metadata { entry.write(into: &writer) }
        if payload.count > 0 { writer.field(0x32, payload) }
        if let status {
          writer.byte(0x3A)
          writer.varint(UInt64(status.size))
          if status.size > 0, let pointer = status.pointer {
            _ = cbadmintonPack(
              pointer,
              into: (out.baseAddress! + writer.offset).assumingMemoryBound(to: UInt8.self))
            writer.offset += status.size
          }
        }
        assert(writer.offset == size)
        return size
      }
      return size
    }
  }
}

extension Metadata {
  /// The size of this entry's encoding, without its tag and length.
  fileprivate var encodedSize: Int {
    var size = 0
    let key = Self.cut(key.utf8)
    let value = Self.cut(value.utf8)
    if key > 0 { size += Varint.fieldSize(key) }
    if value > 0 { size += Varint.fieldSize(value) }
    return size
  }

  /// The bytes protobuf-c keeps of a string: those before its first U+0000.
  private static func cut(_ utf8: String.UTF8View) -> Int {
    utf8.firstIndex(of: 0).map { utf8.distance(from: utf8.startIndex, to: $0) } ?? utf8.count
  }

  /// Writes this entry as field 5 of an envelope.
  fileprivate func write(into writer: inout Varint.Writer) {
    writer.byte(0x2A)
    writer.varint(UInt64(encodedSize))
    var key = key
    var value = value
    key.withUTF8 { utf8 in
      let bytes = UnsafeRawBufferPointer(utf8).prefix { $0 != 0 }
      if !bytes.isEmpty { writer.field(0x0A, UnsafeRawBufferPointer(rebasing: bytes)) }
    }
    value.withUTF8 { utf8 in
      let bytes = UnsafeRawBufferPointer(utf8).prefix { $0 != 0 }
      if !bytes.isEmpty { writer.field(0x12, UnsafeRawBufferPointer(rebasing: bytes)) }
    }
  }
}

/// Protobuf varints: their sizes, and a writer into memory sized beforehand.
enum Varint {
  /// The bytes `value` takes as a varint.
  static func size(_ value: UInt64) -> Int {
    // 1 byte per 7 bits, at least 1.
    (64 - (value | 1).leadingZeroBitCount + 6) / 7
  }

  /// The bytes a length-delimited field of `length` bytes takes: tag, length and contents.
  static func fieldSize(_ length: Int) -> Int {
    1 + size(UInt64(length)) + length
  }

  /// Writes into memory that holds exactly what is written.
  struct Writer {
    let out: UnsafeMutableRawBufferPointer
    var offset = 0

    init(_ out: UnsafeMutableRawBufferPointer) { self.out = out }

    mutating func byte(_ value: UInt8) {
      out[offset] = value
      offset += 1
    }

    mutating func varint(_ value: UInt64) {
      var value = value
      while value >= 0x80 {
        byte(UInt8(truncatingIfNeeded: value) | 0x80)
        value >>= 7
      }
      byte(UInt8(value))
    }

    /// A length-delimited field: its one-byte tag, the length and the bytes.
    mutating func field(_ tag: UInt8, _ bytes: UnsafeRawBufferPointer) {
      byte(tag)
      varint(UInt64(bytes.count))
      if let base = bytes.baseAddress {
        (out.baseAddress! + offset).copyMemory(from: base, byteCount: bytes.count)
      }
      offset += bytes.count
    }
  }
}
