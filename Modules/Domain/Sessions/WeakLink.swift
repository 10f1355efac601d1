import KeelConcurrency

/// A weak reference set after it was captured: ``SessionManager``'s authenticator and interceptor report to the
/// manager, but are made before it exists.
final class WeakLink<Object: AnyObject & Sendable>: Sendable {
  private struct Reference {
    weak var object: Object?
  }

  private let reference = Locked(Reference())

  /// An empty link.
  init() {}

  /// The object, while it lives.
  var object: Object? { reference.withLock { $0.object } }

  /// Points the link at `object`.
  func connect(_ object: Object) {
    reference.withLock { $0.object = object }
  }
}
