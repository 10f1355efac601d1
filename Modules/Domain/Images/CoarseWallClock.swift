import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The wall-clock time as the kernel last ticked it: what an image's freshness is measured against by default.
///
/// A memory hit is a few hundred nanoseconds, and on Linux `Date()` reads the full-resolution clock for a tenth of
/// it; `CLOCK_REALTIME_COARSE` returns the time of the last timer tick (1 to 10 ms old at most, by the kernel's tick
/// rate) for a fifth of that. Freshness is counted in seconds (`max-age`), so an image can be served at most one tick
/// after it went stale.
/// Elsewhere `Date()` is already that cheap, and is used.
@usableFromInline
enum CoarseWallClock {
  /// The present time, to within one kernel tick.
  @usableFromInline @Sendable static func now() -> Date {
    #if canImport(Glibc) || canImport(Musl)
      var time = timespec()
      guard clock_gettime(CLOCK_REALTIME_COARSE, &time) == 0 else { return Date() }
      return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
    #else
      return Date()
    #endif
  }
}
