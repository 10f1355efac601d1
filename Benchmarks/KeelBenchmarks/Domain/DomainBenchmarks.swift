/// The Domain rows: the image loader against a naive loader.
enum DomainBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    ImageLoaderBenchmarks.comparisons(quick: quick)
  }
}
