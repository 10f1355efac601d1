/// The MemoryCache rows.
enum MemoryCacheBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] { [] }
}
