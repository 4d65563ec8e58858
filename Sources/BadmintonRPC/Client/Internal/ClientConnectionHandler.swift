import NIOCore
import Synchronization

/// The client end of one connection: matches answers to open calls by call id, enforces each
/// call's deadline locally, answers PING, sends keepalive PINGs while calls are open, and fails
/// every open call with UNAVAILABLE when the connection is lost.
///
/// All state lives on the connection's event loop; the first event that ends a call removes it
/// from `calls`, so each call gets exactly one outcome.
///
/// The handler writes frames itself (`FrameEncoder`'s lean form: each request's payload, encoded
/// once by its serializer, copied into the frame around the envelope's other fields) into one
/// buffer that collects what the event loop's current turn writes and leaves in one flush.
final class ClientConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = ReceivedEnvelope
  typealias OutboundOut = ByteBuffer

  enum Pending {
    case unary(UnsafeContinuation<ByteBuffer, any Error>)
    case stream(AsyncThrowingStream<[UInt8], any Error>.Continuation)

    func fail(_ error: any Error) {
      switch self {
      case .unary(let continuation): continuation.resume(throwing: error)
      case .stream(let continuation): continuation.finish(throwing: error)
      }
    }
  }

  private struct Call {
    let pending: Pending
    var deadline: Scheduled<Void>?
  }

  private var context: ChannelHandlerContext!
  private var calls: [UInt64: Call] = [:]
  private var pings: [[UInt8]: CheckedContinuation<Void, any Error>] = [:]
  private var closed = false
  /// Whether a flush is queued on the event loop.
  private var flushQueued = false
  /// The frames written since the last flush; its storage is reused once the socket has taken
  /// them.
  private var outbound = ByteBuffer()
  /// The requests in `outbound`.
  private var framesSinceFlush = 0
  private let encoder: FrameEncoder
  let flags: ConnectionFlags

  init(flags: ConnectionFlags, wire: WireConfiguration) {
    self.flags = flags
    self.encoder = FrameEncoder(configuration: wire)
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    outbound = context.channel.allocator.buffer(capacity: 4096)
  }

  // MARK: Calls

  func startCall(
    _ callID: UInt64, method: String, payload: ByteBuffer, metadata: [Metadata],
    timeout: Duration?, pending: Pending
  ) {
    guard !closed else { return pending.fail(RPCError.connectionLost) }
    var call = Call(pending: pending)
    var timeoutMs: UInt32 = 0
    if let timeout {
      let milliseconds = max(
        1,
        timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
      timeoutMs = UInt32(clamping: milliseconds)
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      call.deadline = context.eventLoop.scheduleTask(in: .milliseconds(Int64(timeoutMs))) {
        handler.value.end(callID, with: .deadlineExceeded)
      }
    }
    calls[callID] = call
    encoder.encode(
      EnvelopeWriter.Fields(
        callID: callID, kind: .request, method: method, timeout: timeoutMs,
        metadata: metadata),
      payload: payload, into: &outbound)
    framesSinceFlush += 1
    // A call alone on the connection leaves at once. Many calls started in one turn leave in
    // parts, so that the server works on the first while the later ones are still being written.
    if calls.count == 1 || framesSinceFlush >= Self.framesPerFlush {
      flushNow()
    } else {
      flushSoon()
    }
  }

  /// The largest write buffer kept for the next frames once its frames have been flushed.
  static let keptOutboundCapacity = 64 * 1024

  /// The most requests the handler collects before it flushes within one event loop turn.
  static let framesPerFlush = 16

  /// Adds a frame with `fields` and `payload` to what the next flush sends.
  private func enqueue(_ fields: EnvelopeWriter.Fields, payload: [UInt8] = []) {
    payload.withUnsafeBytes { encoder.encode(fields, payload: $0, into: &outbound) }
  }

  /// Writes the frames collected since the last flush and flushes them.
  private func flushNow() {
    framesSinceFlush = 0
    guard outbound.readableBytes > 0 else { return }
    context.writeAndFlush(wrapOutboundOut(outbound), promise: nil)
    if outbound.capacity > Self.keptOutboundCapacity || !context.channel.isWritable {
      // A large request does not keep its memory for the connection's life; and while the socket
      // holds frames it has not sent, the next frames start a small buffer of their own rather
      // than a copy of this one's capacity (`clear()` copies storage a pending write shares).
      outbound = context.channel.allocator.buffer(capacity: 4096)
    } else {
      // Unless the socket still holds the frames, their storage is reused for the next ones.
      outbound.clear()
    }
  }

  /// Flushes once the event loop has run the tasks already queued, so that the requests those
  /// tasks write leave together, in one system call.
  private func flushSoon() {
    guard !flushQueued else { return }
    flushQueued = true
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    context.eventLoop.execute {
      handler.value.flushQueued = false
      handler.value.flushNow()
    }
  }

  /// Ends an open call on this side with `error` and tells the server to stop its work.
  func end(_ callID: UInt64, with error: RPCError) {
    guard let call = calls.removeValue(forKey: callID) else { return }
    call.deadline?.cancel()
    call.pending.fail(error)
    if !closed {
      enqueue(EnvelopeWriter.Fields(callID: callID, kind: .cancel))
      flushNow()
    }
  }

  func ping(_ payload: [UInt8], continuation: CheckedContinuation<Void, any Error>) {
    guard !closed else { return continuation.resume(throwing: RPCError.connectionLost) }
    pings[payload] = continuation
    enqueue(EnvelopeWriter.Fields(callID: 0, kind: .ping), payload: payload)
    flushNow()
  }

  func close() {
    context.close(promise: nil)
  }

  // MARK: Inbound

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let envelope = unwrapInboundIn(data)
    switch envelope.kind {
    case .response, .streamEnd:
      guard let call = calls.removeValue(forKey: envelope.callID) else { return }
      defer {
        if calls.isEmpty && flags.goAwayReceived.load(ordering: .acquiring) {
          context.close(promise: nil)
        }
      }
      call.deadline?.cancel()
      let status = envelope.status ?? .ok
      switch call.pending {
      case .unary(let continuation):
        if status.code == .ok {
          continuation.resume(returning: envelope.payload)
        } else {
          continuation.resume(throwing: RPCError(status: status))
        }
      case .stream(let continuation):
        if status.code == .ok {
          continuation.finish()
        } else {
          continuation.finish(throwing: RPCError(status: status))
        }
      }
    case .streamMessage:
      if case .stream(let continuation)? = calls[envelope.callID]?.pending {
        continuation.yield(Array(envelope.payload.readableBytesView))
      }
    case .ping:
      enqueue(
        EnvelopeWriter.Fields(callID: envelope.callID, kind: .pong),
        payload: Array(envelope.payload.readableBytesView))
      flushNow()
    case .pong:
      pings.removeValue(forKey: Array(envelope.payload.readableBytesView))?.resume()
    case .goaway:
      // Calls in flight go on; new calls go to a new connection. With none in flight this one
      // has nothing left to do.
      flags.goAwayReceived.store(true, ordering: .releasing)
      if envelope.status?.reason == RPCError.tlsRequired.reason {
        // A TLS-only server read none of the calls: they fail with its reason.
        failAll(with: .tlsRequired)
      }
      if calls.isEmpty { context.close(promise: nil) }
    default:
      break
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case IdleStateHandler.IdleStateEvent.write = event {
      if !calls.isEmpty && !closed {
        enqueue(EnvelopeWriter.Fields(callID: 0, kind: .ping), payload: Array("keepalive".utf8))
        flushNow()
      }
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A server that breaks the protocol, or a socket error: this connection is done.
    context.close(promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    closed = true
    flags.goAwayReceived.store(true, ordering: .releasing)
    failAll(with: RPCError.connectionLost)
    context.fireChannelInactive()
  }

  /// Fails every open call and PING with `error`.
  private func failAll(with error: RPCError) {
    let open = calls
    calls.removeAll()
    for call in open.values {
      call.deadline?.cancel()
      call.pending.fail(error)
    }
    let waiting = pings
    pings.removeAll()
    for ping in waiting.values { ping.resume(throwing: error) }
  }
}

/// What the client's connection pool reads of a connection from any thread.
final class ConnectionFlags: Sendable {
  /// Set when the server sent GOAWAY or the connection closed: no new calls go here.
  let goAwayReceived = Atomic<Bool>(false)
}
