import NIOCore

/// Runs Swift tasks on one NIO event loop. A task that prefers it runs on the thread that reads
/// and writes its connection, so a call that does not wait on other work crosses no thread: the
/// loop runs it between reads, and its answer is written without waking another thread.
final class EventLoopTaskExecutor: TaskExecutor {
  /// The loop the tasks run on.
  let eventLoop: any EventLoop

  init(_ eventLoop: any EventLoop) {
    self.eventLoop = eventLoop
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
