/// The effects one ``Store/send(_:)`` started: await them with ``finish()``, or stop them with ``cancel()``.
///
/// ```swift
/// await store.send(.refresh).finish()   // returns when the refresh's effects are done
/// ```
public struct StoreTask: Sendable {
  private let tasks: [Task<Void, Never>]

  init(_ tasks: [Task<Void, Never>]) {
    self.tasks = tasks
  }

  /// Whether the send started no effect that runs.
  public var isEmpty: Bool { tasks.isEmpty }

  /// Returns when every effect the send started has finished (or was cancelled).
  public func finish() async {
    for task in tasks { await task.value }
  }

  /// Cancels every effect the send started.
  public func cancel() {
    for task in tasks { task.cancel() }
  }
}
