import NIOCore
import Synchronization

/// The console's open connections, shared by every connection's `ConnectionGuard`: admits each
/// new one by `ConnectionBook`'s rule and closes the connection an admission evicts.
final class ConnectionTable: Sendable {
  /// An admitted connection's place in the table, to give back when it closes.
  struct Ticket: Sendable {
    let id: UInt64
    let address: String
  }

  private struct State {
    var book: ConnectionBook
    var channels: [UInt64: any Channel] = [:]
    var nextID: UInt64 = 0
  }

  private let state: Mutex<State>
  private let addressKey: @Sendable (String) -> String
  /// How long a connection asked to close after its answer (`windDown`) may take before it is
  /// closed regardless.
  let windDownGrace: TimeAmount

  init(
    maximumConnections: Int, maximumPerAddress: Int,
    addressKey: @escaping @Sendable (String) -> String, windDownGrace: TimeAmount = .seconds(5)
  ) {
    self.windDownGrace = windDownGrace
    self.state = Mutex(
      State(
        book: ConnectionBook(
          maximumConnections: maximumConnections, maximumPerAddress: maximumPerAddress)))
    self.addressKey = addressKey
  }

  /// Admits `channel`, from the client address `remoteAddress`, and winds down the connection
  /// it takes the place of, if any; nil when `channel` is refused (its caller closes it).
  func admit(_ channel: any Channel, remoteAddress: String) -> Ticket? {
    let address = addressKey(remoteAddress)
    let (ticket, victim) = state.withLock { state -> (Ticket?, (any Channel)?) in
      let id = state.nextID
      state.nextID += 1
      switch state.book.admit(id, from: address) {
      case .refuse:
        return (nil, nil)
      case .admit:
        state.channels[id] = channel
        return (Ticket(id: id, address: address), nil)
      case .admitEvicting(let victim):
        state.channels[id] = channel
        return (Ticket(id: id, address: address), state.channels.removeValue(forKey: victim))
      }
    }
    if let victim { windDown(victim) }
    return ticket
  }

  /// Marks whether the ticket's connection has a request in flight (the rule lets an idle
  /// connection give way before a busy one).
  func setBusy(_ busy: Bool, _ ticket: Ticket) {
    state.withLock { $0.book.setBusy(busy, ticket.id, from: ticket.address) }
  }

  /// Asks `channel` to close once the answer it is writing has gone (at once when it has none:
  /// Hummingbird's connection handler takes `ChannelShouldQuiesceEvent` so), and closes it
  /// `windDownGrace` later whatever it is doing.
  func windDown(_ channel: any Channel) {
    channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
    let backstop = channel.eventLoop.scheduleTask(in: windDownGrace) { channel.close(promise: nil) }
    channel.closeFuture.whenComplete { _ in backstop.cancel() }
  }

  /// Gives back an admitted connection's place once it has closed.
  func release(_ ticket: Ticket) {
    state.withLock { state in
      state.book.release(ticket.id, from: ticket.address)
      state.channels[ticket.id] = nil
    }
  }

  /// The connections held now.
  var count: Int { state.withLock { $0.book.total } }
}
