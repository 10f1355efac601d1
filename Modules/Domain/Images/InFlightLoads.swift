import KeelConcurrency

/// At most one load per key at a time, shared by every caller that asks for the key while it runs.
///
/// The load runs in an unstructured task of its own; each caller waits on its own continuation. So a cancelled
/// caller leaves at once with `CancellationError` while the others keep waiting, and the load is cancelled only
/// when its last caller leaves. It is then forgotten at once: a caller that comes after starts a new load.
final class InFlightLoads<Value: Sendable>: Sendable {
  private struct Flight {
    let id: UInt64
    let task: Task<Void, Never>
    var waiters: [UInt64: CheckedContinuation<Value, any Error>]
  }

  private struct State {
    var flights: [String: Flight] = [:]
    /// Numbers flights and waiters alike: unique for the life of this object.
    var lastID: UInt64 = 0

    mutating func nextID() -> UInt64 {
      lastID += 1
      return lastID
    }
  }

  private enum Registration {
    case started
    case joined
    case cancelled
  }

  private let state = Locked(State())

  /// The value of the load for `key`: the one under way, or a new one that runs `operation`.
  ///
  /// - Parameters:
  ///   - key: What identifies the load.
  ///   - onJoin: Called when the caller joins a load under way rather than starting one.
  ///   - operation: The load, run once for all the callers that share it, in a task of its own that is cancelled
  ///     when every caller has been cancelled.
  /// - Throws: `CancellationError` when the calling task is cancelled, whatever the load does; otherwise what the
  ///   load threw.
  func value(
    forKey key: String, onJoin: () -> Void, operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    let waiter = state.withLock { $0.nextID() }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
        let registration = state.withLock { state -> Registration in
          // Checked under the lock: a cancellation handler that ran before this found no waiter to remove.
          if Task.isCancelled { return .cancelled }
          if state.flights[key] != nil {
            state.flights[key]?.waiters[waiter] = continuation
            return .joined
          }
          let id = state.nextID()
          let task = Task { [self] in
            let result: Result<Value, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            finish(key, flight: id, with: result)
          }
          state.flights[key] = Flight(id: id, task: task, waiters: [waiter: continuation])
          return .started
        }
        switch registration {
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .joined: onJoin()
        case .started: break
        }
      }
    } onCancel: {
      leave(key, waiter: waiter)
    }
  }

  /// How many callers wait on the load for `key`; 0 when none runs.
  func waiterCount(forKey key: String) -> Int { state.withLock { $0.flights[key]?.waiters.count ?? 0 } }

  /// How many loads are under way.
  var count: Int { state.withLock { $0.flights.count } }

  /// Resumes the cancelled `waiter`; cancels and forgets the load if it was the last one waiting.
  private func leave(_ key: String, waiter: UInt64) {
    let (continuation, abandoned) = state.withLock {
      state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
      guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
      guard state.flights[key]?.waiters.isEmpty == true else { return (continuation, nil) }
      return (continuation, state.flights.removeValue(forKey: key)?.task)
    }
    continuation?.resume(throwing: CancellationError())
    abandoned?.cancel()
  }

  /// Hands `result` to every caller still waiting on the flight `id`, unless it was abandoned meanwhile.
  private func finish(_ key: String, flight id: UInt64, with result: Result<Value, any Error>) {
    let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
      guard state.flights[key]?.id == id else { return [] }
      return state.flights.removeValue(forKey: key).map { Array($0.waiters.values) } ?? []
    }
    for waiter in waiters { waiter.resume(with: result) }
  }
}
