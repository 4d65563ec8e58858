import NIOCore
import NIOSSL
import NIOTLS

/// Sits right above the client's TLS handler and reports how the handshake ended: `completed`
/// succeeds once it is done, or fails with the clear error for why it failed (an untrusted
/// certificate, a certificate for another name, a server that does not speak TLS), or with
/// CONNECT_FAILED when it has not completed within the timeout.
final class ClientTLSHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  /// Completed when the handshake is, failed when it fails.
  let completed: EventLoopPromise<Void>
  private let host: String
  private let target: String
  private let timeout: TimeAmount
  private var deadline: Scheduled<Void>?
  private var done = false

  init(promise: EventLoopPromise<Void>, host: String, port: Int, timeout: TimeAmount) {
    self.completed = promise
    self.host = host
    self.target = "\(host):\(port)"
    self.timeout = timeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { startTimer(context: context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    startTimer(context: context)
    context.fireChannelActive()
  }

  private func startTimer(context: ChannelHandlerContext) {
    guard deadline == nil, !done else { return }
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    let channel = context.channel
    let error = RPCError.connectFailed(target)
    deadline = context.eventLoop.scheduleTask(in: timeout) {
      handler.value.finish(.failure(error))
      channel.close(promise: nil)
    }
  }

  private func finish(_ result: Result<Void, RPCError>) {
    guard !done else { return }
    done = true
    deadline?.cancel()
    deadline = nil
    completed.completeWith(result.mapError { $0 as any Error })
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case TLSUserEvent.handshakeCompleted = event { finish(.success(())) }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    guard done else {
      finish(.failure(Self.rpcError(for: error, host: host, target: target)))
      context.close(promise: nil)
      return
    }
    context.fireErrorCaught(error)
  }

  func channelInactive(context: ChannelHandlerContext) {
    finish(.failure(RPCError.tlsHandshakeFailed(target)))
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    finish(.failure(RPCError.connectFailed(target)))
  }

  /// The clear error for a handshake that failed with `error`.
  static func rpcError(for error: any Error, host: String, target: String) -> RPCError {
    if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
      return .tlsHostnameMismatch(host)
    }
    if case NIOSSLError.handshakeFailed(let underlying) = error,
      "\(underlying)".contains("CERTIFICATE_VERIFY_FAILED")
    {
      return .tlsCertificateUntrusted(target)
    }
    return .tlsHandshakeFailed(target)
  }
}
