import BadmintonRPC
import NIOCore
import NIOEmbedded
import NIOTestUtils
import PropertyBased
import Testing

@Suite("Frames")
struct FrameCodecTests {
  private let configuration = WireConfiguration(
    maximumBodySize: 64 * 1024, compressionThreshold: 256)

  private func frames(_ envelopes: [Envelope]) -> ByteBuffer {
    let encoder = FrameEncoder(configuration: configuration)
    var buffer = ByteBuffer()
    for envelope in envelopes { encoder.encode(envelope, into: &buffer) }
    return buffer
  }

  private static let sample: [Envelope] = [
    Envelope(callID: 1, kind: .request, method: "/badminton.rpc.v1.Health/Check"),
    Envelope(callID: 0, kind: .ping, payload: [1, 2, 3]),
    // Large and compressible: crosses the threshold and is sent as zstd.
    Envelope(callID: 2, kind: .response, payload: Array(repeating: 0x41, count: 5000), status: .ok),
    Envelope(),
    Envelope(
      callID: 3, kind: .streamEnd, status: Status(code: .notFound, message: "没有", reason: "X")),
  ]

  @Test("the decoder yields the same envelopes fed byte by byte, in chunks, and coalesced")
  func decoder_handlesAnySplit() throws {
    let pairs = Self.sample.map { envelope in (frames([envelope]), [envelope]) }
    try ByteToMessageDecoderVerifier.verifyDecoder(
      inputOutputPairs: pairs,
      decoderFactory: { FrameDecoder(configuration: configuration) })
  }

  @Test("random envelopes split at random points decode to themselves")
  func decoder_randomSplits() async throws {
    let batches = Generator { rng in
      (0..<Int.random(in: 1...6, using: &rng)).map { _ in MessageGen.envelope(&rng) }
    }
    await propertyCheck(count: 150, input: batches, Gen.int(in: 1...97)) { envelopes, chunk in
      let bytes = frames(envelopes)
      let channel = EmbeddedChannel(
        handler: ByteToMessageHandler(FrameDecoder(configuration: configuration)))
      var offset = 0
      var remaining = bytes
      while remaining.readableBytes > 0 {
        let size = min(remaining.readableBytes, (chunk * (offset + 7)) % 211 + 1)
        try channel.writeInbound(remaining.readSlice(length: size)!)
        offset += 1
      }
      var decoded: [Envelope] = []
      while let envelope = try channel.readInbound(as: Envelope.self) { decoded.append(envelope) }
      #expect(decoded == envelopes)
      _ = try channel.finish()
    }
  }

  private func violation(of bytes: [UInt8], configuration: WireConfiguration? = nil)
    -> ProtocolViolation?
  {
    let decoder = FrameDecoder(configuration: configuration ?? self.configuration)
    var buffer = ByteBuffer(bytes: bytes)
    do {
      while try decoder.decodeEnvelope(from: &buffer) != nil {}
      return nil
    } catch {
      return error
    }
  }

  @Test("reserved flag bits are a violation as soon as the flags byte arrives")
  func reservedFlags_areRefused() {
    for flags: UInt8 in [0x02, 0x04, 0x80, 0xFF, 0x03] {
      #expect(violation(of: [flags])?.rpcError.reason == "RESERVED_FLAGS_SET")
    }
  }

  @Test("a body over the limit is refused from the header, before any of it arrives")
  func oversizeBody_isRefusedFromHeader() {
    let limit = configuration.maximumBodySize
    let header: [UInt8] = [0, 0, 1, 0, 1]  // 65537 bytes announced, none sent
    let refused = violation(of: header)
    #expect(refused?.rpcError.reason == "FRAME_TOO_LARGE")
    #expect(refused?.rpcError.code == .resourceExhausted)
    // Exactly the limit is fine (it just waits for the body).
    let atLimit = UInt32(limit)
    #expect(
      violation(of: [
        0, UInt8(atLimit >> 24), UInt8(atLimit >> 16 & 0xFF), UInt8(atLimit >> 8 & 0xFF),
        UInt8(atLimit & 0xFF),
      ]) == nil)
  }

  @Test("a corrupt, truncated or padded zstd body is a violation")
  func corruptZstd_isRefused() {
    let good = RawFrames.zstdCompress(Array(repeating: 7, count: 3000))
    let garbage: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x01, 0x02, 0x03]
    for body in [garbage, Array(good.dropLast(3)), good + [0, 0, 0], [1, 2, 3], []] {
      #expect(
        violation(of: RawFrames.frame(body, flags: 1))?.rpcError.reason == "COMPRESSED_BODY_CORRUPT"
      )
    }
  }

  @Test("a zstd body that decompresses past the limit is refused without trusting its header")
  func zstdBomb_isRefused() {
    // 1 MiB of zeros compresses to a few dozen bytes; with a small window the decoder must
    // decompress until the limit to find out.
    let bomb = RawFrames.zstdCompress(Array(repeating: 0, count: 1 << 20), windowLog: 10)
    #expect(bomb.count < 8192)
    let refused = violation(of: RawFrames.frame(bomb, flags: 1))
    #expect(refused?.rpcError.reason == "DECOMPRESSED_BODY_TOO_LARGE")
    #expect(refused?.rpcError.code == .resourceExhausted)
    // The same with the window zstd picks for 1 MiB: refused before any memory is spent on it.
    let wide = RawFrames.zstdCompress(Array(repeating: 0, count: 1 << 20))
    #expect(
      violation(of: RawFrames.frame(wide, flags: 1))?.rpcError.reason
        == "COMPRESSION_WINDOW_TOO_LARGE")
    // Exactly the limit decompresses.
    let atLimit = RawFrames.zstdCompress(Array(repeating: 0, count: configuration.maximumBodySize))
    #expect(
      violation(of: RawFrames.frame(atLimit, flags: 1))?.rpcError.reason == "ENVELOPE_MALFORMED")
  }

  @Test("a body that is not an envelope is a violation")
  func malformedEnvelope_isRefused() {
    #expect(
      violation(of: RawFrames.frame([0x1A, 0x10, 0x41]))?.rpcError.reason == "ENVELOPE_MALFORMED")
    #expect(
      violation(of: RawFrames.frame(RawFrames.zstdCompress([0xFF, 0xFF]), flags: 1))?.rpcError
        .reason == "ENVELOPE_MALFORMED")
  }

  @Test("bodies are compressed only from the threshold and only when smaller")
  func encoder_compressesOnlyWhenItPays() throws {
    let encoder = FrameEncoder(configuration: configuration)
    func flags(_ envelope: Envelope) -> (UInt8, Int) {
      var buffer = ByteBuffer()
      encoder.encode(envelope, into: &buffer)
      return (
        buffer.getInteger(at: 0, as: UInt8.self)!, Int(buffer.getInteger(at: 1, as: UInt32.self)!)
      )
    }
    let small = Envelope(callID: 1, kind: .response, payload: Array(repeating: 0, count: 100))
    #expect(flags(small).0 == 0)
    let compressible = Envelope(
      callID: 1, kind: .response, payload: Array(repeating: 0, count: 5000))
    let (compressedFlags, compressedLength) = flags(compressible)
    #expect(compressedFlags == 1)
    #expect(compressedLength < 200)
    var rng = SystemRandomNumberGenerator()
    let noise = Envelope(
      callID: 1, kind: .response,
      payload: (0..<5000).map { _ in UInt8.random(in: 0...255, using: &rng) })
    let (noiseFlags, noiseLength) = flags(noise)
    #expect(noiseFlags == 0)
    #expect(noiseLength == noise.serializedSize)
  }

  @Test("one compressor and one decompressor serve many frames in a row")
  func zstdContexts_areReused() async throws {
    let decoder = FrameDecoder(configuration: configuration)
    let encoder = FrameEncoder(configuration: configuration)
    await propertyCheck(count: 100, input: Gen.int(in: 0...20_000), Gen.int(in: 0...3)) {
      size, pattern in
      let payload = (0..<size).map {
        UInt8(truncatingIfNeeded: pattern == 0 ? $0 * 31 : $0 / (pattern * 50 + 1))
      }
      let envelope = Envelope(callID: UInt64(size + 1), kind: .streamMessage, payload: payload)
      var buffer = ByteBuffer()
      encoder.encode(envelope, into: &buffer)
      let decoded = try decoder.decodeEnvelope(from: &buffer)
      #expect(decoded == envelope)
      #expect(buffer.readableBytes == 0)
    }
  }
}

@Suite("zstd")
struct ZstdTests {
  @Test("decompress(compress(x)) == x for any bytes")
  func roundTrip() async throws {
    let compressor = Zstd.Compressor(level: 3)
    let decompressor = Zstd.Decompressor(maximumOutput: 1 << 20)
    let inputs = Generator { rng in
      let length = Int.random(in: 1...50_000, using: &rng)
      let alphabet = UInt8.random(in: 1...255, using: &rng)
      return (0..<length).map { _ in UInt8.random(in: 0...alphabet, using: &rng) }
    }
    await propertyCheck(count: 60, input: inputs) { input in
      var compressed = ByteBuffer()
      _ = try input.withUnsafeBytes { try compressor.compress($0, appendingTo: &compressed) }
      let output = try compressed.withUnsafeReadableBytes {
        try decompressor.decompress($0, limit: 1 << 20, allocator: ByteBufferAllocator())
      }
      #expect(Array(buffer: output) == input)
    }
  }

  @Test("the output limit holds at the byte")
  func limit_isExact() throws {
    let decompressor = Zstd.Decompressor(maximumOutput: 10_000)
    let frame = RawFrames.zstdCompress(Array(repeating: 9, count: 10_000))
    let exact = try frame.withUnsafeBytes {
      try decompressor.decompress($0, limit: 10_000, allocator: ByteBufferAllocator())
    }
    #expect(exact.readableBytes == 10_000)
    #expect(throws: Zstd.Error.self) {
      try frame.withUnsafeBytes {
        try decompressor.decompress($0, limit: 9_999, allocator: ByteBufferAllocator())
      }
    }
    // The context is still good after a refusal.
    let again = try frame.withUnsafeBytes {
      try decompressor.decompress($0, limit: 10_000, allocator: ByteBufferAllocator())
    }
    #expect(again.readableBytes == 10_000)
  }
}
