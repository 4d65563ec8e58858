/// A fault the proxy injects.
public enum ChaosFault: String, Sendable, CaseIterable, Hashable, Comparable {
  /// The connection is cut inside a client-to-server frame: part of a request reaches the
  /// server, then both sides are closed.
  case cutRequest
  /// The connection is cut inside a server-to-client frame: part of an answer reaches the client,
  /// then both sides are closed.
  case cutAnswer
  /// A server-to-client frame is swallowed whole, then both sides are closed: the server did the
  /// work, the client never hears of it.
  case dropAnswer
  /// Every chunk, both ways, is held back for a while before it is passed on.
  case delay
  /// The connection is accepted and closed at once.
  case refuse
  /// The proxy stopped listening for a while (counted once per period).
  case notListening

  public static func < (lhs: ChaosFault, rhs: ChaosFault) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// Which faults the proxy gives new connections, and how.
///
/// Each new connection draws at most one fault that ends it, with the chances below (their sum
/// at most 1; the other connections are not ended by the proxy), and, independently, whether
/// its chunks are delayed. A refusal refuses that connection and the next few (`refusalRun`),
/// so that a client sees the server gone for a while.
public struct ChaosPlan: Sendable, Hashable {
  /// Chance of `ChaosFault.cutRequest`.
  public var cutRequest: Double
  /// Chance of `ChaosFault.cutAnswer`.
  public var cutAnswer: Double
  /// Chance of `ChaosFault.dropAnswer`.
  public var dropAnswer: Double
  /// Chance of `ChaosFault.refuse` (starting a run of refusals).
  public var refuse: Double
  /// Chance of `ChaosFault.delay`, on top of any of the others.
  public var delay: Double
  /// The frame of its direction (from 1) inside which a cut or a drop fires.
  public var faultFrame: ClosedRange<Int>
  /// How long a delayed connection holds each chunk, in milliseconds.
  public var delayMilliseconds: ClosedRange<Int>
  /// How many connections in a row a refusal turns away, the first included.
  public var refusalRun: ClosedRange<Int>

  /// A plan with the given chances; no fault unless given.
  public init(
    cutRequest: Double = 0, cutAnswer: Double = 0, dropAnswer: Double = 0, refuse: Double = 0,
    delay: Double = 0, faultFrame: ClosedRange<Int> = 1...8,
    delayMilliseconds: ClosedRange<Int> = 1...20, refusalRun: ClosedRange<Int> = 1...3
  ) {
    precondition(cutRequest + cutAnswer + dropAnswer + refuse <= 1 + 1e-9)
    precondition((0...1).contains(delay))
    precondition(faultFrame.lowerBound >= 1 && refusalRun.lowerBound >= 1)
    self.cutRequest = cutRequest
    self.cutAnswer = cutAnswer
    self.dropAnswer = dropAnswer
    self.refuse = refuse
    self.delay = delay
    self.faultFrame = faultFrame
    self.delayMilliseconds = delayMilliseconds
    self.refusalRun = refusalRun
  }

  /// Every byte passes unchanged.
  public static let none = ChaosPlan()

  /// What happens to one connection, drawn from `random`.
  func draw(using random: inout ChaosRandom) -> ConnectionFault {
    let roll = Double.random(in: 0..<1, using: &random)
    let frame = Int.random(in: faultFrame, using: &random)
    let delayed = Double.random(in: 0..<1, using: &random) < delay
    let milliseconds = Int.random(in: delayMilliseconds, using: &random)
    let run = Int.random(in: refusalRun, using: &random)
    let endings: [(chance: Double, ConnectionFault.Ending)] = [
      (cutRequest, .cut(.client, frame: frame)), (cutAnswer, .cut(.server, frame: frame)),
      (dropAnswer, .drop(frame: frame)), (refuse, .refuse(run: run)),
    ]
    var ending = ConnectionFault.Ending.none
    var bound = 0.0
    for (chance, candidate) in endings {
      bound += chance
      if roll < bound {
        ending = candidate
        break
      }
    }
    // A refused connection carries nothing to delay.
    if case .refuse = ending { return ConnectionFault(ending: ending, delayMilliseconds: nil) }
    return ConnectionFault(ending: ending, delayMilliseconds: delayed ? milliseconds : nil)
  }
}

/// One end of a proxied connection.
enum Side: Hashable, Sendable {
  /// The client's connection to the proxy.
  case client
  /// The proxy's connection to the server.
  case server

  /// The other end.
  var other: Side { self == .client ? .server : .client }
}

/// The faults one connection was given.
struct ConnectionFault: Hashable, Sendable {
  /// How the proxy ends the connection, if it does.
  enum Ending: Hashable, Sendable {
    /// Not ended by the proxy.
    case none
    /// Cut inside frame `frame` of the bytes coming from `side`.
    case cut(Side, frame: Int)
    /// Swallow the server's bytes from the start of its frame `frame`; cut once it is whole.
    case drop(frame: Int)
    /// Refuse this connection and `run - 1` more.
    case refuse(run: Int)
  }

  var ending: Ending
  /// Every chunk is held this long, when set.
  var delayMilliseconds: Int?

  /// No fault.
  static let none = ConnectionFault(ending: .none, delayMilliseconds: nil)

  /// The kinds of fault, in the order of `ChaosFault`.
  var kinds: [ChaosFault] {
    var kinds: [ChaosFault] =
      switch ending {
      case .none: []
      case .cut(.client, _): [.cutRequest]
      case .cut(.server, _): [.cutAnswer]
      case .drop: [.dropAnswer]
      case .refuse: [.refuse]
      }
    if delayMilliseconds != nil { kinds.append(.delay) }
    return kinds
  }
}
