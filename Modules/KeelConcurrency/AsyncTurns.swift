/// Calls that run one at a time, in the order their turns were taken: a first-in, first-out lock for async code,
/// whose place in line can be taken synchronously.
///
/// ``run(_:)`` takes a turn when it is called. Where the order is decided before the task that waits even starts (a
/// reducer handing each change to an effect of its own, and two tasks started together start in either order),
/// ``take()`` the turn there, then ``Turn/wait()`` and ``Turn/end()`` it in the task.
package final class AsyncTurns: Sendable {
  /// The end of the latest turn taken; `nil` before the first.
  private let latest = Locked<OneShot<Void>?>(nil)

  /// Turns with nobody in line.
  package init() {}

  /// A place in line.
  package struct Turn: Sendable {
    fileprivate let after: OneShot<Void>?
    fileprivate let done: OneShot<Void>

    /// Returns once every turn taken before this one has ended. Not cancellable: a turn taken is waited for and ended.
    package func wait() async { await after?.value() }

    /// Ends the turn, and lets the next one go. Every turn taken must end, or every later one waits for ever.
    package func end() { done.fulfill(()) }
  }

  /// Takes the next place in line, now.
  package func take() -> Turn {
    let done = OneShot<Void>()
    let after = latest.withLock { latest in
      defer { latest = done }
      return latest
    }
    return Turn(after: after, done: done)
  }

  /// Runs `body` once every earlier turn has ended.
  package func run<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
    let turn = take()
    await turn.wait()
    defer { turn.end() }
    return try await body()
  }
}
