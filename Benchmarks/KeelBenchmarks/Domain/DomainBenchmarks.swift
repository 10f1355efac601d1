/// The Domain rows: the image loader against a naive loader, the event tracker against the source approach.
enum DomainBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    ImageLoaderBenchmarks.comparisons(quick: quick) + EventTrackerBenchmarks.comparisons(quick: quick)
  }
}
