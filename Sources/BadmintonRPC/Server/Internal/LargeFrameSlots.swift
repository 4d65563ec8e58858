import NIOCore
import Synchronization

/// The server-wide slots for large request frames. A frame whose body is over
/// `LargeFrameSlots.bodyThreshold` takes one from its header on, before its body is read, and
/// keeps it until its call's handler has finished (a server-streaming call's, until its request
/// is decoded; a frame that starts no call, until it is decoded). A connection whose next frame
/// finds no slot free is not read until one is handed to it, so that the bodies waiting stay in
/// the kernel's socket buffers: the large request bodies the process holds at once are bounded by
/// the slots, whatever the number of connections. Slots are handed out in the order they were
/// asked for.
final class LargeFrameSlots: Sendable {
  /// Bodies over this many bytes need a slot: 16 KiB, one receive buffer.
  static let bodyThreshold = 16 * 1024

  private struct State {
    var free: Int
    /// Waiting connections, first come first served.
    var waiters: [(ticket: UInt64, grant: @Sendable (LargeFrameSlot) -> Void)] = []
    var nextTicket: UInt64 = 0
  }
  private let state: Mutex<State>

  /// `count` slots, all free.
  init(count: Int) {
    precondition(count >= 1)
    state = Mutex(State(free: count))
  }

  /// A slot at once; or nil, and `grant` is called (on any thread) with the slot once one is
  /// handed over, unless `cancel(ticket)` takes the request back first.
  func acquire(orWait grant: @escaping @Sendable (LargeFrameSlot) -> Void) -> Acquisition {
    state.withLock { state in
      if state.free > 0 {
        state.free -= 1
        return .acquired(LargeFrameSlot(self))
      }
      state.nextTicket += 1
      state.waiters.append((state.nextTicket, grant))
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

  /// Gives a slot back: to the longest-waiting connection, or to the free ones.
  fileprivate func release() {
    let next = state.withLock { state -> (@Sendable (LargeFrameSlot) -> Void)? in
      guard !state.waiters.isEmpty else {
        state.free += 1
        return nil
      }
      return state.waiters.removeFirst().grant
    }
    next?(LargeFrameSlot(self))
  }

  /// Slots free now.
  var available: Int { state.withLock { $0.free } }

  /// Connections waiting for a slot now.
  var waiting: Int { state.withLock { $0.waiters.count } }
}

/// One slot held; `release` gives it back, once however often it is called.
final class LargeFrameSlot: Sendable {
  private let slots: LargeFrameSlots
  private let released = Atomic(false)

  fileprivate init(_ slots: LargeFrameSlots) { self.slots = slots }

  /// Gives the slot back; later calls do nothing.
  func release() {
    guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
    slots.release()
  }

  deinit {
    // A slot dropped unreleased (its holder went away) is given back all the same.
    if !released.load(ordering: .acquiring) { slots.release() }
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
    switch slots.acquire(orWait: { slot in loop.execute { gate.value.granted(slot) } }) {
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
