import KeelConcurrency

/// Runs an operation in a task and keeps its outcome where a test can look without awaiting the task.
///
/// Awaiting `task.value` turns a bug that loses a wake-up into a hung test run; a probe turns it into a failed
/// expectation: ``finished()`` gives up after a bounded number of yields.
public final class TaskProbe<Value: Sendable>: Sendable {
  private let outcome = Locked<Result<Value, any Error>?>(nil)
  private let task = Locked<Task<Void, Never>?>(nil)

  /// Starts `operation` in a new task.
  public init(_ operation: @escaping @Sendable () async throws -> Value) {
    let started = Task { [self] in
      let result: Result<Value, any Error>
      do { result = .success(try await operation()) } catch { result = .failure(error) }
      self.outcome.withLock { $0 = result }
    }
    task.withLock { $0 = started }
  }

  /// The outcome, or `nil` while the operation runs.
  public var result: Result<Value, any Error>? { outcome.withLock { $0 } }

  /// Whether the operation has finished.
  public var isFinished: Bool { result != nil }

  /// Cancels the task.
  public func cancel() { task.withLock { $0?.cancel() } }

  /// Yields until the operation finishes; `nil` if it did not within the bound.
  public func finished() async -> Result<Value, any Error>? {
    _ = await eventually { isFinished }
    return result
  }

  /// The value it returned, or `nil` if it threw or has not finished within the bound.
  public func value() async -> Value? { try? await finished()?.get() }

  /// The error it threw, or `nil` if it returned or has not finished within the bound.
  public func error() async -> (any Error)? {
    guard case .failure(let error) = await finished() else { return nil }
    return error
  }
}
