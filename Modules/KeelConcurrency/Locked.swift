#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value guarded by a lock that ThreadSanitizer can see on every platform: Keel's replacement for
/// `Synchronization.Mutex` (see Documentation/Decisions/0003-tsan-visible-lock.md).
///
/// On Linux, `Mutex` hands a contended lock over inside the kernel, where ThreadSanitizer cannot follow, so every
/// state it guards reads as a data race under `swift test --sanitize=thread` (measured with Swift 6.3.1: a plain
/// `Mutex<Int>` incremented by four tasks). A `pthread_mutex_t`, which ThreadSanitizer intercepts, does not have that
/// problem, and costs a few nanoseconds more uncontended.
///
/// Package-internal: every Keel module may use it; no client names it. It is `@usableFromInline`, so that a public
/// `@inlinable` operation of a Keel module (`MemoryCache`'s lookup) can be specialized into its client, lock and all.
@usableFromInline
package final class Locked<State>: @unchecked Sendable {
  // @unchecked: `state` is read and written only inside `withLock`, with `mutex` held. For the same reason the
  // runtime's exclusivity check on it is redundant, and skipped: it cost ~5% of a rate limiter's fast path.
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  @usableFromInline @exclusivity(unchecked) var state: State

  /// Guards `state`.
  package init(_ state: State) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let result = pthread_mutex_init(mutex, nil)
    precondition(result == 0, "pthread_mutex_init failed: \(result)")
    self.state = state
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` on the state with the lock held. Never call back into the same `Locked` from `body`.
  @inlinable
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state)
  }
}
