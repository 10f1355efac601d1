/// What one enqueue committed.
public struct EnqueueResult: Sendable, Hashable {
  /// The ids given to the enqueued elements, in order. Under ``OverflowPolicy/dropOldest``, a batch larger than the
  /// whole capacity keeps only its newest elements, so this can be shorter than the batch.
  public let ids: [Int64]
  /// How many elements the ``OverflowPolicy/dropOldest`` policy deleted to make room (the oldest pending ones, then,
  /// for a batch larger than the capacity, the batch's own first elements). Zero when nothing overflowed.
  public let dropped: Int

  /// A result with `ids` enqueued and `dropped` elements dropped.
  public init(ids: [Int64], dropped: Int) {
    self.ids = ids
    self.dropped = dropped
  }
}
