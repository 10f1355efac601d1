/// An injected clock read as whole nanoseconds since the cache was created: a plain `Int64` that entries can store as
/// their expiry, whatever the clock's `Instant` type is.
@usableFromInline
struct CacheTimeline: Sendable {
  /// The value of ``now()`` for an entry that never expires.
  @inlinable static var never: Int64 { .max }

  @usableFromInline let read: @Sendable () -> Int64

  /// Starts the timeline at `clock`'s present instant.
  init(_ clock: some Clock<Duration>) {
    let start = clock.now
    read = { start.duration(to: clock.now).saturatingNanoseconds }
  }

  /// Nanoseconds since the timeline started.
  @inlinable func now() -> Int64 { read() }

  /// The instant `ttl` after now, saturating at ``never``.
  @usableFromInline func expiry(after ttl: Duration) -> Int64 {
    let (sum, overflow) = now().addingReportingOverflow(ttl.saturatingNanoseconds)
    return overflow ? (ttl > .zero ? Self.never : Int64.min) : sum
  }
}

extension Duration {
  /// The duration in whole nanoseconds, rounded toward zero, saturating at the bounds of `Int64` (about 292 years
  /// either way), so that a time-to-live of "practically forever" is valid rather than a trap.
  fileprivate var saturatingNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return Int64(clamping: Int128(seconds) * 1_000_000_000 + Int128(attoseconds / 1_000_000_000))
  }
}
