import Foundation
import KeelConcurrency
import Logging
import Networking
import Sandbox
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The URLSession transport against a Sandbox on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct URLSessionTransportTests {
  /// FoundationNetworking's own `data(for:)` stops two threads for good when its caller is cancelled while the answer
  /// arrives (see `URLSession.dataCancellingSafely(for:)`): with it, the first rounds here never end. The
  /// cancellations come from a thread of their own, so that a transport that has the deadlock stops that thread and
  /// the session's work queue, never the test's cooperative threads, and the test fails by its deadline.
  @Test("Requests cancelled while their answers arrive all end: none waits for good on the session's work queue")
  func cancellingRequestsInFlightNeverDeadlocks() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let transport = URLSessionTransport()
    let (rounds, perRound) = (20, 50)
    let ended = Locked(0)
    for round in 0..<rounds {
      let tasks = (0..<perRound).map { index in
        Task {
          defer { ended.withLock { $0 += 1 } }
          let url = URL(string: "\(sandbox.baseURL)/images/r\(round)-\(index).png?size=8")!
          _ = try await transport.send(URLRequest(url: url))
        }
      }
      // Spread over the round, from before the first request is sent to after the last is answered: some
      // cancellations come before a transfer starts, some while it runs, some as it ends.
      let cancelling = Locked(true)
      Thread.detachNewThread {
        for task in tasks {
          usleep(200)
          task.cancel()
        }
        cancelling.withLock { $0 = false }
      }
      // Polled, not awaited: a cancellation that deadlocks never returns.
      let all = (round + 1) * perRound
      let done = await poll(for: .seconds(60)) { !cancelling.withLock { $0 } && ended.withLock { $0 } == all }
      guard done else {
        Issue.record("Round \(round): \(ended.withLock { $0 }) of \(all) requests ended within a minute")
        return
      }
    }
    await sandbox.stop()
  }
}
