/// Which calls a ``Throttler`` lets through (REQUIREMENTS D2).
public enum ThrottleMode: Sendable, Hashable {
  /// The first call runs at once; every call in the following `interval` is dropped. A call exactly `interval` after
  /// the last one that ran is let through.
  case leading
  /// The first call opens an interval; the latest call made during it runs when it ends. Calls keep their place by
  /// the time they were made: one made exactly at the end opens the next interval.
  case trailingLatest
  /// A call runs at once unless the previous operation is still running, in which case it is dropped. Suits work
  /// such as "refresh" buttons, where a second tap while the first refresh runs means nothing new.
  case dropWhileRunning
}
