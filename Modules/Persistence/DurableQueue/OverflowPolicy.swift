/// What a ``DurableQueue`` does when an enqueue would take it past its capacity (REQUIREMENTS E5). Either way the
/// elements concerned are counted, in ``DurableQueueStatistics``, and the count survives a restart: an overflow is
/// never silent.
public enum OverflowPolicy: Sendable, Hashable {
  /// Refuse the whole enqueue with `PersistenceError.Kind.capacityExceeded`, writing none of its elements, and add
  /// their number to ``DurableQueueStatistics/rejected``.
  case rejectNew
  /// Delete the oldest pending elements in the same transaction as the insert, report their number in
  /// ``EnqueueResult/dropped`` and add it to ``DurableQueueStatistics/dropped``.
  case dropOldest
}
