import NIOCore

/// Fires `IdleStateHandler.IdleStateEvent.read` when nothing was read for `readTimeout`, and
/// `.write` when no write completed for `writeTimeout`, again after every further such period.
///
/// NIO's `IdleStateHandler` does the same but reads the system clock; this one reads the event
/// loop's clock (`EventLoop.now`), which on a real loop is the same clock and on an
/// `EmbeddedEventLoop` is the time the test moves with `advanceTime(by:)`. The server's idle
/// timeout and the client's keepalive are thus checked without waiting for real time.
final class IdleEventHandler: ChannelDuplexHandler {
  typealias InboundIn = NIOAny
  typealias InboundOut = NIOAny
  typealias OutboundIn = NIOAny
  typealias OutboundOut = NIOAny

  private let readTimeout: TimeAmount?
  private let writeTimeout: TimeAmount?
  private var context: ChannelHandlerContext?
  private var started = false
  /// Set between a read and the end of its batch; the batch's end counts as the read's time.
  private var reading = false
  private var lastRead = NIODeadline.uptimeNanoseconds(0)
  private var lastWrite = NIODeadline.uptimeNanoseconds(0)
  private var readTimer: Scheduled<Void>?
  private var writeTimer: Scheduled<Void>?

  init(readTimeout: TimeAmount? = nil, writeTimeout: TimeAmount? = nil) {
    self.readTimeout = readTimeout
    self.writeTimeout = writeTimeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    if context.channel.isActive { start(context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    stop()
    self.context = nil
  }

  func channelActive(context: ChannelHandlerContext) {
    start(context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    stop()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    reading = true
    context.fireChannelRead(data)
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    if reading {
      lastRead = context.eventLoop.now
      reading = false
    }
    context.fireChannelReadComplete()
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard writeTimeout != nil else { return context.write(data, promise: promise) }
    let loop = context.eventLoop
    let promise = promise ?? loop.makePromise()
    let handler = NIOLoopBound(self, eventLoop: loop)
    promise.futureResult.hop(to: loop).whenComplete { _ in handler.value.lastWrite = loop.now }
    context.write(data, promise: promise)
  }

  private func start(_ context: ChannelHandlerContext) {
    guard !started else { return }
    started = true
    let now = context.eventLoop.now
    lastRead = now
    lastWrite = now
    if let readTimeout { readTimer = schedule(at: now + readTimeout, read: true) }
    if let writeTimeout { writeTimer = schedule(at: now + writeTimeout, read: false) }
  }

  private func stop() {
    readTimer?.cancel()
    writeTimer?.cancel()
    readTimer = nil
    writeTimer = nil
  }

  private func schedule(at deadline: NIODeadline, read: Bool) -> Scheduled<Void>? {
    guard let context else { return nil }
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    return context.eventLoop.scheduleTask(deadline: deadline) {
      handler.value.timerFired(read: read)
    }
  }

  /// Fires the event when the whole period passed without a read (write), and sets the next
  /// check one period after the latest read (write).
  private func timerFired(read: Bool) {
    guard let context, context.channel.isActive,
      let timeout = read ? readTimeout : writeTimeout
    else { return }
    let now = context.eventLoop.now
    let last = read ? lastRead : lastWrite
    let idle = !(read && reading) && now - last >= timeout
    let next = idle || (read && reading) ? now + timeout : last + timeout
    if read {
      readTimer = schedule(at: next, read: true)
    } else {
      writeTimer = schedule(at: next, read: false)
    }
    if idle {
      context.fireUserInboundEventTriggered(
        read ? IdleStateHandler.IdleStateEvent.read : IdleStateHandler.IdleStateEvent.write)
    }
  }
}
