import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// Stops accepting for a while when accepting fails for lack of descriptors or memory, instead
/// of retrying at once in a busy loop.
///
/// NIO's own `AcceptBackoffHandler` cannot do it here: it delays the listener's next `read`, but
/// a listener whose accepts all fail never asks for one (its read stays pending), so it stays
/// registered for readability and the level-triggered poll wakes it again at once. This handler
/// turns `autoRead` off, which takes the listener out of the poll, and on again after the pause.
final class AcceptPauseHandler: ChannelInboundHandler {
  typealias InboundIn = any Channel
  typealias InboundOut = any Channel

  /// How long accepting pauses after running out of descriptors or memory.
  static let pause = TimeAmount.seconds(1)

  private let onPause: (IOError) -> Void
  private var resume: Scheduled<Void>?

  /// A handler that calls `onPause` at the start of each pause.
  init(onPause: @escaping (IOError) -> Void) { self.onPause = onPause }

  /// Whether `error` says the process or system ran out of descriptors or memory.
  static func isExhaustion(_ error: IOError) -> Bool {
    [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    guard let ioError = error as? IOError, Self.isExhaustion(ioError) else {
      return context.fireErrorCaught(error)
    }
    guard resume == nil, let options = context.channel.syncOptions else { return }
    _ = try? options.setOption(.autoRead, value: false)
    onPause(ioError)
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    let channel = context.channel
    resume = context.eventLoop.scheduleTask(in: Self.pause) {
      handler.value.resume = nil
      _ = try? channel.syncOptions?.setOption(.autoRead, value: true)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    resume?.cancel()
    resume = nil
    context.fireChannelInactive()
  }
}
