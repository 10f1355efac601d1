import Foundation
import KeelConcurrency
import Persistence

extension EventTracker {
  /// The events set aside because the server refused them on their own, oldest first (REQUIREMENTS E12).
  ///
  /// - Parameter limit: The most returned.
  /// - Throws: `EventTrackerError.Kind.storage` when the queue cannot be read.
  public func deadLetters(limit: Int = 100) async throws -> [SetAsideEvent] {
    do {
      return try await queue.deadLetters(limit: limit).map(SetAsideEvent.init)
    } catch {
      throw EventTrackerError(.storage, "Cannot read the dead letters: \(error)", underlying: error)
    }
  }

  /// Puts the dead letters with these ids (every one for `nil`) back into delivery, at the back of the queue, for the
  /// next upload: once the server that refused them is fixed (REQUIREMENTS E12).
  ///
  /// - Returns: How many went back.
  /// - Throws: ``EventTrackerError``: `EventTrackerError.Kind.queueFull` when they do not fit (none went back), or
  ///   `EventTrackerError.Kind.storage`.
  @discardableResult
  public func requeueDeadLetters(_ ids: [Int64]? = nil) async throws -> Int {
    _ = await startup.value
    let moved: Int
    do {
      if let ids {
        moved = try await queue.requeueDeadLetters(ids)
      } else {
        moved = try await queue.requeueAllDeadLetters()
      }
    } catch let error as PersistenceError where error.kind == .capacityExceeded {
      throw EventTrackerError(.queueFull, "The dead letters do not fit back in the queue: \(error)", underlying: error)
    } catch {
      throw EventTrackerError(.storage, "Cannot re-queue the dead letters: \(error)", underlying: error)
    }
    broadcast.update {
      $0.pending += moved
      $0.deadLettered -= moved
    }
    if moved > 0 { wake() }
    return moved
  }

  /// Uploads until every pending event is delivered, or `timeout` has passed on the tracker's clock, whichever comes
  /// first: for the end of a command-line run, a test, the app going to the background, or a server shutting down.
  ///
  /// It flushes once (everything pending goes now), then follows the uploader, which retries a failed upload at its
  /// retry date and resumes when the network returns. Events the server refuses on their own are set aside and do
  /// not hold the drain up.
  ///
  /// - Returns: `true` when nothing is pending; `false` when the time ran out first (``status`` says why; the events
  ///   stay stored).
  @discardableResult
  public func drain(timeout: Duration) async -> Bool {
    let outcome = OneShot<Bool>()
    let updates = deliveryStatus
    let delivery = Task { [weak self] in
      guard let self else { return }
      guard await flush().status.pending > 0 else {
        outcome.fulfill(true)
        return
      }
      for await status in updates where status.pending == 0 {
        outcome.fulfill(true)
        return
      }
    }
    let deadline = Task { [sleep] in
      try? await sleep(timeout)
      outcome.fulfill(false)
    }
    let drained = await outcome.value()
    delivery.cancel()
    deadline.cancel()
    return drained
  }
}
