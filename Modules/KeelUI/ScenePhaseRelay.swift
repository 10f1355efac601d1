import KeelConcurrency
import Realtime

/// Hands a scene's phase changes to work that follows them (a socket that suspends in the background and resumes
/// when active), one at a time, in the order the phases changed: each call starts after the one before finished, so
/// a quick background-then-active never reaches the socket as resume-then-suspend and leaves an active app with its
/// socket closed. A change that repeats the last one does nothing. Plain Swift: the SwiftUI modifier
/// `socketLifecycle(_:)` uses it on Apple platforms, and tests run it everywhere.
///
/// ```swift
/// import Realtime
///
/// func follow(_ client: SocketIOClient) async {
///   let relay = ScenePhaseRelay(client)
///   relay.sceneChanged(active: false)                // suspends
///   await relay.sceneChanged(active: true)?.value    // resumes, after the suspension finished
/// }
/// ```
public final class ScenePhaseRelay: Sendable {
  private let turns = AsyncTurns()
  /// Whether the scene was last active; `nil` before the first change.
  private let lastActive = Locked<Bool?>(nil)
  private let resume: @Sendable () async -> Void
  private let suspend: @Sendable () async -> Void

  /// A relay that calls `resume` when the scene becomes active and `suspend` when it stops being so.
  public init(resume: @escaping @Sendable () async -> Void, suspend: @escaping @Sendable () async -> Void) {
    self.resume = resume
    self.suspend = suspend
  }

  /// A relay that resumes and suspends `client`.
  public convenience init(_ client: SocketIOClient) {
    self.init(resume: { await client.resume() }, suspend: { await client.suspend() })
  }

  /// The scene became active, or stopped being so: the matching call runs once every earlier one finished.
  ///
  /// - Returns: The task that makes the call, or `nil` when `active` repeats the last change.
  @discardableResult
  public func sceneChanged(active: Bool) -> Task<Void, Never>? {
    // The place in line is taken under the same lock as the change, so two changes from two threads keep one order.
    let turn = lastActive.withLock { last -> AsyncTurns.Turn? in
      guard last != active else { return nil }
      last = active
      return turns.take()
    }
    guard let turn else { return nil }
    let call = active ? resume : suspend
    return Task {
      await turn.wait()
      await call()
      turn.end()
    }
  }
}
