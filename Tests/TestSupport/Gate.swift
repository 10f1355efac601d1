import KeelBasics

/// A gate that tasks pass when it is open and wait at when it is closed, until a test opens it: for holding a fake
/// server's answer or a fake refresh at a chosen moment.
public final class Gate: Sendable {
  private struct State {
    var isOpen: Bool
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private let state: Locked<State>

  /// A gate, open unless told otherwise.
  public init(open: Bool = true) { state = Locked(State(isOpen: open)) }

  /// Makes later callers of ``pass()`` wait.
  public func close() { state.withLock { $0.isOpen = false } }

  /// Lets every waiting caller through, and later ones at once.
  public func open() {
    let waiting = state.withLock { state in
      state.isOpen = true
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume() }
  }

  /// How many callers are waiting.
  public var waitingCount: Int { state.withLock { $0.waiting.count } }

  /// Returns at once if the gate is open, otherwise when it opens.
  public func pass() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiting.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }
}
