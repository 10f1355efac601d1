import Foundation

/// Runs `body` on a thread of its own and returns what it returned: for a test's long blocking work (thousands of
/// file writes, `initdb`, waiting for a child process), which on the cooperative pool would hold one of its threads
/// (two on two cores) for seconds, and with it every other test's tasks, some of which wait on the wall clock.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
  }
}

/// ``onOwnThread(_:)`` for work that cannot fail.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}
