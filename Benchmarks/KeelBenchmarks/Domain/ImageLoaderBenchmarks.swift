/// The image loader's rows: the memory-hit path, and 100 concurrent loads of one URL (server hits, Keel vs naive).
enum ImageLoaderBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] { [] }
}
