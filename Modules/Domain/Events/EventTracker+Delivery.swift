import Foundation
import KeelConcurrency
import Logging
import Networking
import Persistence

extension EventTracker {
  /// What a delivery round ended with.
  enum RoundOutcome {
    /// Nothing due is left.
    case drained
    /// An upload failed, or the next events are not due yet: wait until then.
    case retry(at: Date)
    /// Offline, or shutting down: stop the round.
    case stopped
  }

  /// The uploader: waits for a reason to upload (enough events, the interval, a flush, a retry falling due, events
  /// left by an earlier run; only a flush and its retries when it does not deliver on its own), then uploads every
  /// due event, one batch at a time.
  func deliver() async {
    let automatic = configuration.deliversOnItsOwn
    var recovering = await startup.value > 0 && automatic
    var retrying = false
    var pausedUntil: Date?
    var nextInterval = elapsed() + configuration.flushInterval
    while !Task.isCancelled {
      guard status.isOnline else {
        // Back online, everything pending goes at once (E6), whatever the triggers say.
        recovering = automatic
        finishFlushes()
        await waitForWake(orAfter: nil)
        continue
      }
      let (flushing, tracked) = control.withLock { ($0.flushRequested, $0.trackedSinceUpload) }
      // An explicit flush sends now, whatever retry date an earlier failure set: the app asked for it.
      if let paused = pausedUntil, now() < paused, !flushing {
        finishFlushes()
        await waitForWake(orAfter: .milliseconds(Int64((paused.timeIntervalSince(now()) * 1_000).rounded(.up))))
        continue
      }
      if pausedUntil != nil {
        pausedUntil = nil
        retrying = true
      }
      let intervalDue = automatic && elapsed() >= nextInterval
      let countDue = automatic && tracked >= configuration.flushCount
      guard flushing || recovering || retrying || intervalDue || countDue else {
        await waitForWake(orAfter: automatic ? nextInterval - elapsed() : nil)
        continue
      }
      let waiters = control.withLock { control in
        control.flushRequested = false
        control.trackedSinceUpload = 0
        defer { control.flushWaiters = [] }
        return control.flushWaiters
      }
      let outcome = await round(includingNotYetDue: flushing)
      nextInterval = elapsed() + configuration.flushInterval
      switch outcome {
      case .drained:
        recovering = false
        retrying = false
        broadcast.update { $0.nextRetry = nil }
      case .retry(let date):
        pausedUntil = date
      case .stopped:
        break
      }
      for waiter in waiters { waiter.resume() }
    }
    finishFlushes()
  }

  /// Uploads every due event, oldest first, one batch at a time, until none is due or an upload fails; with
  /// `includingNotYetDue` (an explicit flush), the events still waiting for a retry date too.
  private func round(includingNotYetDue: Bool) async -> RoundOutcome {
    while !Task.isCancelled {
      guard status.isOnline else { return .stopped }
      let items: [QueuedItem<AnalyticsEvent>]
      do {
        var due = try await queue.peek(
          limit: configuration.maxBatchCount, now: includingNotYetDue ? .distantFuture : now())
        if due.isEmpty {
          // Events released by an earlier failure (maybe in an earlier run) wait for their retry date.
          guard let next = try await queue.nextNotBefore(), next > now() else { return .drained }
          if next > now().addingTimeInterval(DeliveryBackoff.seconds(longestWait)) {
            // Further away than any delay this tracker sets: the device's clock went back since. Due now.
            logger.warning("Events were due at \(next), further than any retry delay: the clock moved; sending now.")
            due = try await queue.peek(limit: configuration.maxBatchCount, now: next)
          } else {
            broadcast.update { $0.nextRetry = next }
            return .retry(at: next)
          }
        }
        items = due
      } catch {
        return storageFailure(error)
      }
      let outcome = await upload(batch(of: items))
      guard case .drained = outcome else { return outcome }
    }
    return .stopped
  }

  /// The longest prefix of `items` whose upload fits in the byte limit, each with its encoded form; at least one.
  private func batch(of items: [QueuedItem<AnalyticsEvent>]) -> Batch {
    var batch: Batch = []
    var bytes = EventsRouter.envelopeBytes(events: items.count)
    for item in items {
      // An event encodes: its properties were checked when it was tracked.
      let json = (try? EventsRouter.encode(item.element, format: configuration.wireFormat)) ?? Data("{}".utf8)
      if !batch.isEmpty && bytes + json.count > configuration.batchBytes { break }
      bytes += json.count
      batch.append((item, json))
    }
    return batch
  }

  func storageFailure(_ error: any Error) -> RoundOutcome {
    logger.error("The event queue failed: \(error)")
    let retryAt = now().addingTimeInterval(DeliveryBackoff.seconds(configuration.maxRetryDelay))
    broadcast.update {
      $0.lastError = "The event queue failed: \(error)"
      $0.lastFailure = nil
      $0.nextRetry = retryAt
    }
    return .retry(at: retryAt)
  }

  /// Reads the counts kept on disk into the status; returns how many events are pending.
  static func loadCounts(
    of queue: DurableQueue<AnalyticsEvent>, into broadcast: Broadcast<DeliveryStatus>, logger: Logger
  ) async -> Int {
    do {
      let statistics = try await queue.statistics()
      broadcast.update {
        $0.pending = statistics.pending
        $0.deadLettered = statistics.deadLetters
        $0.deadLettersDropped = statistics.deadLettersDropped
        $0.dropped = statistics.dropped
      }
      return statistics.pending
    } catch {
      logger.error("Cannot read the event queue's counts: \(error)")
      return 1
    }
  }

  /// Answers every waiting ``flush()``: delivery cannot go on for now.
  func finishFlushes() {
    let waiters = control.withLock { control in
      control.flushRequested = false
      defer { control.flushWaiters = [] }
      return control.flushWaiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
