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

  /// What one upload got.
  private enum Sent {
    /// The server acknowledged every event; they are deleted.
    case accepted
    /// The server refused the batch whole as too large (413) or malformed (400).
    case refused(status: Int, error: NetworkError)
    /// The round ends with this.
    case ended(RoundOutcome)
  }

  /// One batch as the uploader keeps it: each queued event with its encoded form.
  typealias Batch = [(item: QueuedItem<AnalyticsEvent>, json: Data)]

  /// Uploads `batch`. A batch refused as too large or malformed is split until the culprits are alone (REQUIREMENTS
  /// E12). A culprit the server refused with a reason of its own (an error body it wrote) is dead-lettered with it:
  /// it would be refused again forever. One refused without a reason the tracker can read (a proxy's page, a body
  /// from no API) is retried later instead: whatever refused it is not the ingestion API speaking.
  private func upload(_ batch: Batch) async -> RoundOutcome {
    switch await send(batch) {
    case .accepted:
      return .drained
    case .ended(let outcome):
      return outcome
    case .refused(let status, let error):
      var culprits: [Culprit] = []
      let outcome = await isolate(batch, status: status, error: error, culprits: &culprits)
      var unexplained: Batch = []
      var lastUnexplained: NetworkError?
      for culprit in culprits {
        guard let serverError = culprit.error.serverError else {
          unexplained.append(culprit.entry)
          lastUnexplained = culprit.error
          continue
        }
        let reason = "HTTP \(culprit.status): \(serverError.message.isEmpty ? serverError.code : serverError.message)"
        if let stop = await deadLetter(culprit.entry, reason: reason) { return stop }
      }
      if let lastUnexplained { return await failed(unexplained, error: lastUnexplained) }
      return outcome
    }
  }

  /// An event refused alone, with the refusal.
  private struct Culprit {
    let entry: Batch.Element
    let status: Int
    let error: NetworkError
  }

  /// Sends the halves of a refused `batch` on their own, recursively; collects the events still refused alone.
  private func isolate(
    _ batch: Batch, status: Int, error: NetworkError, culprits: inout [Culprit]
  ) async -> RoundOutcome {
    guard batch.count > 1 else {
      if let only = batch.first { culprits.append(Culprit(entry: only, status: status, error: error)) }
      return .drained
    }
    let middle = batch.count / 2
    for half in [Array(batch[..<middle]), Array(batch[middle...])] {
      switch await send(half) {
      case .accepted:
        break
      case .ended(let outcome):
        return outcome
      case .refused(let status, let error):
        let outcome = await isolate(half, status: status, error: error, culprits: &culprits)
        guard case .drained = outcome else { return outcome }
      }
    }
    return .drained
  }

  /// One upload of `batch`, acknowledged and counted when the server took it.
  private func send(_ batch: Batch) async -> Sent {
    let ids = batch.map(\.item.id)
    let format = configuration.wireFormat
    let endpoint = EventsRouter(
      baseURL: baseURL, apiToken: apiToken,
      batch: EventsRouter.batchBody(batch.map(\.json), sentAt: now(), format: format),
      timeout: configuration.uploadTimeout, format: format)
    do {
      let receipt = try await client.send(
        APIRequest(endpoint) { try EventsRouter.Receipt(of: $0, events: ids.count, format: format) })
      // Only the ingestion API's own receipt for every event counts: a 200 from a captive portal or a catch-all page
      // must not delete events that never reached it (E2).
      guard receipt.accepted + receipt.duplicates == ids.count else {
        let error = NetworkError(
          .decoding, "The server acknowledged \(receipt.accepted + receipt.duplicates) of \(ids.count) events.")
        return .ended(await failed(batch, error: error))
      }
      // Events the overflow policy dropped while they were in flight are no longer on disk: only those deleted here
      // leave `pending` now (the drop already took the others off).
      var deleted = 0
      do {
        deleted = try await queue.acknowledge(ids)
      } catch {
        // Delivered but still on disk: they go again later and the server counts them as duplicates (E9).
        logger.warning("Delivered \(ids.count) events but could not delete them; they will be resent: \(error)")
      }
      broadcast.update {
        $0.pending -= deleted
        $0.delivered += ids.count
        $0.duplicates += receipt.duplicates
        $0.lastError = nil
        $0.lastFailure = nil
        $0.nextRetry = nil
      }
      return .accepted
    } catch let error as NetworkError {
      // A transport's own "cancelled" (a rejected certificate, say) is a failure to retry; only shutting down stops.
      if Task.isCancelled { return .ended(.stopped) }
      if let status = error.statusCode, status == 413 || status == 400 { return .refused(status: status, error: error) }
      return .ended(await failed(batch, error: error))
    } catch {
      return .ended(Task.isCancelled ? .stopped : await failed(batch, error: error))
    }
  }

  /// Takes a refused event out of delivery for good, with the reason; `nil` unless the queue failed.
  private func deadLetter(_ entry: Batch.Element, reason: String) async -> RoundOutcome? {
    let outcome: DeadLettering
    do {
      outcome = try await queue.deadLetter([entry.item.id], reason: reason)
    } catch {
      return storageFailure(error)
    }
    let event = "Event \(entry.item.element.name) (\(entry.item.element.eventId))"
    if outcome.dropped > 0 {
      logger.error(
        "\(event) was refused and is lost: the dead letters are full (\(configuration.deadLetterCapacity)): \(reason)")
    } else {
      logger.error("\(event) was dead-lettered: \(reason)")
    }
    let setAside = SetAsideEvent(id: entry.item.id, event: entry.item.element, reason: reason, setAsideAt: now())
    control.withLock { $0.setAside.append(setAside, kept: outcome.dropped == 0) }
    broadcast.update {
      $0.pending -= outcome.moved
      $0.deadLettered += outcome.kept
      $0.deadLettersDropped += outcome.dropped
    }
    return nil
  }

  /// A failed upload: the batch waits for its retry date, stored with its events.
  private func failed(_ batch: Batch, error: any Error) async -> RoundOutcome {
    let attempt = (batch.map(\.item.attempts).max() ?? 0) + 1
    let retryAfter = (error as? NetworkError).flatMap { RetryAfter.delay(in: $0, now: now()) }
    let delay = DeliveryBackoff.delay(
      attempt: attempt, base: configuration.baseRetryDelay, max: configuration.maxRetryDelay, retryAfter: retryAfter,
      random: random())
    let retryAt = now().addingTimeInterval(DeliveryBackoff.seconds(delay))
    do {
      try await queue.release(batch.map(\.item.id), retryAt: retryAt)
    } catch {
      logger.warning("Could not store the retry date of \(batch.count) events: \(error)")
    }
    logger.warning("Upload of \(batch.count) events failed (attempt \(attempt)); retry at \(retryAt): \(error)")
    broadcast.update {
      $0.lastError = "\(error)"
      $0.lastFailure = (error as? NetworkError).map(RequestFailure.init)
      $0.nextRetry = retryAt
    }
    return .retry(at: retryAt)
  }

  private func storageFailure(_ error: any Error) -> RoundOutcome {
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
