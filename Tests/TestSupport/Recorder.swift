import KeelConcurrency

/// A thread-safe list that tasks append to and tests read: what ran, in what order, at what time.
public final class Recorder<Element: Sendable>: Sendable {
  private struct State {
    var elements: [Element] = []
    /// The tasks in ``recorded(until:)``: what each waits for.
    var waiters: [Int: (until: @Sendable ([Element]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = [:]
    var nextWaiter = 0
  }

  private let storage = Locked(State())

  /// An empty recorder.
  public init() {}

  /// Appends `element`, and wakes the tasks waiting for as many as there are now.
  public func record(_ element: Element) {
    let ready = storage.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.elements.append(element)
      let ready = state.waiters.filter { $0.value.until(state.elements) }
      for id in ready.keys { state.waiters[id] = nil }
      return ready.values.map(\.continuation)
    }
    for continuation in ready { continuation.resume() }
  }

  /// Everything recorded so far, in order.
  public var elements: [Element] { storage.withLock { $0.elements } }

  /// How many elements were recorded.
  public var count: Int { storage.withLock { $0.elements.count } }

  /// Waits until at least `count` elements are recorded, and returns everything recorded then: for a test that waits
  /// on the event itself, not on the wall clock. Cancelling the task (a suite's time limit) returns what there is.
  public func recorded(count: Int) async -> [Element] {
    await recorded(until: { $0.count >= count })
  }

  /// Waits until what is recorded satisfies `condition`, and returns it; as ``recorded(count:)`` does.
  public func recorded(until condition: @escaping @Sendable ([Element]) -> Bool) async -> [Element] {
    let id = storage.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = storage.withLock { state -> Bool in
          guard !condition(state.elements), !Task.isCancelled else { return true }
          state.waiters[id] = (condition, continuation)
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      storage.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }
    return elements
  }
}
