import NIOCore

/// A task executor that runs its jobs on one event loop: a task that prefers it continues on the loop's thread when
/// the loop resumes it, rather than on a thread of the global pool woken for the purpose.
///
/// A WebSocket connection's reading runs on it, and so can its reader (``NIOWebSocketConnection/taskExecutor``): a
/// message read from the socket is then handed from the channel to the connection's buffer and on to its reader in
/// the same turn of the loop, with no thread woken in between. Jobs enqueued from another thread are queued on the
/// loop, as any `EventLoop.execute`.
final class EventLoopTaskExecutor: TaskExecutor {
  let loop: any EventLoop

  init(_ loop: any EventLoop) {
    self.loop = loop
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
