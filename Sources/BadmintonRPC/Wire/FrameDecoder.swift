public import NIOCore

/// Turns bytes into envelopes: reads the 5-byte header, checks the flags and the announced
/// length before buffering the body, decompresses zstd bodies with a cap, and parses the
/// envelope. Any failure is a `ProtocolViolation`.
///
/// With a memory budget, a frame over `WireConfiguration.unchargedFrameBytes` (header included) is
/// charged to it as soon as its header announces the length, at the capacity its buffer grows to,
/// before the body is buffered; a compressed body is charged for its output and its zstd
/// context before it is decompressed. Both are given back when the frame is parsed or the
/// connection goes away. With a frame timeout, a frame whose first byte has arrived must
/// arrive whole within it. On a server connection, a frame whose body is over
/// `LargeFrameSlots.bodyThreshold` first waits, unread, for one of the server's large-frame
/// slots.
public struct FrameDecoder: ByteToMessageDecoder {
  public typealias InboundOut = Envelope

  /// What the decoder holds between calls: the bytes charged to the budget for the frame in
  /// progress, and its timer.
  private final class Progress {
    var charged = 0
    var timer: Scheduled<Void>?
  }

  private let configuration: WireConfiguration
  private let decompressor: Zstd.Decompressor
  private let budget: RequestMemoryBudget?
  private let frameTimeout: TimeAmount?
  private let trust: ConnectionTrust?
  private let progress = Progress()
  /// With a gate, a frame whose body is over `LargeFrameSlots.bodyThreshold` waits for a
  /// server-wide slot before its body is read.
  private var gate: LargeFrameGate?

  /// A decoder for one connection; with a `budget`, large frames are charged to it, with a
  /// `frameTimeout`, a frame that takes longer to arrive is a violation, and with a `trust`,
  /// a frame over `WireConfiguration.unchargedFrameBytes` (header included, a compressed body
  /// counted at its decompressed size) is a violation until a call on the connection has
  /// passed authentication.
  public init(
    configuration: WireConfiguration, budget: RequestMemoryBudget? = nil,
    frameTimeout: TimeAmount? = nil, trust: ConnectionTrust? = nil
  ) {
    self.trust = trust
    self.configuration = configuration
    self.decompressor = Zstd.Decompressor(maximumOutput: configuration.maximumBodySize)
    self.budget = budget
    self.frameTimeout = frameTimeout
  }

  /// A decoder as above whose large frames each wait for one of the server's slots, through
  /// `gate`, before their bodies are read.
  init(
    configuration: WireConfiguration, budget: RequestMemoryBudget?, frameTimeout: TimeAmount?,
    trust: ConnectionTrust?, gate: LargeFrameGate?
  ) {
    self.init(
      configuration: configuration, budget: budget, frameTimeout: frameTimeout, trust: trust)
    self.gate = gate
  }

  /// The bytes charged to the budget for the frame in progress.
  public var chargedBytes: Int { progress.charged }

  /// The memory a buffer holding `bytes` grows to: NIO grows buffers to powers of two.
  static func bufferCapacity(for bytes: Int) -> Int {
    var capacity = 1
    while capacity < bytes { capacity <<= 1 }
    return capacity
  }

  /// The next envelope in `buffer`, or nil when its bytes have not all arrived.
  public func decodeEnvelope(from buffer: inout ByteBuffer) throws(ProtocolViolation) -> Envelope? {
    try decodeFrame(from: &buffer, parse: Self.parse)
  }

  /// The next frame in `buffer`, its body (decompressed) read by `parse`, or nil when its bytes
  /// have not all arrived. What the frame was charged is given back once `parse` has returned.
  func decodeFrame<Parsed>(
    from buffer: inout ByteBuffer, parse: (ByteBuffer) -> Result<Parsed, ProtocolViolation>
  ) throws(ProtocolViolation) -> Parsed? {
    guard let flags = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
    guard flags & FrameFormat.reservedFlags == 0 else { throw .reservedFlags(flags) }
    guard let length = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt32.self) else {
      return nil
    }
    guard Int(length) <= configuration.maximumBodySize else {
      throw .frameTooLarge(length, limit: configuration.maximumBodySize)
    }
    if let trust, !trust.sessionAuthenticated,
      Int(length) > WireConfiguration.unchargedBodyBytes
    {
      throw .frameNeedsSession(length, limit: WireConfiguration.unchargedBodyBytes)
    }
    // Before any of the body is read or charged: a large body waits for a slot, unread.
    if let gate, !gate.admit(bodyLength: Int(length)) { return nil }
    if let budget, progress.charged == 0, Int(length) > WireConfiguration.unchargedBodyBytes {
      let capacity = Self.bufferCapacity(for: FrameFormat.headerSize + Int(length))
      guard budget.reserve(capacity) else { throw .serverBusy(bytes: capacity) }
      progress.charged = capacity
    }
    guard buffer.readableBytes >= FrameFormat.headerSize + Int(length) else { return nil }
    buffer.moveReaderIndex(forwardBy: FrameFormat.headerSize)
    let body = buffer.readSlice(length: Int(length))!
    defer { releaseFrame() }

    let decoded: Result<Parsed, ProtocolViolation>
    if flags & FrameFormat.compressedFlag != 0 {
      var charged = 0
      defer { budget?.release(charged) }
      let plain: ByteBuffer
      do {
        let size = try body.withUnsafeReadableBytes { (raw) throws(Zstd.Error) -> Int in
          try decompressor.contentSize(of: raw, limit: configuration.maximumBodySize)
        }
        // A body counts at its decompressed size: without a session it must be one that could
        // have been sent plain.
        if let trust, !trust.sessionAuthenticated, size > WireConfiguration.unchargedBodyBytes {
          throw ProtocolViolation.frameNeedsSession(
            UInt32(size), limit: WireConfiguration.unchargedBodyBytes)
        }
        if let budget {
          // The output buffer's real capacity, and the context that fills it.
          let cost = Self.bufferCapacity(for: size) + Zstd.Decompressor.contextSize
          guard budget.reserve(cost) else { throw ProtocolViolation.serverBusy(bytes: cost) }
          charged = cost
        }
        plain = try body.withUnsafeReadableBytes { (raw) throws(Zstd.Error) -> ByteBuffer in
          try decompressor.decompress(raw, contentSize: size, allocator: ByteBufferAllocator())
        }
      } catch let error as ProtocolViolation {
        throw error
      } catch let error as Zstd.Error {
        switch error.kind {
        case .tooLarge: throw .decompressedTooLarge(limit: configuration.maximumBodySize)
        case .windowTooLarge: throw .compressionWindowTooLarge(limit: configuration.maximumBodySize)
        case .contentSizeUnknown: throw .compressedSizeUnstated
        case .corrupt, .compressionFailed: throw .compressionCorrupt(error.detail)
        }
      } catch {
        throw .compressionCorrupt("\(error)")
      }
      decoded = parse(plain)
    } else {
      decoded = parse(body)
    }
    return try decoded.get()
  }

  /// Gives back what the frame in progress was charged.
  private func releaseFrame() {
    gate?.frameDecoded()
    progress.timer?.cancel()
    progress.timer = nil
    if progress.charged > 0 {
      budget?.release(progress.charged)
      progress.charged = 0
    }
  }

  /// The envelope in `body`. Its metadata entries are counted on the wire first: protobuf-c
  /// allocates for every entry, and a few bytes of zstd can hold millions of empty ones.
  private static func parse(_ body: ByteBuffer) -> Result<Envelope, ProtocolViolation> {
    body.withUnsafeReadableBytes { raw in
      let metadata = StringFieldScan.count(field: Envelope.metadataFieldNumber, in: raw)
      guard metadata.entries <= FrameFormat.maximumMetadataEntries else {
        return .failure(.metadataTooLarge(entries: metadata.entries, bytes: metadata.valueBytes))
      }
      do {
        return .success(try Envelope(serializedBytes: raw))
      } catch {
        return .failure(.envelopeMalformed)
      }
    }
  }

  public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws
    -> DecodingState
  {
    // A slot the envelope holds and the connection handler did not take is given back.
    defer { gate?.endDelivery() }
    guard let envelope = try decodeEnvelope(from: &buffer) else {
      if let gate, gate.isWaiting {
        // Waiting for a slot is the server's doing: the frame's time starts once it has one.
        progress.timer?.cancel()
        progress.timer = nil
        return .needMoreData
      }
      if let frameTimeout, progress.timer == nil, buffer.readableBytes > 0 {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let seconds = max(1, frameTimeout.nanoseconds / 1_000_000_000)
        progress.timer = context.eventLoop.scheduleTask(in: frameTimeout) {
          bound.value.fireErrorCaught(ProtocolViolation.frameTimeout(seconds: seconds))
        }
      }
      return .needMoreData
    }
    context.fireChannelRead(Self.wrapInboundOut(envelope))
    return .continue
  }

  public mutating func decodeLast(
    context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
  ) throws -> DecodingState {
    defer { gate?.endDelivery() }
    // Frames that arrived whole are still delivered; a frame cut off by the close is dropped.
    guard let envelope = try decodeEnvelope(from: &buffer) else {
      releaseFrame()
      return .needMoreData
    }
    context.fireChannelRead(Self.wrapInboundOut(envelope))
    return .continue
  }

  public mutating func decoderRemoved(context: ChannelHandlerContext) {
    releaseFrame()
    gate?.endDelivery()
  }
}

/// Turns envelopes into frames: encodes through protoc-c, and compresses with a reused zstd
/// context when the body reaches the threshold and compression makes it smaller.
public final class FrameEncoder: ChannelOutboundHandler {
  public typealias OutboundIn = Envelope
  public typealias OutboundOut = ByteBuffer

  private let configuration: WireConfiguration
  private let compressor: Zstd.Compressor

  /// An encoder for one connection.
  public init(configuration: WireConfiguration) {
    self.configuration = configuration
    self.compressor = Zstd.Compressor(level: configuration.compressionLevel)
  }

  /// Appends `envelope` as one frame to `buffer`, written by `EnvelopeWriter` (the bytes protoc-c
  /// would pack, with the payload copied once), and compressed with the reused zstd context when
  /// the body reaches the threshold and compression makes it smaller.
  public func encode(_ envelope: Envelope, into buffer: inout ByteBuffer) {
    let fields = EnvelopeWriter.Fields(
      callID: envelope.callID, kind: envelope.kind, method: envelope.method,
      timeout: envelope.timeoutMs, metadata: envelope.metadata, status: envelope.status)
    envelope.payload.withUnsafeBytes { encode(fields, payload: $0, into: &buffer) }
  }

  /// Appends the envelope with `fields` around `payload`, an encoded message, as one frame to
  /// `buffer`: the payload is copied into the frame, not packed again (`EnvelopeWriter`), and the
  /// body is compressed as `encode(_:into:)` compresses it.
  public func encode(
    _ fields: EnvelopeWriter.Fields, payload: UnsafeRawBufferPointer, into buffer: inout ByteBuffer
  ) {
    let headerIndex = buffer.writerIndex
    buffer.writeInteger(UInt8(0))
    buffer.writeInteger(UInt32(0))
    let size = EnvelopeWriter.write(fields, payload: payload, into: &buffer)
    buffer.setInteger(UInt32(size), at: headerIndex + 1)
    guard size >= configuration.compressionThreshold else { return }
    let bodyIndex = headerIndex + FrameFormat.headerSize
    var compressed = ByteBuffer()
    let compressedSize = buffer.withUnsafeReadableBytes { readable in
      let body = UnsafeRawBufferPointer(
        rebasing: readable[
          (bodyIndex - buffer.readerIndex)..<(bodyIndex - buffer.readerIndex + size)])
      return try? compressor.compress(body, appendingTo: &compressed)
    }
    guard let compressedSize, compressedSize < size else { return }
    buffer.moveWriterIndex(to: bodyIndex)
    buffer.writeBuffer(&compressed)
    buffer.setInteger(FrameFormat.compressedFlag, at: headerIndex)
    buffer.setInteger(UInt32(compressedSize), at: headerIndex + 1)
  }

  /// Appends the envelope with `fields` around `payload`'s readable bytes as one frame to
  /// `buffer` (see `encode(_:payload:into:)`).
  public func encode(
    _ fields: EnvelopeWriter.Fields, payload: ByteBuffer, into buffer: inout ByteBuffer
  ) {
    payload.withUnsafeReadableBytes { encode(fields, payload: $0, into: &buffer) }
  }

  public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?)
  {
    let envelope = unwrapOutboundIn(data)
    var buffer = context.channel.allocator.buffer(capacity: FrameFormat.headerSize + 64)
    encode(envelope, into: &buffer)
    context.write(wrapOutboundOut(buffer), promise: promise)
  }
}
