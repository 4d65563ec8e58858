public import HummingbirdCore
public import Logging
public import NIOCore

/// A console connection's setup: its `ConnectionGuard` first, then `base`'s (TLS, then HTTP/1.1).
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
  typealias Value = Base.Value

  let base: Base
  let table: ConnectionTable
  let limits: ConnectionGuard.Limits

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.addHandler(
        ConnectionGuard(table: table, limits: limits))
    }.flatMap {
      base.setup(channel: channel, logger: logger)
    }
  }

  func handle(value: Value, logger: Logger) async {
    await base.handle(value: value, logger: logger)
  }
}
