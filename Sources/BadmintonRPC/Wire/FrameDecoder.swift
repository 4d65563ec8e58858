public import NIOCore

/// Turns bytes into envelopes: reads the 5-byte header, checks the flags and the announced
/// length before buffering the body, decompresses zstd bodies with a cap, and parses the
/// envelope. Any failure is a `ProtocolViolation`.
public struct FrameDecoder: ByteToMessageDecoder {
  public typealias InboundOut = Envelope

  private let configuration: WireConfiguration
  private let decompressor: Zstd.Decompressor

  /// A decoder for one connection.
  public init(configuration: WireConfiguration) {
    self.configuration = configuration
    self.decompressor = Zstd.Decompressor(maximumOutput: configuration.maximumBodySize)
  }

  /// The next envelope in `buffer`, or nil when its bytes have not all arrived.
  public func decodeEnvelope(from buffer: inout ByteBuffer) throws(ProtocolViolation) -> Envelope? {
    guard let flags = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
    guard flags & FrameFormat.reservedFlags == 0 else { throw .reservedFlags(flags) }
    guard let length = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt32.self) else {
      return nil
    }
    guard Int(length) <= configuration.maximumBodySize else {
      throw .frameTooLarge(length, limit: configuration.maximumBodySize)
    }
    guard buffer.readableBytes >= FrameFormat.headerSize + Int(length) else { return nil }
    buffer.moveReaderIndex(forwardBy: FrameFormat.headerSize)
    let body = buffer.readSlice(length: Int(length))!

    let decoded: Result<Envelope, ProtocolViolation>
    if flags & FrameFormat.compressedFlag != 0 {
      let plain: ByteBuffer
      do {
        plain = try body.withUnsafeReadableBytes { (raw) throws(Zstd.Error) -> ByteBuffer in
          try decompressor.decompress(
            raw, limit: configuration.maximumBodySize, allocator: ByteBufferAllocator())
        }
      } catch {
        switch error.kind {
        case .tooLarge: throw .decompressedTooLarge(limit: configuration.maximumBodySize)
        case .windowTooLarge: throw .compressionWindowTooLarge(limit: configuration.maximumBodySize)
        case .corrupt, .compressionFailed: throw .compressionCorrupt(error.detail)
        }
      }
      decoded = Self.parse(plain)
    } else {
      decoded = Self.parse(body)
    }
    return try decoded.get()
  }

  private static func parse(_ body: ByteBuffer) -> Result<Envelope, ProtocolViolation> {
    body.withUnsafeReadableBytes { raw in
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
    guard let envelope = try decodeEnvelope(from: &buffer) else { return .needMoreData }
    context.fireChannelRead(Self.wrapInboundOut(envelope))
    return .continue
  }

  public mutating func decodeLast(
    context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
  ) throws -> DecodingState {
    // Frames that arrived whole are still delivered; a frame cut off by the close is dropped.
    try decode(context: context, buffer: &buffer)
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

  /// Appends `envelope` as one frame to `buffer`.
  public func encode(_ envelope: Envelope, into buffer: inout ByteBuffer) {
    envelope.withCMessagePointer { message in
      let size = cbadmintonPackedSize(message)
      if size >= configuration.compressionThreshold {
        let plain = [UInt8](unsafeUninitializedCapacity: size) { bytes, count in
          count = cbadmintonPack(message, into: bytes.baseAddress!)
        }
        let headerIndex = buffer.writerIndex
        buffer.writeInteger(FrameFormat.compressedFlag)
        buffer.writeInteger(UInt32(0))
        let compressedSize = plain.withUnsafeBytes { raw in
          try? compressor.compress(raw, appendingTo: &buffer)
        }
        if let compressedSize, compressedSize < size {
          buffer.setInteger(UInt32(compressedSize), at: headerIndex + 1)
          return
        }
        // Not smaller (or the compressor failed): send it plain.
        buffer.moveWriterIndex(to: headerIndex)
        buffer.writeInteger(UInt8(0))
        buffer.writeInteger(UInt32(size))
        buffer.writeBytes(plain)
      } else {
        buffer.writeInteger(UInt8(0))
        buffer.writeInteger(UInt32(size))
        if size > 0 {
          buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { out in
            cbadmintonPack(message, into: out.baseAddress!.assumingMemoryBound(to: UInt8.self))
          }
        }
      }
    }
  }

  public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?)
  {
    let envelope = unwrapOutboundIn(data)
    var buffer = context.channel.allocator.buffer(capacity: FrameFormat.headerSize + 64)
    encode(envelope, into: &buffer)
    context.write(wrapOutboundOut(buffer), promise: promise)
  }
}
