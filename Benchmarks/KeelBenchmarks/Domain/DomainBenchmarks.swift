/// The Domain rows: the image loader against a naive loader, the event tracker against the source approach, the chat
/// against hand-written clients.
enum DomainBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    ImageLoaderBenchmarks.comparisons(quick: quick) + EventTrackerBenchmarks.comparisons(quick: quick)
      + ChatBenchmarks.comparisons(quick: quick)
  }
}
