import KeelConcurrency

/// Hands every ``SocketActivity`` to each subscriber's stream, in order, and keeps the current state for subscribers
/// that come later.
final class ActivityFanOut: Sendable {
  private struct State {
    var current: SocketConnectionState = .disconnected(nil)
    var nextID = 0
    var sinks: [Int: @Sendable (SocketActivity) -> Void] = [:]
    var finishes: [Int: @Sendable () -> Void] = [:]
    /// The paced streams' buffers, held weakly: a stream its reader dropped holds the client back no more.
    var paced: [Int: WeakPacedBuffer] = [:]
    var finished = false
  }

  final class WeakPacedBuffer: Sendable {
    private let box: Locked<Weak>
    struct Weak: @unchecked Sendable { weak var buffer: PacedBuffer<SocketActivity>? }
    init(_ buffer: PacedBuffer<SocketActivity>) { box = Locked(Weak(buffer: buffer)) }
    var buffer: PacedBuffer<SocketActivity>? { box.withLock { $0.buffer } }
  }

  private let state = Locked(State())

  /// The state last published.
  var current: SocketConnectionState { state.withLock { $0.current } }

  /// Publishes `activity` to every subscriber.
  func publish(_ activity: SocketActivity) {
    let (sinks, paced) = state.withLock { state in
      if case .state(let new) = activity { state.current = new }
      let paced = state.paced.values.compactMap(\.buffer)
      // A stream its reader dropped is forgotten here, the first time it is found gone.
      if paced.count < state.paced.count { state.paced = state.paced.filter { $0.value.buffer != nil } }
      return (Array(state.sinks.values), paced)
    }
    for sink in sinks { sink(activity) }
    for buffer in paced { buffer.pushNow(activity) }
  }

  /// The most bytes of events a paced stream holds unread, whatever its count.
  static let pacedBytes = 16 << 20

  /// A new stream of every activity from now on, starting with the current state, that holds fewer than `limit`
  /// items and ``pacedBytes`` unread: while it is full, ``room()`` waits.
  func pacedStream(limit: Int) -> AsyncStream<SocketActivity> {
    let buffer = PacedBuffer<SocketActivity>(count: limit, weight: Self.pacedBytes) { activity in
      if case .event(let event) = activity { event.args.reduce(0) { $0 + $1.approximateSize } } else { 0 }
    }
    let registered = state.withLock { state -> Bool in
      guard !state.finished else { return false }
      buffer.pushNow(.state(state.current))
      state.nextID += 1
      state.paced[state.nextID] = WeakPacedBuffer(buffer)
      return true
    }
    if !registered { buffer.finish() }
    return AsyncStream(unfolding: { try? await buffer.next() }, onCancel: { buffer.cancel() })
  }

  /// Whether the reader of the connection waits in ``room()`` now.
  var isHoldingBack: Bool {
    state.withLock { state in state.paced.values.compactMap(\.buffer) }.contains { $0.isHoldingBack }
  }

  /// Returns once every paced stream has room for more, for a reader of the connection to go on: back-pressure.
  func room() async {
    let paced = state.withLock { state in state.paced.values.compactMap(\.buffer) }
    for buffer in paced where buffer.isFull { await buffer.room() }
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
    let (finishes, paced) = state.withLock { state in
      state.finished = true
      state.sinks = [:]
      defer {
        state.finishes = [:]
        state.paced = [:]
      }
      return (Array(state.finishes.values), state.paced.values.compactMap(\.buffer))
    }
    for finish in finishes { finish() }
    for buffer in paced { buffer.finish() }
  }
}
