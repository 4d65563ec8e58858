import NIOCore

/// The client's frame decoder: frames are read and checked as `FrameDecoder` reads them, and each
/// envelope is read lean (`ReceivedEnvelope`): its payload stays a slice of the frame, which the
/// call's deserializer reads without a copy.
struct ClientFrameDecoder: ByteToMessageDecoder {
  typealias InboundOut = ReceivedEnvelope

  private let frames: FrameDecoder

  init(configuration: WireConfiguration) {
    frames = FrameDecoder(configuration: configuration)
  }

  private static func parse(_ body: ByteBuffer) -> Result<ReceivedEnvelope, ProtocolViolation> {
    do {
      return .success(try ReceivedEnvelope(reading: body))
    } catch {
      return .failure(.envelopeMalformed)
    }
  }

  mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws
    -> DecodingState
  {
    guard let envelope = try frames.decodeFrame(from: &buffer, parse: Self.parse) else {
      return .needMoreData
    }
    context.fireChannelRead(Self.wrapInboundOut(envelope))
    return .continue
  }

  mutating func decodeLast(
    context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
  ) throws -> DecodingState {
    try decode(context: context, buffer: &buffer)
  }
}
