import Features

/// The Features rows: `Store.send` throughput with a trivial reducer (target ≥ 1,000,000 actions/s in release), and
/// the cost of a send through five levels of scoping relative to a send at the root (target ≤ 2×).
///
/// The peer of the throughput row is the floor: the same reducer called directly on a local state, with no store.
enum StoreBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let sends = quick ? 200_000 : 1_000_000
    return [
      Comparison(
        name: "features.store.send", unit: "actions/s", better: .higher, target: 1_000_000,
        keel: { await MainActor.run { storeThroughput(sends) } },
        peer: { await MainActor.run { directThroughput(sends) } }),
      Comparison(
        name: "features.store.scopedSend5", unit: "ns/send", better: .lower, target: nil, minRatio: 0.5,
        keel: { await MainActor.run { nanosecondsPerSend(sends, depth: 5) } },
        peer: { await MainActor.run { nanosecondsPerSend(sends, depth: 0) } }),
    ]
  }

  @MainActor
  private static func storeThroughput(_ sends: Int) -> Double {
    let store = Store(initialState: 0, reducer: Tally())
    let start = ContinuousClock.now
    for _ in 0..<sends { store.send(.add) }
    return Double(sends) / seconds(since: start)
  }

  private static func directThroughput(_ sends: Int) -> Double {
    var state = 0
    let reducer = Tally()
    let start = ContinuousClock.now
    for _ in 0..<sends { _ = reducer.reduce(into: &state, action: .add) }
    precondition(state == sends)
    return Double(sends) / seconds(since: start)
  }

  @MainActor
  private static func nanosecondsPerSend(_ sends: Int, depth: Int) -> Double {
    let root = Store(initialState: 0, reducer: Tally())
    var store = root
    for _ in 0..<depth { store = store.scope(state: { $0 }, action: { $0 }) }
    let start = ContinuousClock.now
    for _ in 0..<sends { store.send(.add) }
    precondition(root.state == sends)
    return seconds(since: start) * 1e9 / Double(sends)
  }

  private static func seconds(since start: ContinuousClock.Instant) -> Double {
    let (seconds, attoseconds) = start.duration(to: .now).components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}

/// The trivial reducer: one counter, one action, no effect.
private struct Tally: Reducer {
  enum Action: Sendable { case add }
  func reduce(into state: inout Int, action: Action) -> Effect<Action> {
    state += 1
    return .none
  }
}
