/// A consistent snapshot of a ``DurableQueue``'s counts. The totals are stored in the database, in the same
/// transactions as the changes they count, so they survive restarts (REQUIREMENTS E5: counted and reported).
public struct DurableQueueStatistics: Sendable, Hashable {
  /// Elements waiting for delivery.
  public var pending: Int
  /// Elements in the dead-letter table.
  public var deadLetters: Int
  /// Elements deleted by ``OverflowPolicy/dropOldest``, since the database was created.
  public var dropped: Int
  /// Elements refused by ``OverflowPolicy/rejectNew``, since the database was created.
  public var rejected: Int
  /// Elements taken out of delivery as dead letters but not kept, because the dead-letter table was full, since the
  /// database was created.
  public var deadLettersDropped: Int

  /// A snapshot with these counts.
  public init(pending: Int, deadLetters: Int, dropped: Int, rejected: Int, deadLettersDropped: Int) {
    self.pending = pending
    self.deadLetters = deadLetters
    self.dropped = dropped
    self.rejected = rejected
    self.deadLettersDropped = deadLettersDropped
  }
}
