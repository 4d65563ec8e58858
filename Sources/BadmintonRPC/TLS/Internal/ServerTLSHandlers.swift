import Logging
import NIOCore
import NIOTLS

/// The first handler of a TLS connection, under the TLS handler. Lets a connection that opens
/// with a TLS handshake record (first byte 0x16) through; answers one that opens with anything
/// else, such as a plain frame (whose first byte is 0x00 or 0x01), with a plain-text GOAWAY
/// (`TLS_REQUIRED`) and closes it, so that a client without TLS learns why at once instead of
/// waiting for its deadline. And closes the socket itself, without a TLS goodbye, when the
/// handshake has not completed within the timeout: a peer that opens and stalls holds its
/// descriptor no longer.
final class TLSGateHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// The content type of a TLS handshake record, the first byte of every ClientHello.
  static let handshakeRecord: UInt8 = 0x16
  private enum State {
    /// Nothing read yet.
    case waiting
    /// The first byte was a TLS record's: everything passes.
    case tls
    /// The first byte was not: nothing more is read.
    case refused
  }
  private var state = State.waiting
  private let timeout: TimeAmount
  private let logger: Logger
  private var deadline: Scheduled<Void>?
  private var handshakeDone = false
  private var context: ChannelHandlerContext?

  init(timeout: TimeAmount, logger: Logger) {
    self.timeout = timeout
    self.logger = logger
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    if context.channel.isActive { startTimer(context: context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    deadline?.cancel()
    deadline = nil
    self.context = nil
  }

  func channelActive(context: ChannelHandlerContext) {
    startTimer(context: context)
    context.fireChannelActive()
  }

  private func startTimer(context: ChannelHandlerContext) {
    guard deadline == nil, !handshakeDone else { return }
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    deadline = context.eventLoop.scheduleTask(in: timeout) {
      handler.value.logger.debug("TLS handshake timed out")
      handler.value.closeSocket()
    }
  }

  /// The handshake completed: the timeout no longer applies.
  func handshakeCompleted() {
    handshakeDone = true
    deadline?.cancel()
    deadline = nil
  }

  /// Closes the connection from under the TLS handler, at once.
  func closeSocket() {
    context?.close(promise: nil)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch state {
    case .tls:
      context.fireChannelRead(data)
    case .refused:
      break
    case .waiting:
      let buffer = unwrapInboundIn(data)
      guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return }
      if first == Self.handshakeRecord {
        state = .tls
        context.fireChannelRead(data)
        return
      }
      state = .refused
      logger.debug("plain bytes on a TLS connection: TLS_REQUIRED")
      var frame = context.channel.allocator.buffer(capacity: 256)
      FrameEncoder(configuration: WireConfiguration()).encode(
        Envelope(callID: 0, kind: .goaway, status: RPCError.tlsRequired.status(in: .en)),
        into: &frame)
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in
        handler.value.closeSocket()
      }
    }
  }
}

/// Sits right above the server's TLS handler: tells the gate when the handshake has completed,
/// and ends a connection whose handshake failed quietly (logged at debug level), so that the
/// handlers above never see a connection without TLS. Other connections are not disturbed.
final class ServerTLSHandshakeHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private let gate: TLSGateHandler
  private let logger: Logger
  private var completed = false

  init(gate: TLSGateHandler, logger: Logger) {
    self.gate = gate
    self.logger = logger
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case TLSUserEvent.handshakeCompleted = event {
      completed = true
      gate.handshakeCompleted()
    }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    guard completed else {
      logger.debug("TLS handshake failed", metadata: ["error": "\(error)"])
      gate.closeSocket()
      return
    }
    context.fireErrorCaught(error)
  }
}
