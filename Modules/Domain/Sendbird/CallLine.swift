/// Starts the Sendbird facade's calls in the order they were made (REQUIREMENTS L1).
///
/// Each call's first step (checking its input and taking its place in its application's line) runs here, one call
/// after the other, in the order ``submit(_:)`` was called; the step then starts the rest of the call in a task of its
/// own, so a call waiting for its turn or its response holds up nobody behind it. Without this, each call's task
/// would reach the limiter in whatever order the tasks happened to start.
final class CallLine: Sendable {
  /// A call's first step; it starts the rest of the call itself.
  typealias Step = @Sendable () async -> Void

  private let steps: AsyncStream<Step>.Continuation

  init() {
    let (stream, continuation) = AsyncStream.makeStream(of: Step.self)
    steps = continuation
    Task {
      for await step in stream { await step() }
    }
  }

  deinit { steps.finish() }

  /// Queues `step` behind every step submitted before it.
  func submit(_ step: @escaping Step) {
    steps.yield(step)
  }
}
