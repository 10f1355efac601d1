import KeelConcurrency

extension EventTracker {
  /// Wakes the uploader: an event crossed the flush count, a flush was asked for, connectivity changed. A wake that
  /// comes while the uploader is busy is kept for its next wait.
  func wake() { wakeSignal.signal() }

  /// Returns at the next wake, after `duration` if one is given, or when the task is cancelled.
  func waitForWake(orAfter duration: Duration?) async { await wakeSignal.wait(orAfter: duration, sleep: sleep) }
}
