import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Hummingbird's HTTP/1.1 child channel, held to the endpoint's limits: past
/// `maximumConnections` an accepted connection is closed at once; the others get a
/// `ScrapeConnectionGuard` in front of the HTTP decoder (bytes and time) and a
/// `OneRequestPerConnection` behind it.
struct ScrapeChannel: ServerChildChannel {
  /// An accepted connection: served over HTTP/1.1, or refused (and already closed).
  enum Value: ServerChildChannelValue {
    case served(HTTP1Channel.Value)
    case refused(any Channel)

    var channel: any Channel {
      switch self {
      case .served(let value): value.channel
      case .refused(let channel): channel
      }
    }
  }

  let http1: HTTP1Channel
  let slots: ConnectionSlots
  let maximumRequestBytes: Int
  let connectionTimeout: TimeAmount

  /// The server builder Hummingbird's `Application` takes: this channel around its responder,
  /// with a connection count of its own.
  static func server(_ configuration: MetricsEndpointConfiguration) -> HTTPServerBuilder {
    let slots = ConnectionSlots(maximum: configuration.maximumConnections)
    // No idle timeout and the decoder's own limits: the guard in front of the decoder closes a
    // connection long before either would.
    let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [OneRequestPerConnection()])
    return HTTPServerBuilder { responder in
      ScrapeChannel(
        http1: HTTP1Channel(responder: responder, configuration: http1), slots: slots,
        maximumRequestBytes: configuration.maximumRequestBytes,
        connectionTimeout: TimeAmount(configuration.connectionTimeout))
    }
  }

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    guard slots.admit(channel) else {
      channel.close(promise: nil)
      return channel.eventLoop.makeSucceededFuture(.refused(channel))
    }
    return channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.addHandler(
        ScrapeConnectionGuard(maximumBytes: maximumRequestBytes, timeout: connectionTimeout))
    }.flatMap {
      http1.setup(channel: channel, logger: logger)
    }.map { .served($0) }
  }

  func handle(value: Value, logger: Logger) async {
    guard case .served(let served) = value else { return }
    await http1.handle(value: served, logger: logger)
  }
}

/// The endpoint's count of open connections, against its cap.
final class ConnectionSlots: Sendable {
  private let maximum: Int
  private let open = Mutex(0)

  init(maximum: Int) {
    self.maximum = maximum
  }

  /// Counts `channel` when the cap allows it, and uncounts it when it closes.
  func admit(_ channel: any Channel) -> Bool {
    let admitted = open.withLock { open in
      guard open < maximum else { return false }
      open += 1
      return true
    }
    guard admitted else { return false }
    channel.closeFuture.whenComplete { _ in self.open.withLock { $0 -= 1 } }
    return true
  }
}

/// Closes a scrape connection that sends more than `maximumBytes`, that is still open after
/// `timeout`, or whose answer has been written (its output closed).
final class ScrapeConnectionGuard: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private let maximumBytes: Int
  private let timeout: TimeAmount
  private var received = 0
  private var timer: Scheduled<Void>?

  init(maximumBytes: Int, timeout: TimeAmount) {
    self.maximumBytes = maximumBytes
    self.timeout = timeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let channel = context.channel
    timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    received += unwrapInboundIn(data).readableBytes
    guard received <= maximumBytes else {
      context.close(promise: nil)
      return
    }
    context.fireChannelRead(data)
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    context.fireUserInboundEventTriggered(event)
    // Hummingbird closes the output once the answer is written; nothing more is read.
    if let event = event as? ChannelEvent, event == .outputClosed {
      context.close(promise: nil)
    }
  }
}

/// Marks every request `Connection: close`, so that Hummingbird's HTTP/1.1 loop ends the
/// connection after answering its first request instead of reading another.
final class OneRequestPerConnection: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .head(var head) = unwrapInboundIn(data) else {
      context.fireChannelRead(data)
      return
    }
    head.headerFields[.connection] = "close"
    context.fireChannelRead(wrapInboundOut(.head(head)))
  }
}
