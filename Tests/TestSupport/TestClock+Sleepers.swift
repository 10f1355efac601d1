import Clocks
// `sleeperArrived()`, which every clock-driven test uses, is FeaturesTesting's; tests get it with this module.
@_exported import FeaturesTesting

extension TestClock where Duration == Swift.Duration {
  /// The time since `start`, in whole milliseconds: readable numbers for admission instants.
  public func milliseconds(since start: Instant) -> Int64 {
    let (seconds, attoseconds) = start.duration(to: now).components
    return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
  }
}
