/// The console's count of open connections, in total and per client address, and the rule that
/// admits a new one. A pure value: `ConnectionTable` keeps it under its lock.
///
/// The rule never leaves an address that holds few connections waiting behind one that holds
/// many: a connection past `maximumPerAddress` for its address is refused; below it, a connection
/// is admitted while the console holds fewer than `maximumConnections`. Once it holds that many,
/// a newcomer whose address holds at least two fewer than the busiest address takes the place of
/// one of that address's connections (so the two never take turns evicting each other), and any
/// other newcomer is refused. Of the busiest address's connections, the oldest with no request
/// in flight gives way, or the oldest when every one has a request in flight; among addresses
/// holding as many, the one holding the oldest connection.
struct ConnectionBook: Sendable {
  /// What happens to a new connection.
  enum Decision: Equatable, Sendable {
    /// Admitted: there was room.
    case admit
    /// Admitted in place of connection `victim`, which is to be closed (and is forgotten now).
    case admitEvicting(victim: UInt64)
    /// Refused: its address holds its share, or the console is full of addresses holding no
    /// more than one more than it does.
    case refuse
  }

  /// One open connection.
  struct Entry: Equatable, Sendable {
    let id: UInt64
    /// Whether a request of it is in flight: its head has ended and its answer has not.
    var busy = false
  }

  let maximumConnections: Int
  let maximumPerAddress: Int
  /// Each address's open connections, oldest first (ids grow with the time of admission).
  private(set) var connections: [String: [Entry]] = [:]
  /// Every address's connections, added up.
  private(set) var total = 0

  init(maximumConnections: Int, maximumPerAddress: Int) {
    self.maximumConnections = max(1, maximumConnections)
    self.maximumPerAddress = max(1, maximumPerAddress)
  }

  /// Decides on connection `id` from `address`, and counts it when admitted. Ids are given in
  /// the order connections arrive.
  mutating func admit(_ id: UInt64, from address: String) -> Decision {
    let held = connections[address]?.count ?? 0
    guard held < maximumPerAddress else { return .refuse }
    guard total >= maximumConnections else {
      connections[address, default: []].append(Entry(id: id))
      total += 1
      return .admit
    }
    guard
      let (busiest, theirs) = connections.max(by: { first, second in
        first.value.count != second.value.count
          ? first.value.count < second.value.count : first.value[0].id > second.value[0].id
      }),
      theirs.count > held + 1
    else { return .refuse }
    let index = theirs.firstIndex { !$0.busy } ?? 0
    var remaining = theirs
    let victim = remaining.remove(at: index)
    connections[busiest] = remaining
    connections[address, default: []].append(Entry(id: id))
    return .admitEvicting(victim: victim.id)
  }

  /// Marks whether connection `id` from `address` has a request in flight.
  mutating func setBusy(_ busy: Bool, _ id: UInt64, from address: String) {
    guard let index = connections[address]?.firstIndex(where: { $0.id == id }) else { return }
    connections[address]?[index].busy = busy
  }

  /// Forgets connection `id` from `address`; nothing when it was refused or evicted.
  mutating func release(_ id: UInt64, from address: String) {
    guard var held = connections[address], let index = held.firstIndex(where: { $0.id == id })
    else { return }
    held.remove(at: index)
    connections[address] = held.isEmpty ? nil : held
    total -= 1
  }

  /// The connections open from `address`.
  func count(from address: String) -> Int { connections[address]?.count ?? 0 }
}
