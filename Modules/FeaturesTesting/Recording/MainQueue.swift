import Dispatch

/// Whether code runs on the main dispatch queue, where the main actor runs its jobs: the ``TestStore``'s `deinit` is
/// not isolated, and checks this before it assumes the main actor (a wrong assumption would crash the test run).
enum MainQueue {
  private static let key = DispatchSpecificKey<Bool>()
  private static let isMarked: Bool = {
    DispatchQueue.main.setSpecific(key: key, value: true)
    return true
  }()

  /// Whether the current code runs on the main queue.
  static var isCurrent: Bool {
    _ = isMarked
    return DispatchQueue.getSpecific(key: key) == true
  }
}
