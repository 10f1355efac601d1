import ReducerRuntime

extension TestStore {
  /// Receives the next action an effect sent, checks that it is the one `isMatching` describes, and checks its state
  /// change as ``send(_:assert:fileID:filePath:line:column:)`` does.
  ///
  /// When no action has arrived yet, it waits for one while effects run, up to `timeout` of real time; with no
  /// effect running it fails at once. With ``Exhaustivity/off``, actions before the first one that matches are
  /// skipped.
  ///
  /// ```swift
  /// import ReducerRuntime
  /// import Testing
  ///
  /// struct Loader: Reducer {
  ///   struct State: Equatable { var count = 0 }
  ///   enum Action: Sendable { case load, loaded(Int) }   // not Equatable: match it with a closure
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     switch action {
  ///     case .load: return .run { send in await send(.loaded(42)) }
  ///     case .loaded(let count): state.count = count
  ///     }
  ///     return .none
  ///   }
  /// }
  ///
  /// @Test @MainActor func loads() async {
  ///   let store = TestStore(initialState: Loader.State(), reducer: Loader())
  ///   await store.send(.load)
  ///   await store.receive({ if case .loaded = $0 { true } else { false } }, assert: { $0.count = 42 })
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - isMatching: Whether an action is the expected one.
  ///   - timeout: How long to wait for an effect to deliver an action, on the wall clock: a bound for a hung test,
  ///     not a way to wait for the feature's own time (advance its `TestClock` instead).
  ///   - assert: The expected change, as a mutation of the state.
  ///   - fileID: Where a failure is reported; the caller's by default.
  ///   - filePath: Where a failure is reported.
  ///   - line: Where a failure is reported.
  ///   - column: Where a failure is reported.
  public func receive(
    _ isMatching: (Action) -> Bool, timeout: Duration = .seconds(1), assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    await receive(
      isMatching, describingMismatch: { "An effect sent an action that does not match:\n\n\(Dump.value($0))" },
      timeout: timeout, assert: assert,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Receives the next action an effect sent, checks that it equals `expected`, and checks its state change as
  /// ``send(_:assert:fileID:filePath:line:column:)`` does.
  ///
  /// ```swift
  /// import ReducerRuntime
  /// import Testing
  ///
  /// struct Loader: Reducer {
  ///   struct State: Equatable { var count = 0 }
  ///   enum Action: Equatable, Sendable { case load, loaded(Int) }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     switch action {
  ///     case .load: return .run { send in await send(.loaded(42)) }
  ///     case .loaded(let count): state.count = count
  ///     }
  ///     return .none
  ///   }
  /// }
  ///
  /// @Test @MainActor func loads() async {
  ///   let store = TestStore(initialState: Loader.State(), reducer: Loader())
  ///   await store.send(.load)
  ///   await store.receive(.loaded(42)) { $0.count = 42 }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - expected: The action the effect must have sent.
  ///   - timeout: How long to wait for an effect to deliver an action, on the wall clock: a bound for a hung test.
  ///   - assert: The expected change, as a mutation of the state.
  ///   - fileID: Where a failure is reported; the caller's by default.
  ///   - filePath: Where a failure is reported.
  ///   - line: Where a failure is reported.
  ///   - column: Where a failure is reported.
  public func receive(
    _ expected: Action, timeout: Duration = .seconds(1), assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async where Action: Equatable {
    await receive(
      { $0 == expected },
      describingMismatch: {
        "An effect sent an action other than the expected one:\n\n"
          + Dump.difference(expected: expected, actual: $0)
      },
      timeout: timeout, assert: assert,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  private func receive(
    _ isMatching: (Action) -> Bool, describingMismatch: (Action) -> String, timeout: Duration,
    assert: ((inout State) throws -> Void)?, at location: SourceLocation
  ) async {
    needsCheckAtEnd = true
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
      guard let reduction = await nextReceived(before: deadline) else {
        let running = store.runningEffectCount
        location.report(
          running == 0
            ? "Expected to receive an action, but no effect is running to send one."
            : "Expected to receive an action, but none arrived within \(timeout) while "
              + "\(counted(running, "effect")) ran. Advance the feature's clock, or raise the timeout.")
        return
      }
      recorder.received.removeFirst()
      if isMatching(reduction.action) {
        check(reduction, against: assert, at: location)
        return
      }
      if exhaustivity == .on {
        location.report(describingMismatch(reduction.action))
        return
      }
    }
  }

  /// The oldest action not received yet, waiting (by yielding) for one while effects run, until `deadline`.
  private func nextReceived(before deadline: ContinuousClock.Instant) async -> Reduction<State, Action>? {
    while recorder.received.isEmpty {
      guard store.runningEffectCount > 0, ContinuousClock.now < deadline else { return nil }
      await Task.yield()
    }
    return recorder.received.first
  }
}
