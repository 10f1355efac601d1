import ReducerRuntime

extension TestStore {
  /// Waits for the running effects to end, then, with ``Exhaustivity/on``, reports the actions effects sent that the
  /// test did not receive and the effects still running. Call it at the end of a test.
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
  ///   await store.finish()   // fails if an action was not received or an effect still runs
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - timeout: How long to wait for the effects to end, on the wall clock: a bound, not a way to wait for the
  ///     feature's own time (advance its `TestClock` instead).
  ///   - fileID: Where a failure is reported; the caller's by default.
  ///   - filePath: Where a failure is reported.
  ///   - line: Where a failure is reported.
  ///   - column: Where a failure is reported.
  public func finish(
    timeout: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    await waitForEffects(timeout: timeout)
    checkEnd(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Forgets the actions effects sent that the test has not received, so that they are not reported: for a test
  /// about something else.
  public func skipReceivedActions() {
    recorder.received.removeAll()
  }

  /// Cancels every effect still running, and waits for them to end, so that they are not reported: for a test that
  /// stops before a long-running effect (a timer, a stream) would.
  ///
  /// - Parameter timeout: How long to wait for the cancelled effects to end, on the wall clock.
  public func skipInFlightEffects(timeout: Duration = .seconds(1)) async {
    store.send(.cancelInFlightEffects)
    await waitForEffects(timeout: timeout)
  }

  /// Reports, with ``Exhaustivity/on``, the actions not received and the effects still running; then forgets them.
  func checkEnd(at location: SourceLocation) {
    needsCheckAtEnd = false
    defer { recorder.received.removeAll() }
    guard exhaustivity == .on else { return }
    let unreceived = recorder.received
    if !unreceived.isEmpty {
      location.report(
        "\(counted(unreceived.count, "action")) that effects sent \(unreceived.count == 1 ? "was" : "were") not "
          + "received:\n\n\(unreceived.map { Dump.value($0.action) }.joined(separator: "\n"))")
    }
    let running = store.runningEffectCount
    if running > 0 {
      location.report(
        "\(counted(running, "effect")) \(running == 1 ? "is" : "are") still running at the end of the test. Advance "
          + "the feature's clock until \(running == 1 ? "it ends" : "they end"), or call skipInFlightEffects().")
    }
  }

  /// Yields until no effect runs, or until `timeout` has passed on the wall clock.
  private func waitForEffects(timeout: Duration) async {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while store.runningEffectCount > 0, ContinuousClock.now < deadline {
      await Task.yield()
    }
  }
}
