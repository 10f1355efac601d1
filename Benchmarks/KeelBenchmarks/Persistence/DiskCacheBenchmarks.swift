/// The DiskCache rows.
enum DiskCacheBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] { [] }
}
