import KeelBasics

/// Hands every ``SocketActivity`` to each subscriber's stream, in order, and keeps the current state for subscribers
/// that come later.
final class ActivityFanOut: Sendable {
  private struct State {
    var current: SocketConnectionState = .disconnected(nil)
    var nextID = 0
    var sinks: [Int: @Sendable (SocketActivity) -> Void] = [:]
    var finishes: [Int: @Sendable () -> Void] = [:]
    var finished = false
  }

  private let state = Locked(State())

  /// The state last published.
  var current: SocketConnectionState { state.withLock { $0.current } }

  /// Publishes `activity` to every subscriber.
  func publish(_ activity: SocketActivity) {
    let sinks = state.withLock { state in
      if case .state(let new) = activity { state.current = new }
      return Array(state.sinks.values)
    }
    for sink in sinks { sink(activity) }
  }

  /// A new stream of what `transform` keeps of every activity from now on, starting with `initial` of the current
  /// state if given. It buffers what its reader has not read yet.
  func stream<Element: Sendable>(
    initial: (@Sendable (SocketConnectionState) -> Element?)? = nil,
    _ transform: @escaping @Sendable (SocketActivity) -> Element?
  ) -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream<Element>.makeStream()
    let id: Int? = state.withLock { state in
      guard !state.finished else { return nil }
      if let first = initial?(state.current) { continuation.yield(first) }
      let id = state.nextID
      state.nextID += 1
      state.sinks[id] = { activity in
        if let element = transform(activity) { continuation.yield(element) }
      }
      state.finishes[id] = { continuation.finish() }
      return id
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { state in
        state.sinks[id] = nil
        state.finishes[id] = nil
      }
    }
    return stream
  }

  /// The number of streams still listening.
  var subscriberCount: Int { state.withLock { $0.sinks.count } }

  /// Ends every stream; later ones end at once.
  func finish() {
    let finishes = state.withLock { state in
      state.finished = true
      state.sinks = [:]
      defer { state.finishes = [:] }
      return Array(state.finishes.values)
    }
    for finish in finishes { finish() }
  }
}
