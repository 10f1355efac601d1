/// Makes a call that answers through a completion handler, and waits for its one answer.
///
/// An app would update its screen in the handler; this walk-through waits for each answer so that its steps run one
/// after another. The facade calls every handler exactly once, on its own background queue.
///
/// ```swift
/// let result = await completion { done in manager.getUser(userId: "alice", completionHandler: done) }
/// ```
func completion<Value: Sendable>(
  _ call: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Void
) async -> Result<Value, any Error> {
  await withCheckedContinuation { continuation in call { continuation.resume(returning: $0) } }
}
