import Dispatch

/// The peer: the rate limiter most apps write by hand. A serial `DispatchQueue` holds the waiting closures and a
/// repeating `DispatchSourceTimer` refills the permits and drains the queue every interval.
///
/// It lives here, in the benchmarks, only to be measured against.
final class DispatchTimerLimiter: @unchecked Sendable {
  // @unchecked: every mutable property below is read and written only on `queue`, a serial queue.
  private let queue = DispatchQueue(label: "keel-bench.dispatch-timer-limiter")
  private let timer: any DispatchSourceTimer
  private let permitsPerInterval: Int
  private let maxQueued: Int
  private var available: Int
  private var waiting: [@Sendable () -> Void] = []

  /// `permits` per `interval`, the first ones at once, at most `maxQueued` waiting.
  init(permits: Int, interval: DispatchTimeInterval, maxQueued: Int) {
    permitsPerInterval = permits
    available = permits
    self.maxQueued = maxQueued
    timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + interval, repeating: interval)
    timer.setEventHandler { [weak self] in self?.refill() }
    timer.resume()
  }

  deinit { timer.cancel() }

  /// Takes a permit if one is free and nobody waits.
  func tryAcquire() -> Bool {
    queue.sync {
      guard waiting.isEmpty, available > 0 else { return false }
      available -= 1
      return true
    }
  }

  /// Calls `completion(true)` once admitted, or `completion(false)` at once if the queue is full.
  func acquire(_ completion: @escaping @Sendable (Bool) -> Void) {
    queue.async { [self] in
      if waiting.isEmpty, available > 0 {
        available -= 1
        completion(true)
      } else if waiting.count < maxQueued {
        waiting.append { completion(true) }
      } else {
        completion(false)
      }
    }
  }

  /// `acquire` bridged to async/await the usual way, with a continuation.
  func acquire() async throws {
    let admitted = await withCheckedContinuation { continuation in
      acquire { continuation.resume(returning: $0) }
    }
    if !admitted { throw BenchmarkError(description: "peer queue full") }
  }

  /// Stops the timer.
  func stop() { timer.cancel() }

  private func refill() {
    available = permitsPerInterval
    while available > 0, !waiting.isEmpty {
      available -= 1
      waiting.removeFirst()()
    }
  }
}
