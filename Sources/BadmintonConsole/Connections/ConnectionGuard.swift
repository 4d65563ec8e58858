import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The first handler of every console connection, before TLS and HTTP: admits the connection
/// through the `ConnectionTable` (closing it at once when refused) and bounds how long it may
/// take to say what it wants.
///
/// - From accept to its first byte, at most `Limits.firstByte`.
/// - From the first byte of a request's head (the TLS handshake's, for a new TLS connection) to
///   the head's end, at most `Limits.requestHead`; `RequestHeadWatcher`, after the HTTP decoder,
///   tells when a head has ended and when a request has been read.
/// - From accept to the end, at most `Limits.lifetime`, busy or not.
///
/// Between requests the idle timeout applies (Hummingbird's), and a request's body is bounded by
/// the console's body limit and the lifetime. So no client, however slowly it sends, holds a
/// connection for long, and no address holds more than its share of them.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  /// The time limits of one connection.
  struct Limits: Sendable {
    var firstByte: TimeAmount
    var requestHead: TimeAmount
    var lifetime: TimeAmount
  }

  /// Where the connection is in its requests.
  private enum Phase {
    /// Accepted, nothing read yet: the first-byte deadline runs.
    case awaitingFirstByte
    /// A request's head has begun and not ended: the head's deadline runs.
    case readingHead
    /// A head has ended; its body is read and its answer written.
    case inRequest
    /// A request has been read in full; the next byte begins another head.
    case betweenRequests
  }

  private let table: ConnectionTable
  private let limits: Limits
  private var phase = Phase.awaitingFirstByte
  private var ticket: ConnectionTable.Ticket?
  private var deadline: Scheduled<Void>?
  private var lifetime: Scheduled<Void>?
  private var channel: (any Channel)?

  init(table: ConnectionTable, limits: Limits) {
    self.table = table
    self.limits = limits
  }

  func channelActive(context: ChannelHandlerContext) {
    let channel = context.channel
    self.channel = channel
    guard let ticket = table.admit(channel, remoteAddress: Self.address(of: channel)) else {
      context.close(promise: nil)
      return
    }
    self.ticket = ticket
    lifetime = channel.eventLoop.scheduleTask(in: limits.lifetime) { channel.close(promise: nil) }
    arm(limits.firstByte)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    deadline?.cancel()
    lifetime?.cancel()
    deadline = nil
    lifetime = nil
    if let ticket {
      table.release(ticket)
      self.ticket = nil
    }
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch phase {
    case .awaitingFirstByte, .betweenRequests:
      phase = .readingHead
      arm(limits.requestHead)
    case .readingHead, .inRequest:
      break
    }
    context.fireChannelRead(data)
  }

  /// A request's head has ended: its deadline no longer runs.
  func headEnded() {
    phase = .inRequest
    deadline?.cancel()
    deadline = nil
  }

  /// A request has been read in full: the next byte begins the next head.
  func requestEnded() {
    if phase == .inRequest { phase = .betweenRequests }
  }

  /// Closes the connection `amount` from now unless another deadline replaces this one.
  private func arm(_ amount: TimeAmount) {
    deadline?.cancel()
    guard let channel else { return }
    deadline = channel.eventLoop.scheduleTask(in: amount) { channel.close(promise: nil) }
  }

  /// The client's IP address, or its description when it has none.
  private static func address(of channel: any Channel) -> String {
    guard let remote = channel.remoteAddress else { return "unknown" }
    return remote.ipAddress ?? remote.description
  }
}

/// After the HTTP decoder: tells the connection's `ConnectionGuard` when a request's head has
/// ended and when the request has been read in full.
final class RequestHeadWatcher: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart

  private var connectionGuard: ConnectionGuard?

  func handlerAdded(context: ChannelHandlerContext) {
    connectionGuard = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head: connectionGuard?.headEnded()
    case .end: connectionGuard?.requestEnded()
    case .body: break
    }
    context.fireChannelRead(data)
  }
}

/// After the HTTP encoder: gives the console's security headers to the answers that the HTTP
/// server writes by itself, outside the router (a `400 Bad Request` to a request it cannot
/// parse), so that every answer carries them. Answers from the router have them already.
final class BareAnswerHeaders: ChannelOutboundHandler, RemovableChannelHandler {
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let tls: Bool

  init(tls: Bool) {
    self.tls = tls
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard case .head(var head) = unwrapOutboundIn(data),
      head.headerFields[.contentSecurityPolicy] == nil
    else {
      context.write(data, promise: promise)
      return
    }
    SecurityHeaders.add(to: &head.headerFields, tls: tls)
    context.write(wrapOutboundOut(.head(head)), promise: promise)
  }
}
