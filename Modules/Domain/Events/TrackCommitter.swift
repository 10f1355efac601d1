import Foundation
import KeelConcurrency
import Persistence

/// Commits tracked events to the queue, many per transaction when many are tracked at once (group commit): each
/// transaction costs one `fsync`, so concurrent `track` calls share it instead of waiting in line for their own.
///
/// A caller waits until the transaction holding its event is committed, so `track` still returns only once its
/// event is on disk. Events are committed in the order their calls arrived. The writer is a task of its own: a
/// cancelled caller does not cancel a transaction that holds other callers' events.
///
/// When a transaction costs microseconds (`Durability.survivesCrash`: no `fsync`), a caller that finds no writer
/// at work commits its own event, with any that wait, on its own thread: the hops to a writer task and back would
/// cost more than the write. Callers that arrive meanwhile wait for a writer task as before.
final class TrackCommitter: Sendable {
  private struct State {
    var waiting: [(payload: Data, caller: CheckedContinuation<Void, any Error>)] = []
    var isWriting = false
  }

  /// The most events in one transaction, so that one commit's latency stays bounded.
  static let maxPerTransaction = 1_000

  private let state = Locked(State())
  private let queue: DurableQueue<AnalyticsEvent>
  private let coalesces: Bool
  private let writesInline: Bool
  private let onCommit: @Sendable (_ stored: Int, _ dropped: Int) -> Void

  /// A committer into `queue`; `onCommit` learns how many events each transaction stored and how many old ones the
  /// overflow policy dropped. Under `rejectNew` every event gets a transaction of its own, so that one event's
  /// refusal is not another's. With `writesInline`, a caller that finds no writer at work commits on its own thread.
  init(
    queue: DurableQueue<AnalyticsEvent>, coalesces: Bool, writesInline: Bool,
    onCommit: @escaping @Sendable (_ stored: Int, _ dropped: Int) -> Void
  ) {
    self.queue = queue
    self.coalesces = coalesces
    self.writesInline = writesInline
    self.onCommit = onCommit
  }

  /// Returns once `payload`, an event's stored form, is committed.
  ///
  /// - Throws: the queue's `PersistenceError` when the transaction holding it failed.
  func commit(_ payload: Data) async throws {
    if writesInline, becomeWriter() { return try commitInline(payload) }
    try await withCheckedThrowingContinuation { (caller: CheckedContinuation<Void, any Error>) in
      let startsWriter = state.withLock { state in
        state.waiting.append((payload, caller))
        guard !state.isWriting else { return false }
        state.isWriting = true
        return true
      }
      if startsWriter { Task { await self.write() } }
    }
  }

  /// Whether this caller is now the writer: none was at work.
  private func becomeWriter() -> Bool {
    state.withLock { state in
      guard !state.isWriting else { return false }
      state.isWriting = true
      return true
    }
  }

  /// Commits `payload`, and those that wait, on this thread; leaves what arrives meanwhile to a writer task.
  private func commitInline(_ payload: Data) throws {
    let limit = coalesces ? Self.maxPerTransaction : 1
    let waiting = state.withLock { state in
      let batch = Array(state.waiting.prefix(limit - 1))
      state.waiting.removeFirst(batch.count)
      return batch
    }
    let result = Result { try queue.enqueueNow(encoded: [payload] + waiting.map(\.payload)) }
    switch result {
    case .success(let enqueued):
      onCommit(waiting.count + 1, enqueued.dropped)
      for (_, caller) in waiting { caller.resume() }
    case .failure(let error):
      for (_, caller) in waiting { caller.resume(throwing: error) }
    }
    let more = state.withLock { state in
      if state.waiting.isEmpty { state.isWriting = false }
      return !state.waiting.isEmpty
    }
    if more { Task { await self.write() } }
    _ = try result.get()
  }

  /// Commits what waits, transaction after transaction, until nothing does.
  private func write() async {
    let limit = coalesces ? Self.maxPerTransaction : 1
    while true {
      let batch = state.withLock { state in
        let batch = Array(state.waiting.prefix(limit))
        state.waiting.removeFirst(batch.count)
        if batch.isEmpty { state.isWriting = false }
        return batch
      }
      guard !batch.isEmpty else { return }
      do {
        let result = try await queue.enqueue(encoded: batch.map(\.payload))
        onCommit(batch.count, result.dropped)
        for (_, caller) in batch { caller.resume() }
      } catch {
        for (_, caller) in batch { caller.resume(throwing: error) }
      }
    }
  }
}
