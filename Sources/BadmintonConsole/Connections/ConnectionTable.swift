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

  init(
    maximumConnections: Int, maximumPerAddress: Int,
    addressKey: @escaping @Sendable (String) -> String
  ) {
    self.state = Mutex(
      State(
        book: ConnectionBook(
          maximumConnections: maximumConnections, maximumPerAddress: maximumPerAddress)))
    self.addressKey = addressKey
  }

  /// Admits `channel`, from the client address `remoteAddress`, and closes the connection it
  /// takes the place of, if any; nil when `channel` is refused (its caller closes it).
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
    victim?.close(promise: nil)
    return ticket
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
