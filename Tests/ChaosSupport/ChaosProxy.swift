import Foundation
public import NIOCore
public import NIOPosix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP proxy on loopback that injects faults between clients and a server.
///
/// Each connection it accepts draws its fault from the plan with a random generator of its own,
/// derived from the proxy's seed and the connection's number, so that a run is repeatable from
/// its seed as far as the order of connections is. It counts every fault it injects: a cut or a
/// drop when it fires (a connection that closes first was not faulted), a delay when it first
/// holds a chunk, a refusal per connection refused, a period of not listening when it starts.
public final class ChaosProxy: Sendable {
  /// The address the proxy listens on.
  public let host: String
  /// Its port, kept when it stops listening and starts again.
  public let port: Int
  /// The server's address.
  private let upstream: SocketAddress
  private let group: any EventLoopGroup
  private let seed: UInt64
  private let state: Mutex<State>

  private struct State {
    var plan: ChaosPlan
    var listener: (any Channel)?
    /// While not listening: a socket bound to the port and not listening, so that connections
    /// to the port are refused and no other socket takes it meanwhile.
    var holder: Int32?
    var nextConnection: UInt64 = 0
    var refusalsLeft = 0
    var counts: [ChaosFault: Int] = [:]
    var links: [UInt64: NIOLoopBound<Link>] = [:]
    var passed = 0
    var drawn: [ChaosFault: Int] = [:]
  }

  private init(
    host: String, port: Int, upstream: SocketAddress, group: any EventLoopGroup, seed: UInt64,
    plan: ChaosPlan
  ) {
    self.host = host
    self.port = port
    self.upstream = upstream
    self.group = group
    self.seed = seed
    self.state = Mutex(State(plan: plan))
  }

  /// Starts a proxy on `host:port` (0 picks a free port) in front of the server at
  /// `upstreamHost:upstreamPort`, injecting faults by `plan` from `seed`.
  public static func start(
    host: String = "127.0.0.1", port: Int = 0, upstreamHost: String = "127.0.0.1",
    upstreamPort: Int, plan: ChaosPlan = .none, seed: UInt64 = 0,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws -> ChaosProxy {
    let upstream = try SocketAddress(ipAddress: upstreamHost, port: upstreamPort)
    let listener = try await bind(host: host, port: port, group: group)
    let proxy = ChaosProxy(
      host: host, port: listener.localAddress!.port!, upstream: upstream, group: group,
      seed: seed, plan: plan)
    proxy.state.withLock { $0.listener = listener.channel }
    listener.accept = { [weak proxy] channel in proxy?.admit(channel) }
    return proxy
  }

  /// A port below the system's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`), so
  /// that no outgoing connection takes it as its local port while nothing listens on it (a
  /// proxy that stopped listening, a server being restarted). Not checked for being free.
  ///
  /// No port is handed out twice in a process: tests that run at once each stop and start
  /// listening on their own port, and one drawn twice made a test's stopped proxy port another
  /// test's restarted server (the proxy, holding its port with `SO_REUSEADDR` while the other
  /// server's old connections were in TIME_WAIT on it, could not keep the server off it).
  public static func portOutsideEphemeralRange() -> Int {
    let range =
      (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
      ?? ""
    let lowest =
      range.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap {
        Int($0)
      } ?? 32768
    let ports = 10_000..<max(lowest, 10_001)
    return handedOut.withLock { handedOut in
      // Drawn at random, so that two processes (test runs side by side) rarely meet; once most
      // of the range is used, any port is handed out again.
      for _ in 0..<1_000 {
        let port = Int.random(in: ports)
        if handedOut.insert(port).inserted { return port }
      }
      return Int.random(in: ports)
    }
  }

  /// The ports `portOutsideEphemeralRange` handed out in this process.
  private static let handedOut = Mutex(Set<Int>())

  /// The faults for new connections from now on; open connections keep theirs.
  public var plan: ChaosPlan {
    get { state.withLock { $0.plan } }
    set { state.withLock { $0.plan = newValue } }
  }

  /// The faults injected so far, by kind.
  public var counts: [ChaosFault: Int] { state.withLock { $0.counts } }

  /// The faults new connections drew, by kind, whether or not they fired (a cut planned for a
  /// frame the connection never carried did not).
  public var drawn: [ChaosFault: Int] { state.withLock { $0.drawn } }

  /// Connections accepted that drew no fault.
  public var connectionsPassed: Int { state.withLock { $0.passed } }

  /// Connections accepted so far.
  public var connectionsAccepted: Int { state.withLock { Int($0.nextConnection) } }

  /// Stops accepting connections (counted as a `notListening` fault); open ones stay.
  public func stopListening() async throws {
    let listener = state.withLock { state in
      defer { state.listener = nil }
      return state.listener
    }
    guard let listener else { return }
    count(.notListening)
    try await listener.close()
    let holder = Self.holdPort(host: host, port: port)
    state.withLock { $0.holder = holder }
  }

  /// A socket bound to `host`:`port` that does not listen, or nil when the port is taken. It is
  /// bound without `SO_REUSEADDR` where it can be, so that no other socket binds the port at
  /// all; with it when connections of the proxy's still hold the port in TIME_WAIT.
  private static func holdPort(host: String, port: Int) -> Int32? {
    holdPort(host: host, port: port, reusingAddress: false)
      ?? holdPort(host: host, port: port, reusingAddress: true)
  }

  private static func holdPort(host: String, port: Int, reusingAddress: Bool) -> Int32? {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard fd >= 0 else { return nil }
      if reusingAddress {
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
      }
      guard let address = try? SocketAddress(ipAddress: host, port: port) else {
        close(fd)
        return nil
      }
      let bound = address.withSockAddr { pointer, size in
        Glibc.bind(fd, pointer, socklen_t(size))
      }
      guard bound == 0 else {
        close(fd)
        return nil
      }
      return fd
    #else
      return nil
    #endif
  }

  private func releasePort() {
    guard
      let holder = state.withLock({ state in
        defer { state.holder = nil }; return state.holder
      })
    else { return }
    #if canImport(Glibc)
      close(holder)
    #endif
  }

  /// Listens again on the same port. The port was held while the proxy was not listening; in
  /// the moment between letting it go and binding it, a connection may take it as its local
  /// port (when it is in the system's ephemeral range): the bind is tried again every 20 ms, at
  /// most 250 times.
  public func startListening() async throws {
    guard state.withLock({ $0.listener == nil }) else { return }
    releasePort()
    var attempts = 0
    var bound: Listener?
    while bound == nil {
      do {
        bound = try await Self.bind(host: host, port: port, group: group)
      } catch {
        attempts += 1
        if attempts >= 250 { throw error }
        try await Task.sleep(for: .milliseconds(20))
      }
    }
    let listener = bound!
    listener.accept = { [weak self] channel in self?.admit(channel) }
    state.withLock { $0.listener = listener.channel }
  }

  /// Closes every open connection at once, both sides, counting nothing.
  public func closeConnections() async {
    let links = state.withLock { Array($0.links.values) }
    for link in links {
      try? await link.eventLoop.submit { link.value.close() }.get()
    }
  }

  /// Stops listening and closes every open connection.
  public func stop() async {
    let listener = state.withLock { state in
      defer { state.listener = nil }
      return state.listener
    }
    try? await listener?.close()
    releasePort()
    await closeConnections()
  }

  // MARK: Accepting

  /// A bound listener whose accepted channels go to `accept`, set once the proxy exists.
  private final class Listener: @unchecked Sendable {
    // `channel` is written once, by `bind`, before the listener is handed out, and only read
    // after. `accept` is read and written under the lock; a connection accepted before it is
    // set is closed.
    private let lock = Mutex<(@Sendable (any Channel) -> Void)?>(nil)
    var channel: (any Channel)!
    var localAddress: SocketAddress? { channel.localAddress }

    var accept: (@Sendable (any Channel) -> Void)? {
      get { lock.withLock { $0 } }
      set { lock.withLock { $0 = newValue } }
    }
  }

  private static func bind(host: String, port: Int, group: any EventLoopGroup) async throws
    -> Listener
  {
    let listener = Listener()
    listener.channel = try await ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
      .childChannelInitializer { channel in
        if let accept = listener.accept {
          accept(channel)
        } else {
          channel.close(promise: nil)
        }
        return channel.eventLoop.makeSucceededVoidFuture()
      }
      .bind(host: host, port: port).get()
    return listener
  }

  /// Gives a new connection its fault and, unless refused, connects it to the server.
  private func admit(_ channel: any Channel) {
    let (number, fault) = state.withLock { state -> (UInt64, ConnectionFault) in
      let number = state.nextConnection
      state.nextConnection += 1
      if state.refusalsLeft > 0 {
        state.refusalsLeft -= 1
        return (number, ConnectionFault(ending: .refuse(run: 1), delayMilliseconds: nil))
      }
      var random = ChaosRandom(seed: seed, stream: number)
      let fault = state.plan.draw(using: &random)
      if case .refuse(let run) = fault.ending { state.refusalsLeft = run - 1 }
      if fault == .none { state.passed += 1 }
      for kind in fault.kinds { state.drawn[kind, default: 0] += 1 }
      return (number, fault)
    }
    if case .refuse = fault.ending {
      count(.refuse)
      channel.close(promise: nil)
      return
    }
    var random = ChaosRandom(seed: seed ^ 0x5EED, stream: number)
    let link = Link(
      fault: fault, cutPoint: random.next(), eventLoop: channel.eventLoop,
      count: { [weak self] in self?.count($0) })
    let bound = NIOLoopBound(link, eventLoop: channel.eventLoop)
    state.withLock { $0.links[number] = bound }
    link.onClose = { [weak self] in _ = self?.state.withLock { $0.links[number] = nil } }
    let client = RelayHandler(link: link, side: .client)
    do {
      try channel.pipeline.syncOperations.addHandler(client)
    } catch {
      channel.close(promise: nil)
      return
    }
    link.attach(client, side: .client)
    ClientBootstrap(group: channel.eventLoop)
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
      .connectTimeout(.seconds(2))
      .channelInitializer { server in
        server.eventLoop.makeCompletedFuture {
          let handler = RelayHandler(link: bound.value, side: .server)
          try server.pipeline.syncOperations.addHandler(handler)
          bound.value.attach(handler, side: .server)
        }
      }
      .connect(to: upstream)
      .whenComplete { result in
        switch result {
        case .success: bound.value.connected()
        // The server is down (killed, restarting): the client sees its connection closed.
        case .failure: bound.value.close()
        }
      }
  }

  private func count(_ fault: ChaosFault) {
    state.withLock { $0.counts[fault, default: 0] += 1 }
  }
}

/// The two channels of one proxied connection and its fault. It lives on their event loop (the
/// server side is connected on the client side's loop), and is only touched there.
final class Link {
  private let fault: ConnectionFault
  /// Where inside its frame a cut falls: random bits drawn when the connection was accepted.
  private let cutPoint: UInt64
  private let eventLoop: any EventLoop
  private let count: (ChaosFault) -> Void
  var onClose: (() -> Void)?
  private var handlers: [Side: RelayHandler] = [:]
  private var scanners: [Side: FrameScanner] = [.client: FrameScanner(), .server: FrameScanner()]
  private var isConnected = false
  /// Nothing more is read: a fault fired or a side closed. What is still held for a delay is
  /// delivered, then both sides close.
  private var isEnding = false
  /// Both sides are closed, or closing.
  private var isClosed = false
  /// Dropping: the server's bytes are swallowed until its frame `frame` is whole.
  private var swallowingUntil: Int?
  private var delayCounted = false
  private var held: [(target: Side, bytes: ByteBuffer, due: NIODeadline)] = []
  private var deliveryScheduled = false

  init(
    fault: ConnectionFault, cutPoint: UInt64, eventLoop: any EventLoop,
    count: @escaping (ChaosFault) -> Void
  ) {
    self.fault = fault
    self.cutPoint = cutPoint
    self.eventLoop = eventLoop
    self.count = count
  }

  func attach(_ handler: RelayHandler, side: Side) {
    handlers[side] = handler
  }

  /// The server side is connected: both sides may read.
  func connected() {
    guard !isEnding else {
      handlers[.server]?.close()
      return
    }
    isConnected = true
    handlers[.client]?.resumeReading()
    handlers[.server]?.resumeReading()
  }

  /// Whether `side` may read: the link is up and the other side can take more.
  func mayRead(_ side: Side) -> Bool {
    isConnected && !isEnding && (handlers[side.other]?.isWritable ?? false)
  }

  /// `side` can take more again: the other side may read.
  func writable(_ side: Side) {
    handlers[side.other]?.resumeReading()
  }

  /// Bytes arrived from `side`.
  func received(_ buffer: ByteBuffer, from side: Side) {
    guard !isEnding else { return }
    if side == .server, let frame = swallowingUntil {
      swallow(buffer, until: frame)
      return
    }
    switch fault.ending {
    case .cut(side, let frame):
      forwardCutting(buffer, from: side, inFrame: frame)
    case .drop(let frame) where side == .server:
      forwardDropping(buffer, fromFrame: frame)
    default:
      scanners[side]!.scan(buffer.readableBytesView)
      deliver(buffer, to: side.other)
    }
  }

  /// `side`'s reads are done for now: what was written to the other side goes out.
  func readComplete(_ side: Side) {
    if fault.delayMilliseconds == nil { handlers[side.other]?.flush() }
  }

  /// `side` closed: the other side is closed once what it was sent is written.
  func closed(_ side: Side) {
    end()
  }

  /// Closes both sides at once, dropping what is held.
  func close() {
    guard !isClosed else { return }
    isEnding = true
    isClosed = true
    held.removeAll()
    handlers[.client]?.close()
    handlers[.server]?.close()
    onClose?()
  }

  /// Sends `buffer` to `target`, now or after the connection's delay.
  private func deliver(_ buffer: ByteBuffer, to target: Side) {
    guard let milliseconds = fault.delayMilliseconds else {
      handlers[target]?.write(buffer)
      return
    }
    if !delayCounted {
      delayCounted = true
      count(.delay)
    }
    held.append((target, buffer, .now() + .milliseconds(Int64(milliseconds))))
    scheduleDelivery()
  }

  /// Reads nothing more; once what is held is delivered, closes both sides after their writes.
  private func end() {
    guard !isEnding else { return }
    isEnding = true
    handlers[.client]?.stopReading()
    handlers[.server]?.stopReading()
    if held.isEmpty { closeAfterWrites() }
  }

  private func closeAfterWrites() {
    guard !isClosed else { return }
    isClosed = true
    // Each side closes once its own writes are out (a cut's prefix included).
    handlers[.client]?.closeAfterWrites()
    handlers[.server]?.closeAfterWrites()
    onClose?()
  }

  /// Forwards `buffer` from `side`, cutting inside that side's frame `frame` when it comes.
  private func forwardCutting(_ buffer: ByteBuffer, from side: Side, inFrame frame: Int) {
    let bytes = buffer.readableBytesView
    var cutAt: Int?
    let count = bytes.count
    let cutPoint = self.cutPoint
    scanners[side]!.scan(bytes) { event in
      guard case .header(let start, let size, frame) = event else { return true }
      // Strictly inside the frame (at least one byte of it sent, at least one kept), at or
      // after what earlier chunks sent of it, and within this chunk.
      let lowest = max(1, -start)
      let highest = min(size - 1, count - start)
      cutAt = start + lowest + Int(cutPoint % UInt64(highest - lowest + 1))
      return false
    }
    guard let cutAt else {
      deliver(buffer, to: side.other)
      return
    }
    deliver(buffer.getSlice(at: buffer.readerIndex, length: cutAt)!, to: side.other)
    self.count(side == .client ? .cutRequest : .cutAnswer)
    end()
  }

  /// Forwards the server's `buffer` up to the start of its frame `frame`, then swallows.
  private func forwardDropping(_ buffer: ByteBuffer, fromFrame frame: Int) {
    var startsAt: Int?
    scanners[.server]!.scan(buffer.readableBytesView) { event in
      guard case .started(let at, frame) = event else { return true }
      startsAt = at
      return false
    }
    guard let startsAt else {
      deliver(buffer, to: .client)
      return
    }
    if startsAt > 0 {
      deliver(buffer.getSlice(at: buffer.readerIndex, length: startsAt)!, to: .client)
    }
    swallowingUntil = frame
    swallow(
      buffer.getSlice(
        at: buffer.readerIndex + startsAt, length: buffer.readableBytes - startsAt)!,
      until: frame)
  }

  /// Swallows the server's `buffer`; once its frame `frame` is whole, cuts.
  private func swallow(_ buffer: ByteBuffer, until frame: Int) {
    scanners[.server]!.scan(buffer.readableBytesView)
    if scanners[.server]!.framesCompleted >= frame {
      count(.dropAnswer)
      end()
    }
  }

  private func scheduleDelivery() {
    guard !deliveryScheduled, let first = held.first else { return }
    deliveryScheduled = true
    eventLoop.scheduleTask(deadline: first.due) { [self] in
      deliveryScheduled = false
      guard !isClosed else { return }
      let now = NIODeadline.now()
      var targets = Set<Side>()
      while let next = held.first, next.due <= now {
        held.removeFirst()
        handlers[next.target]?.write(next.bytes)
        targets.insert(next.target)
      }
      for target in targets { handlers[target]?.flush() }
      if held.isEmpty && isEnding {
        closeAfterWrites()
      } else {
        scheduleDelivery()
      }
    }
  }
}

/// One side of a proxied connection: hands what it reads to the link and writes what the link
/// sends, reading only while the other side can take more.
final class RelayHandler: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let link: Link
  private let side: Side
  private var context: ChannelHandlerContext?
  private var readPending = false
  private var reading = true

  init(link: Link, side: Side) {
    self.link = link
    self.side = side
  }

  var isWritable: Bool { context?.channel.isWritable ?? false }

  func handlerAdded(context: ChannelHandlerContext) { self.context = context }

  func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    link.received(unwrapInboundIn(data), from: side)
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    link.readComplete(side)
  }

  func channelInactive(context: ChannelHandlerContext) {
    link.closed(side)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable { link.writable(side) }
    context.fireChannelWritabilityChanged()
  }

  func read(context: ChannelHandlerContext) {
    if reading && link.mayRead(side) {
      context.read()
    } else {
      readPending = true
    }
  }

  /// Reads again if a read was held back.
  func resumeReading() {
    guard readPending, reading, let context, link.mayRead(side) else { return }
    readPending = false
    context.read()
  }

  /// Reads nothing more.
  func stopReading() { reading = false }

  func write(_ buffer: ByteBuffer) {
    guard buffer.readableBytes > 0 else { return }
    context?.write(wrapOutboundOut(buffer), promise: nil)
  }

  func flush() { context?.flush() }

  /// Closes once what was written has gone out, then runs `then`.
  func closeAfterWrites(then: (() -> Void)? = nil) {
    guard let context else {
      then?()
      return
    }
    context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in
      context.close(promise: nil)
      then?()
    }
  }

  func close() { context?.close(promise: nil) }
}
