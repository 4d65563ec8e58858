import NIOCore

/// The server's count of open connections, in total and per client address, and the rule that
/// admits a new one or refuses it. A pure value: the server keeps it under its lock.
struct ConnectionAdmission: Sendable {
  /// Why a connection was refused.
  enum Refusal: Equatable, Sendable {
    /// The server holds `maximumConnections` already.
    case total
    /// The connection's address holds `maximumConnectionsPerAddress` already.
    case perAddress
  }

  let maximumConnections: Int
  let maximumConnectionsPerAddress: Int
  private(set) var total = 0
  private(set) var perAddress: [String: Int] = [:]

  init(maximumConnections: Int, maximumConnectionsPerAddress: Int) {
    self.maximumConnections = maximumConnections
    self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
  }

  /// Counts a connection from `address` when the caps allow it; returns the refusal otherwise.
  mutating func admit(_ address: String) -> Refusal? {
    guard total < maximumConnections else { return .total }
    let held = perAddress[address, default: 0]
    guard held < maximumConnectionsPerAddress else { return .perAddress }
    total += 1
    perAddress[address] = held + 1
    return nil
  }

  /// Forgets an admitted connection from `address`.
  mutating func release(_ address: String) {
    guard let held = perAddress[address] else { return }
    total -= 1
    perAddress[address] = held > 1 ? held - 1 : nil
  }

  /// The connections open from `address`.
  func count(from address: String) -> Int { perAddress[address, default: 0] }
}

extension ConnectionAdmission.Refusal {
  /// What the refused client reads in the GOAWAY it gets before the close.
  var error: RPCError {
    switch self {
    case .total: .tooManyConnections
    case .perAddress: .tooManyConnectionsFromAddress
    }
  }
}

/// Answers a refused connection: one GOAWAY with the refusal, then the close, without reading
/// anything the client sends.
final class ConnectionRefusalHandler: ChannelInboundHandler {
  typealias InboundIn = Envelope
  typealias OutboundOut = Envelope

  private let error: RPCError

  init(error: RPCError) { self.error = error }

  func channelActive(context: ChannelHandlerContext) {
    let goAway = Envelope(callID: 0, kind: .goaway, status: error.status(in: .en))
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(goAway)).whenComplete { _ in
      channel.close(promise: nil)
    }
    // A client that does not read its GOAWAY loses the connection all the same.
    channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
