import KeelConcurrency

/// Keeps the chat's lifecycle calls in the order the app's scene phase changed.
///
/// The changes are reduced in order, but each one's effect runs on a task of its own, and two tasks started together
/// may start in either order. A quick background-then-active could reach the chat as foreground, then background, and
/// leave an active app with its socket closed; seen under ThreadSanitizer's load. So each change takes a turn while it
/// is reduced, and its call waits until the call of the turn before it has finished.
final class LifecycleOrder: Sendable {
  /// The completion of the latest turn taken.
  private let latest = Locked<OneShot<Void>?>(nil)

  /// The next turn: the completion of the turn before (nil for the first) and this turn's own, which its effect
  /// fulfills when its call is done. Every effect runs, so every turn is fulfilled.
  func take() -> (after: OneShot<Void>?, done: OneShot<Void>) {
    let done = OneShot<Void>()
    let after = latest.withLock { latest in
      defer { latest = done }
      return latest
    }
    return (after, done)
  }
}
