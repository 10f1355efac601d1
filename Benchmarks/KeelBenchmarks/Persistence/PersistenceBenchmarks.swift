/// The Persistence rows: the memory cache against NSCache, the disk cache, and the durable queue against rewriting
/// the whole pending array on every event.
enum PersistenceBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    MemoryCacheBenchmarks.comparisons(quick: quick) + DiskCacheBenchmarks.comparisons(quick: quick)
      + DurableQueueBenchmarks.comparisons(quick: quick)
  }
}
