import ReducerRuntime

/// The effects one ``TestStore/send(_:assert:fileID:filePath:line:column:)`` started: await them with ``finish()``,
/// or stop them with ``cancel()``.
///
/// ```swift
/// let load = await store.send(.load)
/// #expect(await clock.sleeperArrived())   // advance only once the effect sleeps on the clock
/// await clock.advance(by: .seconds(1))
/// await load.finish()
/// ```
public struct TestStoreTask: Sendable {
  private let task: StoreTask

  init(_ task: StoreTask) {
    self.task = task
  }

  /// Whether the send started no effect that runs.
  public var isEmpty: Bool { task.isEmpty }

  /// Returns when every effect the send started has finished or was cancelled. It waits as long as they run: advance
  /// the test's clock first for an effect that sleeps.
  public func finish() async {
    await task.finish()
  }

  /// Cancels every effect the send started.
  public func cancel() {
    task.cancel()
  }
}
