import KeelBasics

extension EventTracker {
  /// Wakes the uploader: an event crossed the flush count, a flush was asked for, connectivity changed. A wake that
  /// comes while the uploader is busy is kept for its next wait.
  func wake() {
    let waiting = control.withLock { control in
      defer { control.wakeup = nil }
      if control.wakeup == nil { control.woken = true }
      return control.wakeup
    }
    waiting?.resume()
  }

  /// Returns at the next wake, after `duration` if one is given, or when the task is cancelled.
  func waitForWake(orAfter duration: Duration?) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.nextWake() }
      if let duration { group.addTask { [sleep] in try? await sleep(max(duration, .zero)) } }
      await group.next()
      group.cancelAll()
    }
  }

  private func nextWake() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = control.withLock { control in
          if control.woken || Task.isCancelled {
            control.woken = false
            return true
          }
          control.wakeup = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let waiting = control.withLock { control in
        defer { control.wakeup = nil }
        return control.wakeup
      }
      waiting?.resume()
    }
  }
}
