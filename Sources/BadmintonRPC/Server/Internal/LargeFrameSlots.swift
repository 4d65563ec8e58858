import NIOCore
import Synchronization

/// The server-wide slots for large request frames. A frame whose body is over
/// `LargeFrameSlots.bodyThreshold` takes one from its header on, before its body is read, and
/// keeps it until its call's handler has finished (a server-streaming call's, until its request
/// is decoded; a frame that starts no call, until it is decoded). A connection whose next frame
/// finds no slot free is not read until one is handed to it, so that the bodies waiting stay in
/// the kernel's socket buffers: the large request bodies the process holds at once are bounded by
/// the slots, whatever the number of connections. Slots are handed out in the order they were
/// asked for, except that one client address holds at most `sharePerAddress` of them at once
/// (half, at least 1): a few connections that announce large frames and then send them slowly
/// cannot take every slot for the frame timeout.
final class LargeFrameSlots: Sendable {
  /// Bodies over this many bytes need a slot: 16 KiB, two full receive buffers.
  static let bodyThreshold = 16 * 1024

  private struct Waiter {
    let ticket: UInt64
    let address: String
    let grant: @Sendable (LargeFrameSlot) -> Void
  }

  private struct State {
    var free: Int
    /// Slots held now, by client address.
    var held: [String: Int] = [:]
    /// Waiting connections, first come first served.
    var waiters: [Waiter] = []
    var nextTicket: UInt64 = 0

    /// Takes a slot for `address`, when one is free and the address holds less than `share`.
    mutating func take(for address: String, share: Int) -> Bool {
      guard free > 0, held[address, default: 0] < share else { return false }
      free -= 1
      held[address, default: 0] += 1
      return true
    }
  }
  private let state: Mutex<State>
  /// The most slots one client address holds at once: half of them, at least 1.
  let sharePerAddress: Int

  /// `count` slots, all free.
  init(count: Int) {
    precondition(count >= 1)
    state = Mutex(State(free: count))
    sharePerAddress = max(1, count / 2)
  }

  /// A slot at once for a connection from `address`; or `.waiting`, and `grant` is called (on any
  /// thread) with the slot once one is handed over, unless `cancel(ticket)` takes the request
  /// back first.
  func acquire(
    for address: String, orWait grant: @escaping @Sendable (LargeFrameSlot) -> Void
  ) -> Acquisition {
    state.withLock { state in
      // Those waiting already go first.
      if !state.waiters.contains(where: { $0.address == address }),
        state.take(for: address, share: sharePerAddress)
      {
        return .acquired(LargeFrameSlot(self, address: address))
      }
      state.nextTicket += 1
      state.waiters.append(Waiter(ticket: state.nextTicket, address: address, grant: grant))
      return .waiting(ticket: state.nextTicket)
    }
  }

  /// What `acquire` gave.
  enum Acquisition {
    /// A slot, held now.
    case acquired(LargeFrameSlot)
    /// Queued: the grant closure will be called.
    case waiting(ticket: UInt64)
  }

  /// Takes back a waiting request; false when its slot was already handed over (its grant
  /// closure has been or is being called).
  func cancel(_ ticket: UInt64) -> Bool {
    state.withLock { state in
      guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else {
        return false
      }
      state.waiters.remove(at: index)
      return true
    }
  }

  /// Gives back a slot that `address` held: to the longest-waiting connection whose address
  /// holds less than its share, or to the free ones.
  fileprivate func release(from address: String) {
    let next = state.withLock { state -> Waiter? in
      state.free += 1
      state.held[address, default: 1] -= 1
      if state.held[address] == 0 { state.held[address] = nil }
      guard
        let index = state.waiters.firstIndex(where: {
          state.held[$0.address, default: 0] < sharePerAddress
        })
      else { return nil }
      let waiter = state.waiters.remove(at: index)
      _ = state.take(for: waiter.address, share: sharePerAddress)
      return waiter
    }
    if let next { next.grant(LargeFrameSlot(self, address: next.address)) }
  }

  /// Slots free now.
  var available: Int { state.withLock { $0.free } }

  /// Connections waiting for a slot now.
  var waiting: Int { state.withLock { $0.waiters.count } }
}

/// One slot held; `release` gives it back, once however often it is called.
final class LargeFrameSlot: Sendable {
  private let slots: LargeFrameSlots
  private let address: String
  private let released = Atomic(false)

  fileprivate init(_ slots: LargeFrameSlots, address: String) {
    self.slots = slots
    self.address = address
  }

  /// Gives the slot back; later calls do nothing.
  func release() {
    guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
    slots.release(from: address)
  }

  deinit {
    // A slot dropped unreleased (its holder went away) is given back all the same.
    if !released.load(ordering: .acquiring) { slots.release(from: address) }
  }
}

/// One connection's side of the slots, used on its event loop only: the frame decoder asks for a
/// slot when a header announces a large body, `LargeFrameReadGate` keeps the connection from
/// being read while it waits, and the connection handler takes the slot of the REQUEST just
/// decoded for its call.
final class LargeFrameGate {
  private enum FrameState {
    /// The frame in progress needs no slot, or none was asked for yet.
    case none
    /// Waiting for a slot; nothing more is read meanwhile.
    case waiting(ticket: UInt64)
    /// The frame in progress holds a slot.
    case holding(LargeFrameSlot)
  }

  let slots: LargeFrameSlots
  /// The connection's event loop, set when `LargeFrameReadGate` is added.
  fileprivate var eventLoop: (any EventLoop)?
  /// The connection's client address as the connection caps key it, set once it is known.
  fileprivate var address = "unknown"
  private var frame = FrameState.none
  /// The slot of the envelope being delivered, until the connection handler takes it.
  private var delivered: LargeFrameSlot?
  private var closed = false
  /// Called once a waited-for slot arrives: resumes reading and decoding.
  var resume: (() -> Void)?

  /// A gate for one connection, drawing on `slots`.
  init(slots: LargeFrameSlots) { self.slots = slots }

  /// True while the connection waits for a slot.
  var isWaiting: Bool {
    if case .waiting = frame { return true }
    return false
  }

  /// Whether the frame in progress, whose header announces `bodyLength` bytes, may be read on:
  /// true when it needs no slot or holds one; false while it waits for one.
  func admit(bodyLength: Int) -> Bool {
    // A closed connection reads nothing more; what it decodes now is dropped by its handler.
    guard bodyLength > LargeFrameSlots.bodyThreshold, !closed, let loop = eventLoop else {
      return true
    }
    switch frame {
    case .holding: return true
    case .waiting: return false
    case .none: break
    }
    let gate = NIOLoopBound(self, eventLoop: loop)
    switch slots.acquire(
      for: address, orWait: { slot in loop.execute { gate.value.granted(slot) } })
    {
    case .acquired(let slot):
      frame = .holding(slot)
      return true
    case .waiting(let ticket):
      frame = .waiting(ticket: ticket)
      return false
    }
  }

  private func granted(_ slot: LargeFrameSlot) {
    guard !closed, case .waiting = frame else { return slot.release() }
    frame = .holding(slot)
    resume?()
  }

  /// The frame in progress has been parsed: its slot, if any, goes with its envelope until
  /// `endDelivery`.
  func frameDecoded() {
    guard case .holding(let slot) = frame else { return }
    delivered?.release()
    delivered = slot
    frame = .none
  }

  /// The slot of the envelope being delivered, now the caller's to release; nil when it holds
  /// none.
  func takeDeliveredSlot() -> LargeFrameSlot? {
    defer { delivered = nil }
    return delivered
  }

  /// The envelope has been delivered: a slot nobody took is given back.
  func endDelivery() {
    delivered?.release()
    delivered = nil
  }

  /// The connection is going away: a waiting request is taken back, a held slot given back.
  func close() {
    closed = true
    switch frame {
    case .waiting(let ticket):
      // When the slot was already handed over, `granted` gives it back.
      _ = slots.cancel(ticket)
    case .holding(let slot):
      slot.release()
    case .none:
      break
    }
    frame = .none
    endDelivery()
  }
}

/// Keeps a connection from being read while its `LargeFrameGate` waits for a slot, and once the
/// slot arrives decodes what is already buffered and reads on. Sits just before the frame
/// decoder.
final class LargeFrameReadGate: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let gate: LargeFrameGate
  /// A read was asked for while waiting, and held back.
  private var readHeld = false

  /// A read gate for `gate`.
  init(gate: LargeFrameGate) { self.gate = gate }

  func handlerAdded(context: ChannelHandlerContext) {
    gate.eventLoop = context.eventLoop
    if context.channel.remoteAddress != nil {
      gate.address = RPCServer.clientAddress(of: context.channel)
    }
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    gate.resume = {
      // The decoder may already hold the whole frame: an empty read makes it decode again.
      bound.value.fireChannelRead(NIOAny(ByteBuffer()))
      if handler.value.readHeld, !handler.value.gate.isWaiting {
        handler.value.readHeld = false
        bound.value.read()
      }
    }
  }

  func channelActive(context: ChannelHandlerContext) {
    gate.address = RPCServer.clientAddress(of: context.channel)
    context.fireChannelActive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    gate.resume = nil
    gate.close()
  }

  func read(context: ChannelHandlerContext) {
    if gate.isWaiting {
      readHeld = true
    } else {
      context.read()
    }
  }
}
