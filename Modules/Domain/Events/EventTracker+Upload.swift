import Foundation
import KeelConcurrency
import Logging
import Networking
import Persistence

extension EventTracker {
  /// What one upload got.
  enum Sent {
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
  func upload(_ batch: Batch) async -> RoundOutcome {
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
  struct Culprit {
    let entry: Batch.Element
    let status: Int
    let error: NetworkError
  }

  /// Sends the halves of a refused `batch` on their own, recursively; collects the events still refused alone.
  func isolate(
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
  func send(_ batch: Batch) async -> Sent {
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
  func deadLetter(_ entry: Batch.Element, reason: String) async -> RoundOutcome? {
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
  func failed(_ batch: Batch, error: any Error) async -> RoundOutcome {
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
}
