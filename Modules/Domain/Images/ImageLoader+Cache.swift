import Foundation
import Persistence

extension ImageLoader {
  /// The two-level image cache in `directory`, within `limits`: what
  /// ``ImageLoader/init(client:cache:defaultMaxAge:now:logger:)`` takes, for a composition root that builds its
  /// parts one by one.
  ///
  /// ```swift
  /// import Foundation
  /// import Networking
  ///
  /// let caches = URL(fileURLWithPath: "myapp-caches", isDirectory: true)
  /// let cache = try ImageLoader.makeCache(directory: caches.appending(path: "images"))
  /// let loader = ImageLoader(client: HTTPClient(), cache: cache)
  /// ```
  ///
  /// Entries get no time to live on either level: freshness lives in each ``CachedImage``, and a stale image stays
  /// until the least-recently-used eviction of its level removes it, so that it can be revalidated.
  ///
  /// - Parameters:
  ///   - directory: The disk level's directory, created if needed; one cache per directory at a time.
  ///   - limits: The memory level's cost and count limits and the disk level's size limit.
  ///   - now: The wall-clock time the disk level records last accesses with.
  /// - Returns: A cache whose disk level holds each image in ``CachedImage``'s compact binary form.
  /// - Throws: ``ImageLoaderError`` of kind `ImageLoaderError.Kind.invalidConfiguration` for limits out of
  ///   range, or the disk level's `PersistenceError` when its directory cannot be created or opened.
  public static func makeCache(
    directory: URL, limits: ImageCacheLimits = ImageCacheLimits(),
    now: @escaping @Sendable () -> Date = CoarseWallClock.now
  ) throws -> HybridCache<CachedImage> {
    try limits.validate()
    let memory = MemoryCache<String, CachedImage>(
      totalCostLimit: limits.memoryCostLimit, countLimit: limits.memoryCountLimit)
    let disk = try DiskCache(directory: directory, sizeLimit: limits.diskSizeLimit, now: now)
    return HybridCache(
      memory: memory, disk: disk, encode: { $0.encoded() }, decode: { try CachedImage(encoded: $0) },
      cost: { $0.cost })
  }
}
