import Domain
import Features
import Foundation
import UnixSignals

/// Runs `UserImportFeature` in a store for a command, showing its progress, with Ctrl-C to stop.
enum ImportRunner {
  /// Creates `users` with `manager` and returns the report.
  ///
  /// The progress is a bar redrawn in place when standard output is a terminal, else a line per change (on standard
  /// error with `--json`). The first Ctrl-C stops once the request in flight has finished; a second cancels it.
  @MainActor
  static func run(_ users: [UserCreationParams], with manager: UserManager, output: Output) async
    -> UserImportFeature.Report
  {
    let store = Store(
      initialState: UserImportFeature.State(users: users),
      reducer: UserImportFeature.live(users: manager, clock: ContinuousClock()))
    let interrupts = Task { @MainActor in
      var count = 0
      for await _ in await UnixSignalsSequence(trapping: .sigint) {
        count += 1
        if count == 1 {
          output.note("\nStopping once the request in flight has finished (Ctrl-C again to cancel it)…")
          store.send(.view(.stopTapped))
        } else {
          store.send(.view(.cancelTapped))
        }
      }
    }
    defer { interrupts.cancel() }
    var progress = ProgressLine(
      redraws: Output.isTerminal && !output.json, handle: output.json ? .standardError : .standardOutput)
    store.send(.view(.startTapped))
    for await state in store.states() {
      progress.show(state.progress)
      if state.phase != .importing && state.phase != .ready { break }
    }
    progress.finish()
    return store.state.report
  }
}
