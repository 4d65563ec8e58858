import BadmintonRPC
import NIOCore
import PropertyBased
import Testing

@Suite("Envelopes written around an encoded payload")
struct EnvelopeWriterTests {
  /// Random envelopes, with what the shared generator leaves out: kinds below zero, and strings
  /// holding U+0000, which protobuf-c cuts.
  private static let envelopes = Generator { rng in
    var envelope = MessageGen.envelope(&rng)
    if Int.random(in: 0..<8, using: &rng) == 0 {
      envelope.kind = EnvelopeKind(rawValue: -Int32.random(in: 1...Int32.max, using: &rng))
    }
    if Int.random(in: 0..<8, using: &rng) == 0 {
      envelope.method += "\u{0}" + MessageGen.string(&rng, maxLength: 5)
    }
    if Int.random(in: 0..<8, using: &rng) == 0, !envelope.metadata.isEmpty {
      envelope.metadata[0].value = "\u{0}" + envelope.metadata[0].value
    }
    return envelope
  }

  private static func fields(_ envelope: Envelope) -> EnvelopeWriter.Fields {
    EnvelopeWriter.Fields(
      callID: envelope.callID, kind: envelope.kind, method: envelope.method,
      timeout: envelope.timeoutMs, metadata: envelope.metadata, status: envelope.status)
  }

  @Test("the bytes written are protoc-c's packing of the same envelope, and decode to it")
  func writtenBytes_matchProtocC() async throws {
    await propertyCheck(count: 500, input: Self.envelopes) { envelope in
      var buffer = ByteBuffer(bytes: [1, 2, 3])
      let written = EnvelopeWriter.write(
        Self.fields(envelope), payload: ByteBuffer(bytes: envelope.payload), into: &buffer)
      #expect(buffer.readableBytes == 3 + written)
      buffer.moveReaderIndex(forwardBy: 3)
      let packed = envelope.serializedBytes()
      #expect(Array(buffer.readableBytesView) == packed)
      let decoded = try? Envelope(serializedBytes: buffer)
      #expect(decoded != nil)
      #expect(decoded == (try? Envelope(serializedBytes: packed)))
    }
  }

  @Test("a frame written around a payload reads back as the envelope, compressed or not")
  func leanFrame_readsBack() async throws {
    await propertyCheck(count: 200, input: Self.envelopes, Gen.int(in: 0...3)) {
      envelope, repeats in
      var envelope = envelope
      // Payloads of up to 20 KiB that repeat, so that many frames are compressed.
      for _ in 0..<repeats { envelope.payload += envelope.payload + envelope.payload }
      let encoder = FrameEncoder(configuration: WireConfiguration())
      var frame = ByteBuffer()
      encoder.encode(
        Self.fields(envelope), payload: ByteBuffer(bytes: envelope.payload), into: &frame)
      var reference = ByteBuffer()
      encoder.encode(envelope, into: &reference)
      #expect(frame == reference)
      let decoder = FrameDecoder(configuration: WireConfiguration())
      let decoded = try? decoder.decodeEnvelope(from: &frame)
      #expect(decoded == (try? Envelope(serializedBytes: envelope.serializedBytes())))
      #expect(frame.readableBytes == 0)
    }
  }

  @Test("a received envelope reads the call, kind, payload and status protoc-c reads")
  func receivedEnvelope_matchesProtocC() async throws {
    await propertyCheck(count: 500, input: MessageGen.envelopes) { envelope in
      let bytes = ByteBuffer(bytes: envelope.serializedBytes())
      let received = try? ReceivedEnvelope(reading: bytes)
      #expect(received?.callID == envelope.callID)
      #expect(received?.kind == envelope.kind)
      #expect(received.map { Array($0.payload.readableBytesView) } == envelope.payload)
      #expect(received?.status == envelope.status)
    }
  }

  @Test("a received envelope skips unknown fields and keeps the last of a repeated one")
  func receivedEnvelope_followsProto3() throws {
    // call_id 1, an unknown varint (field 9), an unknown fixed64 (10), call_id 2, an unknown
    // fixed32 (11), payload 08 01, an unknown bytes field (12).
    let bytes: [UInt8] =
      [0x08, 0x01, 0x48, 0x96, 0x01, 0x51] + [UInt8](repeating: 7, count: 8)
      + [0x08, 0x02, 0x5D, 1, 2, 3, 4, 0x32, 0x02, 0x08, 0x01, 0x62, 0x01, 0xAA]
    let received = try ReceivedEnvelope(reading: ByteBuffer(bytes: bytes))
    #expect(received.callID == 2)
    #expect(Array(received.payload.readableBytesView) == [0x08, 0x01])
    #expect(received.status == nil)
    let reference = try Envelope(serializedBytes: bytes)
    #expect(reference.callID == 2)
  }

  @Test("a status that appears more than once merges as the server's protoc-c decoder merges it")
  func receivedEnvelope_mergesStatus() throws {
    // status {code: NOT_FOUND}, then status {reason: "X"}, then status {message: "m"}.
    let bytes: [UInt8] = [
      0x10, 0x02, 0x3A, 0x02, 0x08, 0x05, 0x3A, 0x03, 0x1A, 0x01, 0x58, 0x3A, 0x03, 0x12, 0x01,
      0x6D,
    ]
    let received = try ReceivedEnvelope(reading: ByteBuffer(bytes: bytes))
    let reference = try Envelope(serializedBytes: bytes)
    #expect(received.status == reference.status)
    #expect(received.status?.reason == "X")
    #expect(received.status?.message == "m")
  }

  @Test(
    "odd encodings: what protoc-c reads the client's reader reads the same, what it refuses is refused"
  )
  func receivedEnvelope_readsWhatProtocCReads() throws {
    let odd: [[UInt8]] = [
      [0x80, 0x00, 0x00],  // field 0 in a two-byte tag: protobuf-c skips it
      [0x32, 0x80, 0x80, 0x80, 0x80, 0x10],  // a payload length of 2^32: refused
      [0x08, 0x01, 0x32, 0x81, 0x80, 0x80, 0x80, 0x10, 0xAA],  // 2^32 + 1: refused, not 1
      [0x3A, 0x82, 0x80, 0x80, 0x80, 0x10, 0x08, 0x05],  // a status length of 2^32 + 2
      [0x4A, 0x80, 0x80, 0x80, 0x80, 0x10],  // an unknown field of length 2^32
      [0x2A, 0x02, 0x0A, 0x05],  // metadata whose key is cut off: refused
      [0x1A, 0x02, 0x61, 0x00],  // a method holding U+0000: refused
      [0x1A, 0x01, 0x61, 0x2A, 0x02, 0x0A, 0x00, 0x3A, 0x02, 0x08, 0x05],  // method, metadata
      [0x3A, 0x02, 0x08, 0x05, 0x3A, 0x02, 0x12, 0x00],  // a status twice
      [0x88, 0x80, 0x80, 0x80, 0x00, 0x07],  // call_id in a five-byte tag
      [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],  // 10-byte call_id
      [0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],  // kind -1
      [0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 0x01],  // the largest field number, unknown
    ]
    // The first is the fuzz target's finding: protobuf-c reads it.
    #expect((try? Envelope(serializedBytes: odd[0])) != nil)
    // Both kinds are here: encodings protoc-c reads and encodings it refuses.
    #expect(odd.filter { (try? Envelope(serializedBytes: $0)) == nil }.count >= 5)
    #expect(odd.filter { (try? Envelope(serializedBytes: $0)) != nil }.count >= 5)
    for bytes in odd {
      guard let reference = try? Envelope(serializedBytes: bytes) else {
        #expect((try? ReceivedEnvelope(reading: ByteBuffer(bytes: bytes))) == nil, "\(bytes)")
        continue
      }
      let received = try ReceivedEnvelope(reading: ByteBuffer(bytes: bytes))
      #expect(received.callID == reference.callID)
      #expect(received.kind == reference.kind)
      #expect(Array(received.payload.readableBytesView) == reference.payload)
      #expect(received.status == reference.status)
    }
  }

  @Test("bytes protoc-c refuses as an envelope are refused")
  func receivedEnvelope_refusesMalformed() {
    let malformed: [[UInt8]] = [
      [0x08],  // a cut varint
      [0x32, 0x05, 0x01],  // a length past the end
      [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01],  // a varint over 10 bytes
      [0x0A, 0x00],  // call_id with the wrong wire type
      [0x00, 0x00],  // field 0
      [0x3A, 0x01, 0x08],  // a status whose field is cut short
      [0x5B, 0x5C],  // a group
    ]
    for bytes in malformed {
      #expect(throws: MessageDecodingError.self) {
        _ = try ReceivedEnvelope(reading: ByteBuffer(bytes: bytes))
      }
      #expect(throws: MessageDecodingError.self) { _ = try Envelope(serializedBytes: bytes) }
    }
  }
}
