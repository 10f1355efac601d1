/// A buffer between a producer and one reader that holds a bounded weight of elements and makes the producer wait
/// while it is full: back-pressure, so that a reader slower than its source costs a bounded amount of memory instead
/// of a queue that grows until the process is killed.
///
/// The producer either ``push(_:)``es, waiting while the buffer is full, or ``pushNow(_:)``es without waiting and then
/// waits in ``room()`` (for a producer that hands one element to several buffers before it may wait). An empty buffer
/// always takes an element, however heavy. The reader calls ``next()``.
package final class PacedBuffer<Element: Sendable>: Sendable {
  private struct State {
    var elements: [Element] = []
    var head = 0
    var weight = 0
    var finished = false
    var failure: (any Error)?
    /// The reader, waiting for an element.
    var reader: (id: Int, continuation: CheckedContinuation<Element?, any Error>)?
    /// Producers waiting for room.
    var producers: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextID = 0
    var cancelled: Set<Int> = []

    var count: Int { elements.count - head }
  }

  private let countLimit: Int
  private let limit: Int
  private let weigh: @Sendable (Element) -> Int
  private let state = Locked(State())

  /// A buffer that holds fewer than `count` elements and less than `weight`, each element weighing what `weigh` says
  /// (its size in bytes, say).
  package init(count: Int = .max, weight: Int = .max, weigh: @escaping @Sendable (Element) -> Int = { _ in 0 }) {
    countLimit = max(1, count)
    limit = max(1, weight)
    self.weigh = weigh
  }

  /// Whether the buffer holds its limit or more: a producer would wait.
  package var isFull: Bool { state.withLock { isFull($0) } }

  private func isFull(_ state: State) -> Bool {
    state.count > 0 && (state.count >= countLimit || state.weight >= limit)
  }

  /// The weight held now.
  package var weight: Int { state.withLock { $0.weight } }

  /// Whether a producer is waiting for room now.
  package var isHoldingBack: Bool { state.withLock { !$0.producers.isEmpty } }

  /// Adds `element` at once, past the limit if need be; dropped once the buffer is finished.
  package func pushNow(_ element: Element) {
    let weight = weigh(element)
    let reader = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
      guard !state.finished else { return nil }
      if let reader = state.reader {
        state.reader = nil
        return reader.continuation
      }
      state.elements.append(element)
      state.weight += weight
      return nil
    }
    reader?.resume(returning: element)
  }

  /// Adds `element`, waiting first while the buffer is full (or until it is finished, or the task is cancelled).
  package func push(_ element: Element) async {
    await room()
    pushNow(element)
  }

  /// Returns once the buffer has room (holds less than its limit), is finished, or the task is cancelled.
  package func room() async {
    let id = state.withLock { state -> Int in
      state.nextID += 1
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let waits = state.withLock { state -> Bool in
          guard !state.finished, isFull(state), !state.cancelled.contains(id) else {
            state.cancelled.remove(id)
            return false
          }
          state.producers[id] = continuation
          return true
        }
        if !waits { continuation.resume() }
      }
    } onCancel: {
      let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
        guard let waiting = state.producers.removeValue(forKey: id) else {
          state.cancelled.insert(id)
          return nil
        }
        return waiting
      }
      waiting?.resume()
    }
  }

  /// The next element, waiting for one; `nil` once the buffer is finished and empty, or when the task is cancelled.
  ///
  /// - Throws: The error the buffer was finished with, after its elements.
  package func next() async throws -> Element? {
    let id = state.withLock { state -> Int in
      state.nextID += 1
      return state.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
        let (result, released) = state.withLock {
          state -> (Result<Element?, any Error>?, [CheckedContinuation<Void, Never>]) in
          if state.cancelled.remove(id) != nil { return (.success(nil), []) }
          if state.count > 0 {
            let element = state.elements[state.head]
            state.head += 1
            state.weight -= weigh(element)
            if state.head > 64 && state.head * 2 > state.elements.count {
              state.elements.removeFirst(state.head)
              state.head = 0
            }
            var released: [CheckedContinuation<Void, Never>] = []
            if !isFull(state) {
              released = Array(state.producers.values)
              state.producers = [:]
            }
            return (.success(element), released)
          }
          if state.finished {
            defer { state.failure = nil }
            return (state.failure.map { .failure($0) } ?? .success(nil), [])
          }
          state.reader = (id, continuation)
          return (nil, [])
        }
        for producer in released { producer.resume() }
        if let result { continuation.resume(with: result) }
      }
    } onCancel: {
      let reader = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
        guard let reader = state.reader, reader.id == id else {
          state.cancelled.insert(id)
          return nil
        }
        state.reader = nil
        return reader.continuation
      }
      reader?.resume(returning: nil)
    }
  }

  /// Ends the buffer: the reader gets what it holds, then `nil`, or `error`; waiting producers go on, and later
  /// elements are dropped. Only the first call counts.
  package func finish(throwing error: (any Error)? = nil) {
    let (reader, producers) = state.withLock {
      state -> (CheckedContinuation<Element?, any Error>?, [CheckedContinuation<Void, Never>]) in
      guard !state.finished else { return (nil, []) }
      state.finished = true
      state.failure = error
      let producers = Array(state.producers.values)
      state.producers = [:]
      guard let reader = state.reader else { return (nil, producers) }
      state.reader = nil
      state.failure = nil
      return (reader.continuation, producers)
    }
    for producer in producers { producer.resume() }
    if let reader {
      if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }
  }

  /// Ends the buffer and drops what it holds: its reader is gone.
  package func cancel() {
    state.withLock { state in
      state.elements = []
      state.head = 0
      state.weight = 0
    }
    finish()
  }
}
