import ReducerRuntime

/// The effects one ``TestStore/send(_:assert:fileID:filePath:line:column:)`` started: await them with ``finish()``,
/// or stop them with ``cancel()``.
///
/// ```swift
/// import Clocks
/// import ReducerRuntime
/// import Testing
///
/// struct Loader: Reducer {
///   struct State: Equatable { var count = 0 }
///   enum Action: Equatable, Sendable { case load, loaded(Int) }
///   let clock: any Clock<Duration>
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .load:
///       return .run { [clock] send in
///         try await clock.sleep(for: .seconds(1))
///         await send(.loaded(42))
///       }
///     case .loaded(let count): state.count = count
///     }
///     return .none
///   }
/// }
///
/// @Test @MainActor func loadsAfterOneSecond() async {
///   let clock = TestClock()
///   let store = TestStore(initialState: Loader.State(), reducer: Loader(clock: clock))
///   let load = await store.send(.load)
///   #expect(await clock.sleeperArrived())   // advance only once the effect sleeps on the clock
///   await clock.advance(by: .seconds(1))
///   await load.finish()
///   await store.receive(.loaded(42)) { $0.count = 42 }
/// }
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
