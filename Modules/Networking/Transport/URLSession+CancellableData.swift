import Dispatch
import Foundation
import KeelConcurrency

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSession {
  /// What `data(for:)` does, without the deadlock FoundationNetworking's `data(for:)` has on Linux when its caller is
  /// cancelled (https://github.com/swiftlang/swift-corelibs-foundation/issues/5412; present in Swift 6.3.1).
  ///
  /// There, cancelling the caller runs the task's cancellation while Swift holds the caller's task-status lock, and
  /// that cancellation waits for the session's work queue; the work queue, finishing the same transfer at that
  /// moment, resumes the caller and waits for the same lock. Both threads wait for good, and one of them is one of
  /// the cooperative pool's few (as many as there are cores): a process with two cores that loses two is stuck. Here
  /// the transfer ends in a completion handler, which URLSession calls on its delegate queue rather than on the work
  /// queue, and a cancellation is handed to another queue instead of waiting under the lock.
  ///
  /// A task cancelled before the transfer starts throws `CancellationError` and sends nothing; one cancelled during
  /// it throws `URLError.cancelled`, as `data(for:)` does.
  package func dataCancellingSafely(for request: URLRequest) async throws -> (Data, URLResponse) {
    // The task, once made. Whether the caller was cancelled first is the task's own flag: Swift sets it before it
    // runs the cancellation handler, which takes this lock, so the check under the lock below sees it.
    let transfer = Locked<URLSessionTask?>(nil)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let task = transfer.withLock { transfer -> URLSessionTask? in
          guard !Task.isCancelled else { return nil }
          let task = dataTask(with: request) { data, response, error in
            if let response, error == nil {
              continuation.resume(returning: (data ?? Data(), response))
            } else {
              continuation.resume(throwing: error ?? URLError(.badServerResponse))
            }
          }
          transfer = task
          return task
        }
        guard let task else { return continuation.resume(throwing: CancellationError()) }
        task.resume()
      }
    } onCancel: {
      let task = transfer.withLock { $0 }
      // Not here, under the caller's task-status lock: `cancel()` waits for the session's work queue.
      if let task { DispatchQueue.global().async { task.cancel() } }
    }
  }
}
