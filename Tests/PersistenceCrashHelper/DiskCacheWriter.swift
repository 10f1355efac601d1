/// Writes DiskCache entries until killed (the DiskCache crash test).
enum DiskCacheWriter {
  static func run(_ arguments: [String]) async throws {}
}
