import BadmintonRPC
import CZstd
import NIOCore
import NIOPosix
import Synchronization

/// A plain TCP connection that sends exact bytes and reads frames with a parser of its own,
/// written from the protocol document rather than from the server's decoder.
final class RawConnection: Sendable {
  private let channel: any Channel
  private let received: ReceivedBytes

  private init(channel: any Channel, received: ReceivedBytes) {
    self.channel = channel
    self.received = received
  }

  static func connect(port: Int) async throws -> RawConnection {
    let received = ReceivedBytes()
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(Collector(received: received))
        }
      }
      .connect(host: "127.0.0.1", port: port).get()
    return RawConnection(channel: channel, received: received)
  }

  func send(_ bytes: [UInt8]) async throws {
    try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
  }

  /// Sends `envelope` in one frame, compressed with zstd when `compressed`.
  func send(_ envelope: Envelope, compressed: Bool = false) async throws {
    try await send(RawFrames.frame(envelope.serializedBytes(), compressed: compressed))
  }

  /// The next frame's flags and envelope, or nil when the server closed the connection first.
  /// `timeout` only bounds a failure: a frame that comes ends the wait.
  func readFrame(timeout: Duration = hangBound) async throws -> (
    flags: UInt8, envelope: Envelope
  )? {
    let end = ContinuousClock.now + timeout
    while true {
      let seen = received.changes.version
      let (frame, eof) = try received.state.withLock { state in
        (try RawFrames.parse(&state.buffer), state.eof)
      }
      if let frame { return frame }
      if eof { return nil }
      guard ContinuousClock.now < end else { throw RawConnectionTimeout() }
      try Task.checkCancellation()
      // Woken by the next bytes or the close.
      await received.changes.changed(after: seen, before: end)
    }
  }

  /// The next envelope.
  func readEnvelope(timeout: Duration = hangBound) async throws -> Envelope? {
    try await readFrame(timeout: timeout)?.envelope
  }

  /// Reads until the server closes the connection; returns the envelopes seen on the way.
  func readUntilClosed(timeout: Duration = hangBound) async throws -> [Envelope] {
    var seen: [Envelope] = []
    while let frame = try await readFrame(timeout: timeout) { seen.append(frame.envelope) }
    return seen
  }

  /// True once the server closed the connection.
  var isClosedByPeer: Bool { received.state.withLock { $0.eof } }

  func close() async {
    try? await channel.close()
  }
}

/// Bytes received so far and whether the peer closed.
final class ReceivedBytes: Sendable {
  struct State {
    var buffer = ByteBuffer()
    var eof = false
  }
  let state = Mutex(State())
  /// Signalled when bytes arrive and when the peer closes.
  let changes = ChangeSignal()
}

private final class Collector: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  let received: ReceivedBytes

  init(received: ReceivedBytes) { self.received = received }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var chunk = unwrapInboundIn(data)
    received.state.withLock { _ = $0.buffer.writeBuffer(&chunk) }
    received.changes.signal()
  }

  func channelInactive(context: ChannelHandlerContext) {
    received.state.withLock { $0.eof = true }
    received.changes.signal()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}

struct RawConnectionTimeout: Error {}

/// Frame building and parsing straight from the protocol document.
enum RawFrames {
  static func frame(_ body: [UInt8], compressed: Bool = false, flags: UInt8? = nil) -> [UInt8] {
    let wireBody = compressed ? zstdCompress(body) : body
    let flagByte = flags ?? (compressed ? 1 : 0)
    let length = UInt32(wireBody.count)
    return [
      flagByte, UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF),
      UInt8(length & 0xFF),
    ]
      + wireBody
  }

  static func parse(_ buffer: inout ByteBuffer) throws -> (flags: UInt8, envelope: Envelope)? {
    guard buffer.readableBytes >= 5 else { return nil }
    let bytes = buffer.getBytes(at: buffer.readerIndex, length: 5)!
    let length = Int(bytes[1]) << 24 | Int(bytes[2]) << 16 | Int(bytes[3]) << 8 | Int(bytes[4])
    guard buffer.readableBytes >= 5 + length else { return nil }
    buffer.moveReaderIndex(forwardBy: 5)
    var body = buffer.readBytes(length: length)!
    if bytes[0] & 1 == 1 { body = zstdDecompress(body) }
    return (bytes[0], try Envelope(serializedBytes: body))
  }

  /// One zstd frame of `input`; `windowLog` forces the window size zstd would otherwise choose,
  /// and `statesSize: false` leaves the content size out of the frame header.
  static func zstdCompress(
    _ input: [UInt8], level: Int32 = 3, windowLog: Int32? = nil, statesSize: Bool = true
  ) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
    let context = ZSTD_createCCtx()
    defer { ZSTD_freeCCtx(context) }
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
    if let windowLog { ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, windowLog) }
    if !statesSize { ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0) }
    let size = output.withUnsafeMutableBytes { out in
      input.withUnsafeBytes {
        ZSTD_compress2(context, out.baseAddress, out.count, $0.baseAddress, $0.count)
      }
    }
    precondition(ZSTD_isError(size) == 0)
    return Array(output.prefix(size))
  }

  static func zstdDecompress(_ input: [UInt8]) -> [UInt8] {
    let size = input.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
    precondition(size < 64 << 20)
    var output = [UInt8](repeating: 0, count: Int(size))
    let written = output.withUnsafeMutableBytes { out in
      input.withUnsafeBytes {
        ZSTD_decompress(out.baseAddress, out.count, $0.baseAddress, $0.count)
      }
    }
    precondition(ZSTD_isError(written) == 0)
    return output
  }
}
