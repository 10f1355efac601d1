/// The DurableQueue rows.
enum DurableQueueBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] { [] }
}
