import KeelBasics
import Persistence

/// Commits tracked events to the queue, many per transaction when many are tracked at once (group commit): each
/// transaction costs one `fsync`, so concurrent `track` calls share it instead of waiting in line for their own.
///
/// A caller waits until the transaction holding its event is committed, so `track` still returns only once its
/// event is on disk. Events are committed in the order their calls arrived. The writer is a task of its own: a
/// cancelled caller does not cancel a transaction that holds other callers' events.
final class TrackCommitter: Sendable {
  private struct State {
    var waiting: [(event: AnalyticsEvent, caller: CheckedContinuation<Void, any Error>)] = []
    var isWriting = false
  }

  /// The most events in one transaction, so that one commit's latency stays bounded.
  static let maxPerTransaction = 1_000

  private let state = Locked(State())
  private let queue: DurableQueue<AnalyticsEvent>
  private let coalesces: Bool
  private let onCommit: @Sendable (_ stored: Int, _ dropped: Int) -> Void

  /// A committer into `queue`; `onCommit` learns how many events each transaction stored and how many old ones the
  /// overflow policy dropped. Under `rejectNew` every event gets a transaction of its own, so that one event's
  /// refusal is not another's.
  init(
    queue: DurableQueue<AnalyticsEvent>, coalesces: Bool,
    onCommit: @escaping @Sendable (_ stored: Int, _ dropped: Int) -> Void
  ) {
    self.queue = queue
    self.coalesces = coalesces
    self.onCommit = onCommit
  }

  /// Returns once `event` is committed.
  ///
  /// - Throws: the queue's `PersistenceError` when the transaction holding `event` failed.
  func commit(_ event: AnalyticsEvent) async throws {
    try await withCheckedThrowingContinuation { (caller: CheckedContinuation<Void, any Error>) in
      let startsWriter = state.withLock { state in
        state.waiting.append((event, caller))
        guard !state.isWriting else { return false }
        state.isWriting = true
        return true
      }
      if startsWriter { Task { await self.write() } }
    }
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
        let result = try await queue.enqueue(contentsOf: batch.map(\.event))
        onCommit(batch.count, result.dropped)
        for (_, caller) in batch { caller.resume() }
      } catch {
        for (_, caller) in batch { caller.resume(throwing: error) }
      }
    }
  }
}
