import NIOCore

/// Closes a console connection a fixed time after it was accepted, whatever it is doing: with the
/// idle timeout and the cap on connections, this bounds the time any one request (or a client
/// sending one byte at a time) can hold a connection. Browsers open a new connection for their
/// next request without the administrator noticing.
final class ConnectionLifetime: ChannelInboundHandler, RemovableChannelHandler, Sendable {
  typealias InboundIn = NIOAny

  private let lifetime: TimeAmount

  init(lifetime: TimeAmount) {
    self.lifetime = lifetime
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let channel = context.channel
    let close = channel.eventLoop.scheduleTask(in: lifetime) { channel.close(promise: nil) }
    // A connection that closes first lets go of its timer (and the timer of it).
    channel.closeFuture.whenComplete { _ in close.cancel() }
  }
}
