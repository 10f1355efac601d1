import ReducerRuntime

/// A store for tests that makes every effect of a feature visible (REQUIREMENTS F1, F2): by default each state change
/// must be described exactly, each action an effect sends must be received, and no effect may still run at the end.
///
/// Failures are reported with IssueReporting, so they fail a Swift Testing test or an XCTest at the line that made
/// the assertion; a state that differs from the expectation is shown as a diff (swift-custom-dump), `−` for the
/// expected lines and `+` for the actual ones. Give the feature a `TestClock` and advance it: the test store waits
/// for nothing on the wall clock, except a bounded wait in `receive` for an effect to deliver
/// its action.
///
/// ```swift
/// import Clocks
/// import Domain
/// import Features
/// import Testing
///
/// @Test @MainActor func search() async {
///   let ada = User(userId: "ada", nickname: "ada")
///   let clock = TestClock()
///   let store = TestStore(
///     initialState: UserSearchFeature.State(), reducer: UserSearchFeature(search: { _ in [ada] }, clock: clock))
///   await store.send(.view(.queryChanged("ada"))) {
///     $0.query = "ada"
///     $0.isLoading = true
///   }
///   #expect(await clock.sleeperArrived())   // advance once the effect sleeps on the clock
///   await clock.advance(by: .milliseconds(300))
///   await store.receive(.response(.results(query: "ada", users: [ada]))) {
///     $0.results = [ada]
///     $0.isLoading = false
///   }
///   await store.finish()
/// }
/// ```
@MainActor
public final class TestStore<State: Equatable, Action: Sendable> {
  /// How strictly the store checks the feature: ``Exhaustivity/on`` unless the test says otherwise.
  public var exhaustivity: Exhaustivity = .on

  /// The feature's state now, including the changes of actions that effects sent and the test has not received yet.
  public var state: State { store.state }

  /// Whether the feature asked to be dismissed (its reducer returned `Effect.dismiss`): what a presenter would have
  /// done, for a feature tested on its own.
  public var isDismissed: Bool { recorder.isDismissed }

  /// The store that runs the feature, wrapped in a reducer that records every reduction.
  let store: Store<State, TestStoreAction<Action>>
  let recorder: Recorder<State, Action>
  /// Where the test created the store: failures found when it goes away are reported there.
  private let creation: SourceLocation
  /// Whether something happened since the last check at the end (``finish(timeout:fileID:filePath:line:column:)``),
  /// so that the store checks again when it goes away.
  var needsCheckAtEnd = false

  /// A test store that runs `reducer` from `initialState`.
  ///
  /// - Parameters:
  ///   - initialState: The feature's state to start from.
  ///   - reducer: The feature; give it test doubles and a `TestClock`.
  ///   - fileID: Where failures found when the store goes away are reported; the caller's by default.
  ///   - filePath: Where failures found when the store goes away are reported.
  ///   - line: Where failures found when the store goes away are reported.
  ///   - column: Where failures found when the store goes away are reported.
  public init<R: Reducer>(
    initialState: State, reducer: R,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) where R.State == State, R.Action == Action {
    let recorder = Recorder<State, Action>()
    self.recorder = recorder
    store = Store(initialState: initialState, reducer: RecordingReducer(feature: reducer, recorder: recorder))
    creation = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  // Not `isolated` (that needs a newer runtime than the package's Apple deployment targets): a test store is used
  // on the main actor, so it is almost always released there, and checks only then.
  deinit {
    let creation = creation
    guard MainQueue.isCurrent else {
      creation.report("A TestStore was released off the main actor, so it could not check the end of the test.")
      return
    }
    MainActor.assumeIsolated {
      if needsCheckAtEnd { checkEnd(at: creation) }
    }
  }

  /// Sends `action` as the test, and checks the state change it made.
  ///
  /// With ``Exhaustivity/on``, `assert` gets the state before the action and must turn it into exactly the state
  /// after it; no `assert` means the action must not change the state. Actions that effects sent and the test has
  /// not received yet are a failure. With ``Exhaustivity/off``, `assert` gets the state after the action, and only
  /// what it changes is checked.
  ///
  /// ```swift
  /// import ReducerRuntime
  ///
  /// struct Counter: Reducer {
  ///   struct State: Equatable { var count = 0 }
  ///   enum Action: Sendable { case increment }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     state.count += 1
  ///     return .none
  ///   }
  /// }
  ///
  /// let store = TestStore(initialState: Counter.State(), reducer: Counter())
  /// await store.send(.increment) { $0.count = 1 }
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action, as the view would send it.
  ///   - assert: The expected change, as a mutation of the state.
  ///   - fileID: Where a failure is reported; the caller's by default.
  ///   - filePath: Where a failure is reported.
  ///   - line: Where a failure is reported.
  ///   - column: Where a failure is reported.
  /// - Returns: The effects the action started.
  @discardableResult
  public func send(
    _ action: Action, assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async -> TestStoreTask {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    if !recorder.received.isEmpty {
      if exhaustivity == .on {
        location.report(
          "Must receive \(counted(recorder.received.count, "action")) that effects sent before sending "
            + "another action. Unreceived:\n\n\(recorder.received.map { Dump.value($0.action) }.joined(separator: "\n"))"
        )
      }
      recorder.received.removeAll()
    }
    needsCheckAtEnd = true
    let task = store.send(.sent(action))
    if let reduction = recorder.sent {
      recorder.sent = nil
      check(reduction, against: assert, at: location)
    }
    return TestStoreTask(task)
  }

  /// Checks the state change of one reduction against the test's expectation, as ``exhaustivity`` says.
  func check(
    _ reduction: Reduction<State, Action>, against assert: ((inout State) throws -> Void)?,
    at location: SourceLocation
  ) {
    var expected: State
    switch exhaustivity {
    case .on:
      expected = reduction.before
    case .off:
      guard assert != nil else { return }
      expected = reduction.after
    }
    do {
      try assert?(&expected)
    } catch {
      location.report("The assertion of \(Dump.inline(reduction.action)) threw an error: \(error)")
      return
    }
    guard expected != reduction.after else { return }
    let summary =
      assert == nil
      ? "The state changed, but the test described no change"
      : "The state change does not match the expectation"
    location.report(
      "\(summary), after:\n\n\(Dump.value(reduction.action))\n\n"
        + Dump.difference(expected: expected, actual: reduction.after))
  }
}

/// "1 action", "2 actions".
func counted(_ number: Int, _ noun: String) -> String {
  "\(number) \(noun)\(number == 1 ? "" : "s")"
}
