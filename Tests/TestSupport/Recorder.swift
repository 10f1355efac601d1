import KeelBasics

/// A thread-safe list that tasks append to and tests read: what ran, in what order, at what time.
public final class Recorder<Element: Sendable>: Sendable {
  private let storage = Locked<[Element]>([])

  /// An empty recorder.
  public init() {}

  /// Appends `element`.
  public func record(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  /// Everything recorded so far, in order.
  public var elements: [Element] { storage.withLock { $0 } }

  /// How many elements were recorded.
  public var count: Int { storage.withLock { $0.count } }
}
