#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value guarded by a reader-writer lock: any number of readers at once, one writer alone. For state that is read
/// far more often than written, such as a user cache (REQUIREMENTS U1).
///
/// A `pthread_rwlock_t`, which ThreadSanitizer intercepts, like ``Locked``'s mutex. A write is visible to every read
/// that starts after ``write(_:)`` returns: the unlock publishes it.
///
/// Package-internal: every Keel module may use it; no client sees it.
package final class ReadWriteLocked<State>: @unchecked Sendable {
  // @unchecked: `state` is read only inside `read` (lock held shared) and written only inside `write` (lock held
  // exclusively), so no write overlaps any other access.
  @usableFromInline let lock: UnsafeMutablePointer<pthread_rwlock_t>
  @usableFromInline @exclusivity(unchecked) var state: State

  /// Guards `state`.
  package init(_ state: State) {
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_rwlock_t())
    let result = pthread_rwlock_init(lock, nil)
    precondition(result == 0, "pthread_rwlock_init failed: \(result)")
    self.state = state
  }

  deinit {
    pthread_rwlock_destroy(lock)
    lock.deinitialize(count: 1)
    lock.deallocate()
  }

  /// Runs `body` on the state with the lock held for reading; other readers may run at the same time.
  @inlinable
  package func read<Result>(_ body: (State) throws -> Result) rethrows -> Result {
    pthread_rwlock_rdlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body(state)
  }

  /// Runs `body` on the state with the lock held exclusively. Never call back into the same lock from `body`.
  @inlinable
  package func write<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    pthread_rwlock_wrlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body(&state)
  }
}
