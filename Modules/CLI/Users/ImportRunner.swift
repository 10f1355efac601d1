import Domain
import Features
import Foundation
import KeelConcurrency
import UnixSignals

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs `UserImportFeature` in a store for a command, showing its progress, with Ctrl-C to stop.
enum ImportRunner {
  /// What an import did, and whether Ctrl-C stopped it.
  struct Outcome {
    let report: UserImportFeature.Report
    let interrupted: Bool
  }

  /// Creates `users` with `manager` and returns what happened.
  ///
  /// The progress goes to standard error: a bar redrawn in place on a terminal, else a line per change. The first
  /// Ctrl-C stops once the request in flight (or waiting its turn at the rate limiter) has finished; a second cancels
  /// it. Ctrl-C has its usual effect again once the import is over.
  @MainActor
  static func run(_ users: [UserCreationParams], with manager: UserManager) async -> Outcome {
    let store = Store(
      initialState: UserImportFeature.State(users: users),
      reducer: UserImportFeature.live(users: manager, clock: ContinuousClock()))
    let signals = await UnixSignalsSequence(trapping: .sigint)  // before the first request goes
    let interrupts = Locked(0)
    let listening = Task { @MainActor in
      for await _ in signals {
        let count = interrupts.withLock { count in
          count += 1
          return count
        }
        if count == 1 {
          Output.write(
            "\nStopping once the request in flight has finished (Ctrl-C again to cancel it)…\n", to: .standardError)
          store.send(.view(.stopTapped))
        } else {
          store.send(.view(.cancelTapped))
        }
      }
    }
    var progress = ProgressLine(redraws: Output.errorIsTerminal, handle: .standardError)
    store.send(.view(.startTapped))
    for await state in store.states() {
      progress.show(state.progress)
      if state.phase != .importing && state.phase != .ready { break }
    }
    progress.finish()
    listening.cancel()
    signal(SIGINT, SIG_DFL)
    return Outcome(report: store.state.report, interrupted: interrupts.withLock { $0 } > 0)
  }
}
