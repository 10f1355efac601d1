import Foundation

#if canImport(UIKit) && !os(watchOS)
  import UIKit

  extension EventTracker {
    /// Flushes every time the app goes to the background, inside the background time the system grants, so that
    /// what was tracked just before leaves the device while the app may still run (REQUIREMENTS E7). The flush ends
    /// when the system's time is up; what did not go stays stored for the next launch. Called once, at start.
    func observeBackground() {
      let observer = NotificationCenter.default.addObserver(
        forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
      ) { [weak self] _ in
        MainActor.assumeIsolated {
          guard let self else { return }
          BackgroundFlush.start(self)
        }
      }
      backgroundObserver.withLock { $0 = ObserverToken(observer) }
    }
  }

  /// One flush in the background time the system grants.
  @MainActor
  private final class BackgroundFlush {
    private var identifier = UIBackgroundTaskIdentifier.invalid
    private var flush: Task<Void, Never>?

    static func start(_ tracker: EventTracker) {
      let background = BackgroundFlush()
      background.identifier = UIApplication.shared.beginBackgroundTask(withName: "keel.events.flush") {
        // The system's time is up: stop waiting; the events stay stored.
        background.flush?.cancel()
        background.end()
      }
      background.flush = Task { @MainActor in
        _ = await tracker.drain(timeout: .seconds(25))
        background.end()
      }
    }

    private func end() {
      guard identifier != .invalid else { return }
      UIApplication.shared.endBackgroundTask(identifier)
      identifier = .invalid
    }
  }
#endif

/// A notification observer that goes when its tracker goes.
// @unchecked: the token is an opaque NSObjectProtocol that NotificationCenter only compares; it is written once and
// handed back once, under the tracker's lock.
final class ObserverToken: @unchecked Sendable {  // an opaque token, written and handed back once
  private let token: any NSObjectProtocol

  init(_ token: any NSObjectProtocol) { self.token = token }

  deinit { NotificationCenter.default.removeObserver(token) }
}
