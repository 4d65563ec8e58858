import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The first handler of every console connection, before TLS and HTTP: admits the connection
/// through the `ConnectionTable` (closing it at once when refused) and bounds how long it may
/// take to say what it wants.
///
/// - From accept to its first byte, at most `Limits.firstByte`.
/// - From the first byte of a request's head (the TLS handshake's, for a new TLS connection) to
///   the head's end, at most `Limits.requestHead`; and on a kept-alive connection, from the end
///   of one answer to the end of the next request's head, the same. `RequestHeadWatcher`, after
///   the HTTP decoder, tells when a head has ended and when an answer has.
/// - From accept, `Limits.lifetime`: then the connection closes once the answer it is writing
///   has gone (at once when idle), and `ConnectionTable.windDownGrace` later in any case.
///
/// While a request is in flight (its head ended, its answer not yet written) no deadline but the
/// lifetime runs: the idle timeout (Hummingbird's) bounds a body sent slowly. So no client,
/// however slowly it sends, holds a connection for long, and no address holds more than its
/// share of them.
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
    /// A head has begun (or, kept alive, an answer has ended): the head's deadline runs.
    case awaitingHead
    /// Requests are in flight: heads that have ended, answers not yet written.
    case inRequest
  }

  private let table: ConnectionTable
  private let limits: Limits
  private var phase = Phase.awaitingFirstByte
  /// Requests whose head has ended and whose answer has not (more than one when pipelined).
  private var inFlight = 0
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
    let table = self.table
    lifetime = channel.eventLoop.scheduleTask(in: limits.lifetime) { table.windDown(channel) }
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
    if phase == .awaitingFirstByte {
      phase = .awaitingHead
      arm(limits.requestHead)
    }
    context.fireChannelRead(data)
  }

  /// A request's head has ended: no deadline runs until its answer has been written.
  func headEnded() {
    inFlight += 1
    phase = .inRequest
    deadline?.cancel()
    deadline = nil
    if inFlight == 1, let ticket { table.setBusy(true, ticket) }
  }

  /// An answer has been written: when no other request is in flight, the next request's head
  /// must end within the head's deadline from now.
  func answerEnded() {
    guard inFlight > 0 else { return }
    inFlight -= 1
    guard inFlight == 0 else { return }
    phase = .awaitingHead
    arm(limits.requestHead)
    if let ticket { table.setBusy(false, ticket) }
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

/// After the HTTP codec: tells the connection's `ConnectionGuard` when a request's head has
/// ended and when an answer has been written.
final class RequestHeadWatcher: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private var connectionGuard: ConnectionGuard?

  func handlerAdded(context: ChannelHandlerContext) {
    connectionGuard = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .head = unwrapInboundIn(data) { connectionGuard?.headEnded() }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data) { connectionGuard?.answerEnded() }
    context.write(data, promise: promise)
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
