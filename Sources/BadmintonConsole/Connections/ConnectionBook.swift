/// The console's count of open connections, in total and per client address, and the rule that
/// admits a new one. A pure value: `ConnectionTable` keeps it under its lock.
///
/// The rule never leaves an address that holds few connections waiting behind one that holds
/// many: a connection past `maximumPerAddress` for its address is refused; below it, a connection
/// is admitted while the console holds fewer than `maximumConnections`; once it holds that many,
/// a newcomer whose address holds fewer than the busiest address takes the place of that
/// address's oldest connection, and any other newcomer is refused.
struct ConnectionBook: Sendable {
  /// What happens to a new connection.
  enum Decision: Equatable, Sendable {
    /// Admitted: there was room.
    case admit
    /// Admitted in place of connection `victim`, which is to be closed (and is forgotten now).
    case admitEvicting(victim: UInt64)
    /// Refused: its address holds its share, or the console is full of addresses holding no
    /// more than it does.
    case refuse
  }

  let maximumConnections: Int
  let maximumPerAddress: Int
  /// Each address's open connections, oldest first.
  private(set) var connections: [String: [UInt64]] = [:]
  /// Every address's connections, added up.
  private(set) var total = 0

  init(maximumConnections: Int, maximumPerAddress: Int) {
    self.maximumConnections = max(1, maximumConnections)
    self.maximumPerAddress = max(1, maximumPerAddress)
  }

  /// Decides on connection `id` from `address`, and counts it when admitted.
  mutating func admit(_ id: UInt64, from address: String) -> Decision {
    let held = connections[address]?.count ?? 0
    guard held < maximumPerAddress else { return .refuse }
    guard total >= maximumConnections else {
      connections[address, default: []].append(id)
      total += 1
      return .admit
    }
    // Full: the busiest address gives up its oldest connection, when it holds more than this one.
    guard let (busiest, theirs) = connections.max(by: { $0.value.count < $1.value.count }),
      theirs.count > held, let victim = theirs.first
    else { return .refuse }
    connections[busiest] = theirs.count > 1 ? Array(theirs.dropFirst()) : nil
    connections[address, default: []].append(id)
    return .admitEvicting(victim: victim)
  }

  /// Forgets connection `id` from `address`; nothing when it was refused or evicted.
  mutating func release(_ id: UInt64, from address: String) {
    guard var held = connections[address], let index = held.firstIndex(of: id) else { return }
    held.remove(at: index)
    connections[address] = held.isEmpty ? nil : held
    total -= 1
  }

  /// The connections open from `address`.
  func count(from address: String) -> Int { connections[address]?.count ?? 0 }
}
