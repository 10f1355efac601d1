/// The event tracker's rows: durable `track` latency and throughput against the source approach, and delivery
/// throughput to a local Sandbox.
enum EventTrackerBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] { [] }
}
